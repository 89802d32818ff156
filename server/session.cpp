#include "server/session.h"

#include <algorithm>

#include "arena/player_factory.h"
#include "arena/sgf.h"
#include "arena/tournament_db.h"
#include "games/registry.h"
#include "mcts/evaluator.h"
#include "server/board_view.h"
#include "util/error.h"

namespace pz::server {
namespace {

using nlohmann::json;

// The names the page shows for the seats, in each game's own tradition.
std::string seat_label(const games::Game& game, int seat) {
  const std::string& name = game.info().name;
  if (game.info().num_players == 1) return "Player";
  if (name == "go" || name == "othello" || name == "gomoku") return seat == 0 ? "Black" : "White";
  if (name == "connect4") return seat == 0 ? "Red" : "Yellow";
  if (name == "hex" || name == "havannah") return seat == 0 ? "Red" : "Blue";
  if (name == "tictactoe") return seat == 0 ? "X" : "O";
  return "Player " + std::to_string(seat + 1);
}

void check_seats(const games::Game& game, const std::vector<std::string>& seats, const SeatResolver& resolve) {
  const auto n = static_cast<std::size_t>(game.info().num_players);
  if (seats.size() != n) {
    throw ApiError(400, game.info().long_name + " has " + std::to_string(n) + " seat(s); give \"seats\" with " +
                            std::to_string(n) + " player(s), each \"human\" or an AI spec such as mcts:sims=400");
  }
  for (const auto& spec : seats) {
    if (spec == "human" || !resolve) continue;
    try {
      auto player = arena::make_player(resolve(spec), game, 0);
      if (player->is_human()) throw ApiError(400, "seat '" + spec + "': write a person as \"human\"");
    } catch (const util::UsageError& e) {
      throw ApiError(400, std::string("seat '") + spec.substr(0, 200) + "': " + e.what());
    }
  }
}

}  // namespace

Session::Session(std::string id, std::shared_ptr<const games::Game> game, std::vector<std::string> seats,
                 std::uint64_t seed, const SeatResolver& resolve)
    : id_(std::move(id)), game_(std::move(game)), seats_(std::move(seats)), seed_(seed), chance_rng_(seed),
      created_(arena::TournamentDb::now_utc()) {
  check_seats(*game_, seats_, resolve);
  history_.push_back(game_->new_initial_state());
  draw_chance_outcomes();
}

std::unique_ptr<Session> Session::restore(const SessionRecord& record) {
  std::shared_ptr<const games::Game> game;
  try {
    game = games::make_game(record.game);
  } catch (const util::UsageError& e) {
    throw ApiError(500, "session " + record.id + " names a game this server cannot make: " + e.what());
  }
  auto session = std::unique_ptr<Session>(new Session(record.id, game, record.seats, record.seed, nullptr));
  // The chance outcomes drawn at creation are in the record: start again from the initial state.
  session->history_.resize(1);
  session->history_[0] = game->new_initial_state();
  session->actions_.clear();
  session->movers_.clear();
  session->step_start_.clear();
  const int seats = game->info().num_players;
  for (std::size_t i = 0; i < record.actions.size();) {
    const games::State& s = session->state();
    const bool joint = s.is_simultaneous_node();
    const std::size_t step = joint ? static_cast<std::size_t>(seats) : 1;
    bool fits = !s.is_terminal() && i + step <= record.actions.size();
    for (std::size_t k = 0; fits && k < step; ++k) {
      fits = joint ? session->legal_for(static_cast<int>(k), record.actions[i + k]) : s.is_legal(record.actions[i]);
    }
    if (!fits) throw ApiError(500, "session " + record.id + ": its stored moves no longer replay");
    if (joint) {
      for (int seat = 0; seat < seats; ++seat) session->chosen_[seat] = record.actions[i + static_cast<std::size_t>(seat)];
      session->choose(seats - 1, record.actions[i + step - 1]);  // plays the joint move, no chance draws yet
    } else {
      const int mover = s.current_player();
      auto next = s.clone();
      next->apply_action(record.actions[i]);
      session->step_start_.push_back(session->move_count());
      session->history_.push_back(std::move(next));
      session->actions_.push_back(record.actions[i]);
      session->movers_.push_back(mover);
    }
    i += step;
  }
  session->values_ = record.values;
  session->resigned_seat_ = record.resigned_seat;
  session->created_ = record.created;
  // Later chance outcomes continue from a generator that depends on the moves so far.
  session->chance_rng_.seed(record.seed ^ (0x9E3779B97F4A7C15ULL * (record.actions.size() + 1)));
  return session;
}

void Session::apply(games::Action action) {
  const int mover = state().current_player();
  auto next = state().clone();
  next->apply_action(action);
  step_start_.push_back(move_count());
  history_.push_back(std::move(next));
  actions_.push_back(action);
  movers_.push_back(mover);
  draw_chance_outcomes();
}

void Session::draw_chance_outcomes() {
  while (state().is_chance_node()) apply(mcts::sample_chance_outcome(state(), chance_rng_));
}

bool Session::legal_for(int seat, games::Action action) const {
  std::vector<games::Action> legal;
  state().legal_actions(seat, legal);
  return std::find(legal.begin(), legal.end(), action) != legal.end();
}

void Session::choose(int seat, games::Action action) {
  chosen_[seat] = action;
  const int seats = game_->info().num_players;
  if (static_cast<int>(chosen_.size()) < seats) return;
  const auto before = state().clone();
  std::vector<games::Action> joint;
  const int start = move_count();
  for (int s = 0; s < seats; ++s) {
    joint.push_back(chosen_.at(s));
    actions_.push_back(chosen_.at(s));
    movers_.push_back(s);
    step_start_.push_back(start);
    // Within a joint move the position does not change until every seat has chosen.
    if (s + 1 < seats) history_.push_back(before->clone());
  }
  auto next = before->clone();
  next->apply_joint_action(joint);
  history_.push_back(std::move(next));
  chosen_.clear();
}

std::optional<int> Session::seat_to_move() const {
  if (finished()) return std::nullopt;
  if (!state().is_simultaneous_node()) return state().current_player();
  std::optional<int> first_ai;
  for (int seat = 0; seat < static_cast<int>(seats_.size()); ++seat) {
    if (chosen_.count(seat)) continue;
    if (is_human(seat)) return seat;
    if (!first_ai) first_ai = seat;
  }
  return first_ai;
}

std::string Session::ai_for(int seat) const {
  if (!is_human(seat)) return seats_[static_cast<std::size_t>(seat)];
  for (const auto& spec : seats_) {
    if (spec != "human") return spec;
  }
  return "mcts:sims=400";
}

void Session::play_human(const std::string& move) {
  const auto seat = seat_to_move();
  if (!seat) throw ApiError(409, "the game is over");
  if (!is_human(*seat)) throw ApiError(409, "it is the AI's turn (" + seats_[static_cast<std::size_t>(*seat)] + ")");
  std::string error;
  const auto action = state().parse_action(move.substr(0, 64), &error);
  if (!action) throw ApiError(400, "'" + move.substr(0, 64) + "' is not a move of " + game_->info().long_name + ": " + error);
  analysis_ = nullptr;
  if (state().is_simultaneous_node()) {
    if (!legal_for(*seat, *action)) throw ApiError(400, "illegal move " + move.substr(0, 64));
    choose(*seat, *action);
    draw_chance_outcomes();
    return;
  }
  if (!state().is_legal(*action)) throw ApiError(400, "illegal move " + move.substr(0, 64) + ": " + state().explain_illegal(*action));
  apply(*action);
}

void Session::play_ai(games::Action action, std::optional<double> win_probability, json analysis) {
  const auto seat = seat_to_move();
  const bool joint = state().is_simultaneous_node();
  if (!seat || !(joint ? legal_for(*seat, action) : state().is_legal(action))) {
    throw ApiError(409, "the AI's move no longer fits the game");
  }
  if (win_probability) {
    values_.push_back({{"ply", move_count() + 1}, {"seat", *seat}, {"win_probability", *win_probability}});
  }
  analysis_ = std::move(analysis);
  if (joint) {
    choose(*seat, action);
    draw_chance_outcomes();
  } else {
    apply(action);
  }
}

void Session::undo() {
  int last_human = -1;
  for (int i = move_count() - 1; i >= 0 && last_human < 0; --i) {
    const int mover = movers_[static_cast<std::size_t>(i)];
    if (mover >= 0 && is_human(mover)) last_human = i;
  }
  if (last_human < 0 && chosen_.empty()) throw ApiError(409, "there is no move of yours to take back");
  chosen_.clear();
  if (last_human >= 0) last_human = step_start_[static_cast<std::size_t>(last_human)];  // the whole joint move
  if (last_human < 0) last_human = move_count();  // only a choice not yet played
  history_.resize(static_cast<std::size_t>(last_human) + 1);
  actions_.resize(static_cast<std::size_t>(last_human));
  movers_.resize(static_cast<std::size_t>(last_human));
  step_start_.resize(static_cast<std::size_t>(last_human));
  json kept = json::array();
  for (const auto& v : values_) {
    if (v.at("ply").get<int>() <= last_human) kept.push_back(v);
  }
  values_ = kept;
  resigned_seat_ = -1;
  analysis_ = nullptr;
  ++generation_;
}

void Session::resign(int seat) {
  if (seat < 0 || seat >= game_->info().num_players) throw ApiError(400, "seat " + std::to_string(seat) + " is not in this game");
  if (finished()) throw ApiError(409, "the game is over");
  resigned_seat_ = seat;
  ++generation_;
}

json Session::state_json(bool thinking) const {
  const auto& s = state();
  const auto to_move = seat_to_move();
  json seats = json::array();
  for (int i = 0; i < static_cast<int>(seats_.size()); ++i) {
    seats.push_back({{"seat", i}, {"label", seat_label(*game_, i)}, {"player", seats_[static_cast<std::size_t>(i)]}});
  }
  json moves = json::array();
  for (int k = 0; k < move_count(); ++k) {
    const int mover = movers_[static_cast<std::size_t>(k)];
    moves.push_back({{"seat", mover >= 0 ? json(mover) : json(nullptr)},
                     {"move", history_[static_cast<std::size_t>(k)]->action_to_string(mover, actions_[static_cast<std::size_t>(k)])}});
  }
  std::vector<std::string> legal;
  if (to_move && is_human(*to_move)) {
    std::vector<games::Action> actions;
    s.legal_actions(*to_move, actions);
    for (const auto a : actions) legal.push_back(s.action_to_string(*to_move, a));
  }
  json result = nullptr;
  if (finished()) {
    std::vector<double> returns = s.is_terminal() ? s.returns() : std::vector<double>(seats_.size(), 0.0);
    if (resigned_seat_ >= 0 && returns.size() == 2) {
      returns[static_cast<std::size_t>(resigned_seat_)] = game_->info().min_return;
      returns[static_cast<std::size_t>(1 - resigned_seat_)] = game_->info().max_return;
    }
    json winner = nullptr;
    std::string text = "draw";
    if (returns.size() == 2 && returns[0] != returns[1]) {
      const int w = returns[0] > returns[1] ? 0 : 1;
      winner = w;
      text = seat_label(*game_, w) + " wins";
    } else if (returns.size() == 1) {
      text = "score " + std::to_string(static_cast<long long>(returns[0]));
    }
    if (resigned_seat_ >= 0) text += " (" + seat_label(*game_, resigned_seat_) + " resigned)";
    result = {{"returns", returns}, {"winner", winner}, {"text", text},
              {"reason", resigned_seat_ >= 0 ? "resigned" : "game over"}};
  }
  std::optional<games::Action> last;
  for (int k = move_count() - 1; k >= 0 && !last; --k) {
    if (movers_[static_cast<std::size_t>(k)] >= 0) last = actions_[static_cast<std::size_t>(k)];
  }
  return {{"id", id_},
          {"game", game_->spec().to_string()},
          {"name", game_->info().name},
          {"long_name", game_->info().long_name},
          {"family", games::family_name(game_->info().family)},
          {"seats", seats},
          {"move_number", s.move_number()},
          {"to_move", to_move ? json(*to_move) : json(nullptr)},
          {"simultaneous", !finished() && s.is_simultaneous_node()},
          {"status", finished() ? "finished" : "playing"},
          {"result", result},
          {"moves", moves},
          {"legal_moves", legal},
          {"thinking", thinking},
          {"text", s.to_string()},
          {"board", board_view(s, last, legal)},
          {"values", values_},
          {"analysis", analysis_}};
}

json Session::record_json() const {
  const json state = state_json(false);
  json moves = json::array();
  for (const auto& m : state["moves"]) moves.push_back(m["move"]);
  json record{{"game", state["game"]}, {"seats", seats_}, {"moves", moves}, {"result", state["result"]}, {"created", created_}};
  if (game_->info().name == "go") {
    arena::StoredGame g;
    g.game = game_->spec().to_string();
    g.first_player = seats_[0];
    g.second_player = seats_[1];
    for (const auto& m : moves) g.moves.push_back(m.get<std::string>());
    const auto winner = state["result"].is_null() ? json(nullptr) : state["result"]["winner"];
    g.result = winner.is_null() ? "1/2-1/2" : winner.get<int>() == 0 ? "1-0" : "0-1";
    g.reason = resigned_seat_ >= 0 ? "resigned" : "game over";
    g.started = created_;
    record["sgf"] = arena::go_game_to_sgf(g);
  }
  return record;
}

SessionRecord Session::record() const {
  SessionRecord r;
  r.id = id_;
  r.game = game_->spec().to_string();
  r.seats = seats_;
  r.seed = seed_;
  r.actions = actions_;
  r.values = values_;
  r.resigned_seat = resigned_seat_;
  r.created = created_;
  return r;
}

}  // namespace pz::server
