// One game in a text terminal: the board whenever someone is to move (with the last move
// under it), human players typing moves in the game's notation (plus `help`, `moves`, `undo`,
// `board`, `quit`; told at the start which player they are), AI players answering through
// Player::choose_action (a searching AI's win probability, most visited moves and principal
// variation shown after its move; an AI that forfeits ends the game, with the reason shown), chance outcomes drawn from a seeded generator (and shown only in
// perfect-information games: a secret code or a mine layout is not).
//
// Streams are parameters so tests drive a session with scripted input.
#pragma once

#include <iosfwd>
#include <memory>
#include <vector>

#include "arena/player.h"
#include "games/game.h"
#include "util/rng.h"

namespace pz::arena {

class TerminalGame {
 public:
  TerminalGame(std::shared_ptr<const games::Game> game, std::vector<std::unique_ptr<Player>> players,
               std::uint64_t seed, std::istream& in, std::ostream& out);

  enum class Outcome { kFinished, kQuit, kInputEnded };
  Outcome run();

  const games::State& state() const { return *history_.back(); }

 private:
  // Asks the human at `seat` until a legal move (returned) or a session command that ends
  // the turn (undo → nullopt and the history rewound; quit/EOF → nullopt and `outcome_`).
  std::optional<games::Action> ask_human(games::Player seat);
  // The AI at `seat`'s move, or nullopt when it forfeits the game (announced: the game is over).
  std::optional<games::Action> ask_ai(games::Player seat);
  bool undo(games::Player seat);
  void apply(games::Action action);
  void apply_joint(const std::vector<games::Action>& actions);
  void print_board();
  void print_result();
  std::string seat_name(games::Player seat) const;
  std::string legal_moves_text(games::Player seat) const;
  // The legal moves, or in games with many of them, how to list them.
  std::string legal_moves_hint(games::Player seat) const;
  void print_sides();
  // A searching AI's view of the move it just chose in `before`.
  void print_thinking(games::Player seat, const games::State& before);

  static constexpr std::size_t kMaxMovesListed = 30;  // more: a typo answers with a hint

  std::shared_ptr<const games::Game> game_;
  std::vector<std::unique_ptr<Player>> players_;
  util::Rng rng_;
  std::istream& in_;
  std::ostream& out_;
  std::vector<std::unique_ptr<games::State>> history_;  // every state so far, for undo
  std::optional<Outcome> outcome_;
  std::string last_move_;  // "d4 by player 2 (mcts)"; empty at the start, after undo and joint moves
};

}  // namespace pz::arena
