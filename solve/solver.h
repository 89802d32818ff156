// Exact solvers: the game-theoretic value of a position and of each of its moves, for the
// games small enough (or structured enough) to be solved on one machine.
//
// A solver answers for the player to move: +1 a win with perfect play from both sides, 0 a
// draw, −1 a loss. Where it can, it also gives the distance: the plies until the game ends
// under perfect play (the winner hurrying, the loser delaying). A solver that runs out of its
// budget says so (`complete` false) rather than guess.
//
// make_solver(game) picks the best solver for a game: a bitboard solver for Connect Four
// (connect4_solver.h), 8×8 Othello (othello_solver.h) and Hex up to 8×8 (hex_solver.h), or
// the generic alpha-beta solver over the Game API for any other two-player, zero-sum,
// deterministic game with perfect information (minimax_solver.h: tic-tac-toe, endgames of
// larger Hex and other Othello boards). Other games have none.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "games/game.h"

namespace pz::solve {

struct SolveOptions {
  double seconds = 60;      // wall-clock limit for one solve() (≤ 0: none)
  std::uint64_t nodes = 0;  // node limit (0: none)
  bool each_move = false;   // value every legal move too
  // Distances too (a strong solution); without, only win/draw/loss (a weak one: faster).
  bool distances = true;
  // Set from another thread (Ctrl-C) to end the solve as if its budget were spent.
  const std::atomic<bool>* stop = nullptr;
};

struct MoveValue {
  games::Action action = games::kInvalidAction;
  int value = 0;                 // for the player making the move: +1, 0, −1
  std::optional<int> plies;      // to the end of the game, this move included
};

struct Solution {
  bool complete = false;     // false: the budget ran out, nothing below is known
  int value = 0;             // for the player to move
  std::optional<int> plies;  // to the end of the game under perfect play
  std::vector<MoveValue> moves;  // every legal move (when asked for)
  std::uint64_t nodes = 0;
  double seconds = 0;
};

class Solver {
 public:
  virtual ~Solver() = default;
  virtual std::string name() const = 0;
  // `state` must be a decision node (not terminal). Throws std::invalid_argument for a state
  // this solver cannot take.
  virtual Solution solve(const games::State& state, const SolveOptions& options) = 0;
};

// The solver for `game`, or nullptr when there is none (the reason in `why`).
std::unique_ptr<Solver> make_solver(const games::Game& game, std::string* why = nullptr);

// "win", "draw", "loss".
const char* value_name(int value);

}  // namespace pz::solve
