// An external engine as a player, over GTP (`gtp:cmd=/usr/games/gnugo --mode gtp --level 1`,
// `gtp:cmd=/usr/games/gtp-rhino --level 1`): the engine is started on the first move it is
// asked for and keeps its own board in step with the game.
//
//  * Set-up: "boardsize N", "clear_board" and, in Go, "komi K" from the game's options, then
//    one "play" per move already made. This happens at the first choose_action and again
//    whenever the engine's board is out of step with the state it is asked about (after
//    reset(), an undo, or actions it was not shown). Go and Hex states carry their moves
//    (arena/gtp.h); Othello's moves are the ones this player was told of since the game's
//    start, so it is set up only on positions it saw played (else util::UsageError).
//  * Every observed action is sent as "play COLOUR VERTEX", except the engine's own move,
//    which genmove already put on its board; choose_action sends "genmove COLOUR". In
//    Othello a pass is forced, so it is not sent: the engine passes when the next "play" or
//    "genmove" names the other colour (GRhino refuses "play b pass" as a syntax error, and
//    answers "pass" to genmove when the colour has no move).
//  * A genmove answered "resign" throws Resignation. Every other way the engine lets the game
//    down throws EngineFailure from choose_action (see arena/gtp_client.h), including an
//    answer that is not a move or is an illegal one ("answered an illegal move 'a1' to
//    'genmove w': point a1 is occupied"). A failure met while mirroring a move (the
//    engine refuses "play") is held and thrown at the engine's next choose_action: players
//    never throw from observe_action. After a failure the engine is stopped and every later
//    choose_action throws the same failure. An engine that fails before it ever answered
//    (GTP "name", the first command sent) is no game lost but a command line that does not
//    run an engine: util::UsageError, so that a missing program never scores as wins.
//
// Games: Go and Hex (arena/gtp.h), and Othello on 8×8 only, the one size GTP Othello
// engines play (GRhino's gtp-rhino refuses other sizes). Othello vertices are the game's own,
// which are GRhino's: a1 the top-left corner, rows counted downwards, and "pass"; Black
// moves first from the standard start (White d4 e5, Black e4 d5) in both.
//
// Ko: GNU Go plays simple ko and cannot be asked over GTP for another rule, so in a Go game
// under positional superko (the default) a move of its that repeats an earlier position
// (legal under simple ko) would be refused as illegal. A Go engine that names itself "GNU Go" (GTP "name") in a game whose ko option is
// positional is refused with util::UsageError from the first choose_action: play it with
// --game go:ko=simple.
//
// The engine is stopped when the player is destroyed.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

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
  // Throws util::UsageError for a game other than Go, Hex or 8×8 Othello, or an empty command.
  GtpPlayer(std::string name, const games::Game& game, GtpPlayerConfig config);

  std::string name() const override { return name_; }
  games::Action choose_action(const games::State& state, games::Player seat) override;
  void observe_action(const games::State& before, games::Action action) override;
  void reset(const games::State& state) override;

 private:
  // Starts the engine if needed and puts `state`'s position on its board.
  void synchronise(const games::State& state);
  // Sends "play" for `mover`'s move `vertex` (but no Othello pass).
  void play(games::Player mover, const std::string& vertex);
  // Starts the engine; refuses GNU Go in a Go game under positional superko.
  void start_engine();
  // Adds `action` to record_ when record_ leads to `before`; forgets record_ otherwise.
  void remember(const games::State& before, games::Action action);
  // The moves from the initial state to `state`, as GTP vertices; throws util::UsageError
  // when they are not known.
  std::vector<std::string> moves_to(const games::State& state) const;
  // Records `failure` as final and stops the engine.
  void record(const EngineFailure& failure);
  [[noreturn]] void fail(const std::string& what);

  std::string name_;
  GtpPlayerConfig config_;
  int board_size_;
  std::optional<double> komi_;  // Go only
  bool positional_ko_ = false;  // a Go game under positional superko
  // Othello: the state does not carry its moves (record_ does), and passes are not sent.
  bool othello_ = false;
  // Othello: the actions from the initial state to the last state this player was told of,
  // when it was told of all of them.
  std::optional<std::vector<games::Action>> record_ = std::vector<games::Action>{};
  std::unique_ptr<GtpClient> engine_;
  std::optional<EngineFailure> failure_;
  bool engine_answered_ = false;           // the engine has answered a command once
  int engine_moves_ = -1;                  // moves on the engine's board when in step with the game, else -1
  std::optional<games::Action> own_move_;  // the engine's last genmove, already on its board
};

}  // namespace pz::arena
