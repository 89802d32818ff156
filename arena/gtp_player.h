// An external engine as a player, over GTP (`gtp:cmd=/usr/games/gnugo --mode gtp --level 1`):
// the engine is started on the first move it is asked for and keeps its own board in step
// with the game.
//
//  * Set-up: "boardsize N", "clear_board" and, in Go, "komi K" from the game's options, then
//    one "play" per move already made. This happens at the first choose_action and again
//    whenever the engine's board is out of step with the state it is asked about (after
//    reset(), an undo, or actions it was not shown).
//  * Every observed action is sent as "play COLOUR VERTEX", except the engine's own move,
//    which genmove already put on its board; choose_action sends "genmove COLOUR".
//  * A genmove answered "resign" throws Resignation. Every other way the engine lets the game
//    down throws EngineFailure from choose_action (see arena/gtp_client.h), including an
//    answer that is not a move or is an illegal one ("answered an illegal move 'a1' to
//    'genmove w': point a1 is occupied"; note that GNU Go plays simple ko, stricter
//    positional superko may refuse its move). A failure met while mirroring a move (the
//    engine refuses "play") is held and thrown at the engine's next choose_action: players
//    never throw from observe_action. After a failure the engine is stopped and every later
//    choose_action throws the same failure.
//
// Go and Hex only (arena/gtp.h); the engine is stopped when the player is destroyed.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "arena/gtp_client.h"
#include "arena/player.h"

namespace pz::arena {

struct GtpPlayerConfig {
  std::string command;           // run by /bin/sh
  double timeout_seconds = 30;   // for each command's answer, genmove included
  std::string stderr_log;        // where the engine's standard error goes (empty: discarded)
};

class GtpPlayer final : public Player {
 public:
  // Throws util::UsageError for a game other than Go or Hex, or an empty command.
  GtpPlayer(std::string name, const games::Game& game, GtpPlayerConfig config);

  std::string name() const override { return name_; }
  games::Action choose_action(const games::State& state, games::Player seat) override;
  void observe_action(const games::State& before, games::Action action) override;
  void reset(const games::State& state) override;

 private:
  // Starts the engine if needed and puts `state`'s position on its board.
  void synchronise(const games::State& state);
  // Records `failure` as final and stops the engine.
  void record(const EngineFailure& failure);
  [[noreturn]] void fail(const std::string& what);

  std::string name_;
  GtpPlayerConfig config_;
  int board_size_;
  std::optional<double> komi_;  // Go only
  std::unique_ptr<GtpClient> engine_;
  std::optional<EngineFailure> failure_;
  int engine_moves_ = -1;                  // moves on the engine's board when in step with the game, else -1
  std::optional<games::Action> own_move_;  // the engine's last genmove, already on its board
};

}  // namespace pz::arena
