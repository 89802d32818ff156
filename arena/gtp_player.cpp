#include "arena/gtp_player.h"

#include "arena/gtp.h"
#include "games/go.h"
#include "games/hex.h"
#include "util/error.h"
#include "util/spec.h"

namespace pz::arena {
namespace {

const char* colour_letter(games::Player seat) { return seat == 0 ? "b" : "w"; }

}  // namespace

GtpPlayer::GtpPlayer(std::string name, const games::Game& game, GtpPlayerConfig config)
    : name_(std::move(name)), config_(std::move(config)) {
  require_gtp_game(game, "player 'gtp'");
  if (util::trim(config_.command).empty()) {
    throw util::UsageError("player 'gtp': give the engine's command line, e.g. gtp:cmd=/usr/games/gnugo --mode gtp");
  }
  if (const auto* go = dynamic_cast<const games::GoGame*>(&game)) {
    board_size_ = go->size();
    komi_ = go->komi();
  } else {
    board_size_ = dynamic_cast<const games::HexGame&>(game).size();
  }
}

void GtpPlayer::record(const EngineFailure& failure) {
  failure_ = failure;
  engine_.reset();
  own_move_.reset();
}

void GtpPlayer::fail(const std::string& what) {
  throw EngineFailure("gtp engine '" + config_.command + "' " + what);
}

void GtpPlayer::synchronise(const games::State& state) {
  if (!engine_) engine_ = std::make_unique<GtpClient>(config_.command, config_.timeout_seconds, config_.stderr_log);
  engine_->send("boardsize " + std::to_string(board_size_));
  engine_->send("clear_board");
  if (komi_) engine_->send("komi " + util::format_double(*komi_));
  const auto moves = gtp_moves(state);
  for (std::size_t i = 0; i < moves.size(); ++i) {
    engine_->send(std::string("play ") + colour_letter(static_cast<games::Player>(i % 2)) + " " + moves[i]);
  }
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

void GtpPlayer::observe_action(const games::State& before, games::Action action) {
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
    engine_->send(std::string("play ") + colour_letter(mover) + " " + before.action_to_string(mover, action));
    ++engine_moves_;
  } catch (const EngineFailure& failure) {
    record(failure);  // thrown at the engine's next choose_action
  }
}

void GtpPlayer::reset(const games::State&) {
  engine_moves_ = -1;
  own_move_.reset();
}

}  // namespace pz::arena
