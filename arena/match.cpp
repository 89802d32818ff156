#include "arena/match.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "arena/player_factory.h"
#include "mcts/evaluator.h"
#include "util/error.h"

namespace pz::arena {
namespace {

// players[seat]'s action, or nullopt when it forfeits (recorded in `result`).
std::optional<games::Action> ask(Player& player, const games::State& state, games::Player seat, GameResult& result) {
  try {
    return player.choose_action(state, seat);
  } catch (const Forfeit& forfeit) {
    result.forfeit_seat = seat;
    result.termination = forfeit.what();
    return std::nullopt;
  }
}

// A loss for the seat that forfeited and, in two-player games, a win for the other; a single
// player keeps its score so far.
std::vector<double> forfeit_returns(const games::Game& game, const games::State& state, games::Player forfeit_seat) {
  std::vector<double> returns = state.returns();
  if (returns.size() == 1) return returns;
  if (returns.size() == 2) returns[static_cast<std::size_t>(1 - forfeit_seat)] = game.info().max_return;
  returns[static_cast<std::size_t>(forfeit_seat)] = game.info().min_return;
  return returns;
}

}  // namespace

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = seed ^ (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kWin: return "win";
    case Outcome::kDraw: return "draw";
    case Outcome::kLoss: return "loss";
  }
  return "?";
}

GameResult play_game(const games::Game& game, std::span<Player* const> players, util::Rng& chance_rng, int max_moves) {
  PlayOptions options;
  options.max_moves = max_moves;
  return play_game(game, players, chance_rng, options);
}

GameResult play_game(const games::Game& game, std::span<Player* const> players, util::Rng& chance_rng,
                     const PlayOptions& options) {
  const int max_moves = options.max_moves;
  const int seats = game.info().num_players;
  if (static_cast<int>(players.size()) != seats) {
    throw std::invalid_argument("play_game: " + game.info().name + " needs " + std::to_string(seats) + " players");
  }
  auto state = game.new_initial_state();
  for (Player* p : players) p->reset(*state);
  GameResult result;
  std::vector<games::Action> joint;
  while (!state->is_terminal()) {
    if (options.should_stop && options.should_stop()) {
      result.interrupted = true;
      break;
    }
    if (max_moves > 0 && state->move_number() >= max_moves) {
      result.cut_short = true;
      break;
    }
    const auto before = state->clone();
    if (state->is_simultaneous_node()) {
      joint.clear();
      for (int seat = 0; seat < seats && result.forfeit_seat < 0; ++seat) {
        if (auto action = ask(*players[seat], *state, seat, result)) joint.push_back(*action);
      }
      if (result.forfeit_seat >= 0) break;
      for (int seat = 0; seat < seats; ++seat) {
        result.moves.push_back(state->action_to_string(seat, joint[static_cast<std::size_t>(seat)]));
      }
      state->apply_joint_action(joint);
      for (games::Action a : joint) {
        for (Player* p : players) p->observe_action(*before, a);
      }
      continue;
    }
    const games::Player mover = state->current_player();
    const bool from_opening = result.opening_plies < static_cast<int>(options.opening.size());
    const std::optional<games::Action> action =
        from_opening                        ? options.opening[static_cast<std::size_t>(result.opening_plies++)]
        : mover == games::kChancePlayer     ? mcts::sample_chance_outcome(*state, chance_rng)
                                            : ask(*players[mover], *state, mover, result);
    if (!action) break;
    result.moves.push_back(state->action_to_string(mover, *action));
    state->apply_checked(*action);
    for (Player* p : players) p->observe_action(*before, *action);
  }
  result.final_state = state->serialize();
  if (result.forfeit_seat >= 0) {
    result.returns = forfeit_returns(game, *state, result.forfeit_seat);
    return result;
  }
  result.returns = result.cut_short ? std::vector<double>(static_cast<std::size_t>(seats), 0.0) : state->returns();
  if (result.cut_short && seats == 1) result.returns = state->returns();  // a score so far is still a score
  return result;
}

ScoreSummary summarize_scores(const std::vector<GameResult>& games) {
  ScoreSummary s;
  if (games.empty()) return s;
  double sum = 0, sum_sq = 0;
  s.min = s.max = games.front().returns.at(0);
  for (const auto& g : games) {
    const double v = g.returns.at(0);
    sum += v;
    sum_sq += v * v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  const double n = static_cast<double>(games.size());
  s.mean = sum / n;
  const double variance = n > 1 ? std::max(0.0, (sum_sq - n * s.mean * s.mean) / (n - 1)) : 0.0;
  s.stderr_mean = std::sqrt(variance / n);
  return s;
}

MatchResult play_match(const games::Game& game, const MatchOptions& options,
                       const std::function<void(const GameResult&)>& on_game) {
  const int seats = game.info().num_players;
  if (seats > 2) {
    throw util::UsageError("a match is for one- or two-player games; " + game.info().name + " has " +
                           std::to_string(seats) + " players");
  }
  const bool solo = seats == 1;
  if (!solo && options.p2.empty()) {
    throw util::UsageError(game.info().name + " is a two-player game: give the second player with --p2");
  }
  if (options.games < 1) throw util::UsageError("a match needs at least one game");
  // Fail on a bad spec before any thread starts.
  for (const auto* spec : {&options.p1, &options.p2}) {
    if (spec->empty()) continue;
    if (make_player(*spec, game, 0)->is_human()) {
      throw util::UsageError("a match is between programs; '" + *spec + "' is a person: play with `polyzero play` "
                             "(or `polyzero serve` in a browser)");
    }
  }

  MatchResult match;
  match.game = game.spec().to_string();
  match.p1 = options.p1;
  match.p2 = options.p2;
  match.games.resize(static_cast<std::size_t>(options.games));
  if (solo && !options.p2.empty()) match.p2_games.resize(static_cast<std::size_t>(options.games));
  std::atomic<int> next{0};
  std::mutex mutex;
  std::exception_ptr error;
  std::vector<char> finished(static_cast<std::size_t>(options.games), 0);
  const auto stopped = [&] { return options.stop && options.stop->load(); };
  PlayOptions play;
  play.max_moves = options.max_moves;
  if (options.stop) play.should_stop = stopped;
  auto worker = [&] {
    for (;;) {
      const int index = next.fetch_add(1);
      if (index >= options.games || stopped()) return;
      try {
        const auto i = static_cast<std::uint64_t>(index);
        GameResult result, p2_result;
        if (solo) {
          auto p1 = make_player(options.p1, game, derive_seed(options.seed, i, 1));
          Player* seat[1] = {p1.get()};
          util::Rng chance(derive_seed(options.seed, i, 3));
          result = play_game(game, seat, chance, play);
          p2_result.returns = result.returns;  // no p2: a draw with itself
          if (!options.p2.empty()) {
            auto p2 = make_player(options.p2, game, derive_seed(options.seed, i, 2));
            seat[0] = p2.get();
            util::Rng same_chance(derive_seed(options.seed, i, 3));
            p2_result = play_game(game, seat, same_chance, play);
            p2_result.index = index;
          }
          const double mine = result.returns[0], theirs = p2_result.returns[0];
          result.p1_outcome = mine > theirs ? Outcome::kWin : mine < theirs ? Outcome::kLoss : Outcome::kDraw;
        } else {
          result.p1_seat = index % 2;
          auto p1 = make_player(options.p1, game, derive_seed(options.seed, i, 1));
          auto p2 = make_player(options.p2, game, derive_seed(options.seed, i, 2));
          util::Rng chance(derive_seed(options.seed, i, 3));
          Player* seat[2] = {p1.get(), p2.get()};
          if (result.p1_seat == 1) std::swap(seat[0], seat[1]);
          const int p1_seat = result.p1_seat;
          result = play_game(game, seat, chance, play);
          result.p1_seat = p1_seat;
          const double mine = result.returns[static_cast<std::size_t>(p1_seat)];
          const double theirs = result.returns[static_cast<std::size_t>(1 - p1_seat)];
          result.p1_outcome = mine > theirs ? Outcome::kWin : mine < theirs ? Outcome::kLoss : Outcome::kDraw;
        }
        result.index = index;
        if (result.interrupted || p2_result.interrupted) return;
        std::lock_guard lock(mutex);
        finished[static_cast<std::size_t>(index)] = 1;
        match.games[static_cast<std::size_t>(index)] = result;
        if (!match.p2_games.empty()) match.p2_games[static_cast<std::size_t>(index)] = p2_result;
        if (on_game) on_game(result);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        next.store(options.games);
        return;
      }
    }
  };
  const int threads = std::max(1, std::min(options.threads, options.games));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
  if (std::find(finished.begin(), finished.end(), 0) != finished.end()) {
    // Stopped: only the finished games are results.
    match.interrupted = true;
    const auto keep_finished = [&](std::vector<GameResult>& games) {
      std::vector<GameResult> kept;
      for (std::size_t i = 0; i < games.size(); ++i)
        if (finished[i]) kept.push_back(games[i]);
      games = std::move(kept);
    };
    keep_finished(match.games);
    if (!match.p2_games.empty()) keep_finished(match.p2_games);
  }
  for (const auto& g : match.games) {
    match.wins += g.p1_outcome == Outcome::kWin;
    match.draws += g.p1_outcome == Outcome::kDraw;
    match.losses += g.p1_outcome == Outcome::kLoss;
  }
  return match;
}

}  // namespace pz::arena
