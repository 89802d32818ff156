#include "arena/gtp_player.h"

#include "arena/gtp.h"
#include "games/go.h"
#include "games/hex.h"
#include "games/othello.h"
#include "util/error.h"
#include "util/spec.h"

namespace pz::arena {
namespace {

const char* colour_letter(games::Player seat) { return seat == 0 ? "b" : "w"; }

// The board side of a game the player speaks GTP for; throws util::UsageError for others.
int gtp_board_size(const games::Game& game) {
  if (const auto* go = dynamic_cast<const games::GoGame*>(&game)) return go->size();
  if (const auto* hex = dynamic_cast<const games::HexGame*>(&game)) return hex->size();
  if (const auto* othello = dynamic_cast<const games::OthelloGame*>(&game)) {
    const int size = othello->size();
    if (size != 8) {
      throw util::UsageError("player 'gtp' plays othello on 8x8 only, the size GTP Othello engines (gtp-rhino) play, "
                             "not " + std::to_string(size) + "x" + std::to_string(size));
    }
    return size;
  }
  throw util::UsageError("player 'gtp' speaks GTP for go, hex and othello, not " + game.info().name);
}

}  // namespace

GtpPlayer::GtpPlayer(std::string name, const games::Game& game, GtpPlayerConfig config)
    : name_(std::move(name)), config_(std::move(config)) {
  board_size_ = gtp_board_size(game);
  if (util::trim(config_.command).empty()) {
    throw util::UsageError("player 'gtp': give the engine's command line, e.g. gtp:cmd=/usr/games/gnugo --mode gtp");
  }
  if (const auto* go = dynamic_cast<const games::GoGame*>(&game)) {
    komi_ = go->komi();
    positional_ko_ = go->ko_rule() == games::GoGame::KoRule::kPositional;
  }
  othello_ = dynamic_cast<const games::OthelloGame*>(&game) != nullptr;
}

void GtpPlayer::record(const EngineFailure& failure) {
  failure_ = failure;
  engine_.reset();
  own_move_.reset();
}

void GtpPlayer::fail(const std::string& what) {
  throw EngineFailure("gtp engine '" + config_.command + "' " + what);
}

void GtpPlayer::start_engine() {
  std::string engine_name;
  try {
    engine_ = std::make_unique<GtpClient>(config_.command, config_.timeout_seconds, config_.stderr_log);
    engine_name = engine_->send("name");
  } catch (const EngineFailure& failure) {
    engine_.reset();
    if (engine_answered_) throw;
    // Never answered: a wrong command line, not a game lost.
    throw util::UsageError("player '" + name_ + "': " + failure.what() +
                           " before answering any command; check the command line (is the program installed? "
                           "scripts/setup.sh installs gnugo and grhino)");
  }
  engine_answered_ = true;
  if (positional_ko_ && engine_name == "GNU Go") {
    engine_.reset();
    throw util::UsageError("player '" + name_ +
                           "': GNU Go plays simple ko, so under this game's positional superko its moves may be "
                           "refused; play it with --game go:ko=simple (e.g. go:size=9,ko=simple)");
  }
}

std::vector<std::string> GtpPlayer::moves_to(const games::State& state) const {
  if (!othello_) return gtp_moves(state);
  std::vector<std::string> moves;
  if (record_ && record_->size() == static_cast<std::size_t>(state.move_number())) {
    auto replay = state.game().new_initial_state();
    for (const games::Action action : *record_) {
      moves.push_back(replay->action_to_string(replay->current_player(), action));
      replay->apply_action(action);
    }
    if (replay->serialize() == state.serialize()) return moves;
  }
  throw util::UsageError("player '" + name_ + "' can show the engine only " + state.game().info().name +
                         " positions it saw played from the start");
}

void GtpPlayer::play(games::Player mover, const std::string& vertex) {
  if (othello_ && vertex == "pass") return;  // implicit: the next play or genmove names the other colour
  engine_->send(std::string("play ") + colour_letter(mover) + " " + vertex);
}

void GtpPlayer::synchronise(const games::State& state) {
  const auto moves = moves_to(state);
  if (!engine_) start_engine();
  engine_->send("boardsize " + std::to_string(board_size_));
  engine_->send("clear_board");
  if (komi_) engine_->send("komi " + util::format_double(*komi_));
  for (std::size_t i = 0; i < moves.size(); ++i) play(static_cast<games::Player>(i % 2), moves[i]);
  engine_moves_ = state.move_number();
  own_move_.reset();
}

games::Action GtpPlayer::choose_action(const games::State& state, games::Player seat) {
  if (failure_) throw *failure_;
  try {
    if (!engine_ || engine_moves_ != state.move_number()) synchronise(state);
    const std::string command = std::string("genmove ") + colour_letter(seat);
    const std::string answer = engine_->send(command);
    if (util::to_lower(answer) == "resign") throw Resignation();
    std::string error;
    const auto action = state.parse_action(answer, &error);
    if (!action) fail("answered '" + command + "' with '" + answer + "', which is not a move: " + error);
    if (!state.is_legal(*action)) {
      fail("answered an illegal move '" + answer + "' to '" + command + "': " + state.explain_illegal(*action));
    }
    ++engine_moves_;
    own_move_ = *action;
    return *action;
  } catch (const EngineFailure& failure) {
    record(failure);
    throw;
  }
}

void GtpPlayer::remember(const games::State& before, games::Action action) {
  if (!othello_) return;  // Go and Hex states carry their moves
  if (before.move_number() == 0) record_.emplace();
  if (record_ && record_->size() == static_cast<std::size_t>(before.move_number())) {
    record_->push_back(action);
  } else {
    record_.reset();
  }
}

void GtpPlayer::observe_action(const games::State& before, games::Action action) {
  remember(before, action);
  if (failure_ || !engine_) return;  // not started yet: the first choose_action sets the board up
  if (own_move_) {
    const bool already_played = *own_move_ == action && before.move_number() + 1 == engine_moves_;
    own_move_.reset();
    if (already_played) return;
  }
  if (before.move_number() != engine_moves_) {
    engine_moves_ = -1;  // out of step: the next choose_action sets the board up again
    return;
  }
  const games::Player mover = before.current_player();
  try {
    play(mover, before.action_to_string(mover, action));
    ++engine_moves_;
  } catch (const EngineFailure& failure) {
    record(failure);  // thrown at the engine's next choose_action
  }
}

void GtpPlayer::reset(const games::State& state) {
  engine_moves_ = -1;
  own_move_.reset();
  if (!othello_) return;  // Go and Hex states carry their moves
  const auto moves = static_cast<std::size_t>(state.move_number());
  if (moves == 0) {
    record_.emplace();
  } else if (record_ && moves <= record_->size()) {
    record_->resize(moves);  // an undo; moves_to checks that the record still leads to `state`
  } else {
    record_.reset();
  }
}

}  // namespace pz::arena
