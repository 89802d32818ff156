// polyzero as a GTP v2 engine (Go Text Protocol, draft 2 of the version 2 specification):
// commands come line by line from `in`, responses go to `out`, for GUIs such as Sabaki or
// GoGui and for tools such as gogui-twogtp. Go and Hex (arena/gtp.h); the moves it
// generates come from an arena::Player made from a spec, which is told of every move and of
// every reset so that players with trees follow the game.
//
// Framing, as the specification has it: control characters other than tab are dropped,
// tabs read as spaces, '#' starts a comment, blank lines are skipped. A command is
// `[id] name [arguments]`; its response is "=[id] text" or "?[id] message", ended by an
// empty line and flushed. A failing or unknown command gets "?" and the engine keeps
// running; `quit` (answered) and the end of input end run().
//
// Commands: protocol_version, name, version, known_command, list_commands, quit,
// boardsize, clear_board, komi, play, genmove, undo, showboard, final_score,
// time_settings, time_left. Where this engine chooses:
//  * boardsize N (or "boardsize N N", as Hex controllers send) rebuilds the game with that
//    size and an empty board; a size the game refuses (Go 5..19, Hex 2..19) is
//    "unacceptable size".
//  * komi K: Go rebuilds the game with that komi and keeps the moves played; Hex accepts
//    and ignores it (Hex has no komi).
//  * play / genmove: colours strictly alternate. A colour that is not the side to move is
//    refused ("illegal move: it is white's turn"), since a State cannot play two moves of
//    one colour in a row; so is any move once the game is over (in Go, after two passes).
//    genmove answers the vertex in the game's notation, or "resign" when the player
//    resigns (nothing is played then).
//  * undo takes back one move ("cannot undo" at the start).
//  * final_score: Go, Black's area minus White's minus komi of the board as it stands
//    ("B+3.5", "W+0.5", "0"); Hex, the winner ("B+" or "W+") once the game is over.
//  * time_settings and time_left are checked and recorded (time_settings(), time_left());
//    the player's own budget (sims=, seconds=) decides how long it thinks.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arena/player.h"
#include "games/game.h"

namespace pz::arena {

struct GtpEngineConfig {
  std::string player = "mcts:sims=800";  // the spec of the player that generates moves
  std::uint64_t seed = 1;                // its seed (the same after every rebuild of the game)
  std::string name = "polyzero";         // the answers to `name` and `version`
  std::string version = "0.1.0";
  // When set, turns `player` into the spec for each game the engine plays (boardsize and
  // komi make a new one): a network trained for one board stays off the others.
  std::function<std::string(const std::string& player, const games::Game& game)> resolve_player;
};

class GtpEngine {
 public:
  // Throws util::UsageError for a game other than Go or Hex, and for a player spec that is
  // invalid or names a human (the person at a GUI plays through `play`).
  GtpEngine(std::shared_ptr<const games::Game> game, GtpEngineConfig config, std::istream& in, std::ostream& out);
  ~GtpEngine();

  // Answers commands until `quit` or the end of the input.
  void run();

  const games::Game& game() const { return *game_; }
  const games::State& state() const { return *history_.back(); }

  struct TimeSettings {
    double main_seconds = 0, byo_yomi_seconds = 0;
    int byo_yomi_stones = 0;
  };
  struct TimeLeft {
    double seconds = 0;
    int stones = 0;  // 0: main time
  };
  // The latest time_settings and time_left received (nullopt: none yet).
  const std::optional<TimeSettings>& time_settings() const { return time_settings_; }
  const std::optional<TimeLeft>& time_left(games::Player seat) const {
    return time_left_.at(static_cast<std::size_t>(seat));
  }

 private:
  using Arguments = std::vector<std::string>;
  using Handler = std::string (GtpEngine::*)(const Arguments&);
  struct Command {
    const char* name;
    Handler handler;
  };
  static const std::vector<Command>& commands();

  // One command line; false when it was `quit`.
  bool execute(const std::string& line);
  void respond(bool success, const std::string& id, const std::string& text);

  // Makes `game` the game, with a fresh player and the given moves replayed on it.
  void adopt(std::shared_ptr<const games::Game> game, const std::vector<std::string>& moves);
  std::shared_ptr<const games::Game> with_option(const std::string& key, const std::string& value) const;
  // The seat `colour` names when it is the side to move; otherwise fails with `refusal`
  // ("illegal move: " for play) and the reason.
  games::Player colour_to_move(const std::string& colour, const std::string& refusal) const;
  void push(games::Action action);

  std::string protocol_version(const Arguments&);
  std::string name(const Arguments&);
  std::string version(const Arguments&);
  std::string known_command(const Arguments&);
  std::string list_commands(const Arguments&);
  std::string quit(const Arguments&);
  std::string boardsize(const Arguments&);
  std::string clear_board(const Arguments&);
  std::string komi(const Arguments&);
  std::string play(const Arguments&);
  std::string genmove(const Arguments&);
  std::string undo(const Arguments&);
  std::string showboard(const Arguments&);
  std::string final_score(const Arguments&);
  std::string time_settings_command(const Arguments&);
  std::string time_left_command(const Arguments&);

  std::shared_ptr<const games::Game> game_;  // declared before player_: the player may refer to it
  GtpEngineConfig config_;
  std::istream& in_;
  std::ostream& out_;
  std::unique_ptr<Player> player_;
  std::vector<std::unique_ptr<games::State>> history_;  // every position since the start, for undo
  std::optional<TimeSettings> time_settings_;
  std::array<std::optional<TimeLeft>, 2> time_left_;
};

}  // namespace pz::arena
