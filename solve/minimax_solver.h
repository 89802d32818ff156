// A generic exact solver over the Game API, for any two-player, zero-sum, deterministic game
// with perfect information (tic-tac-toe, small Hex boards, Othello endgames, …): negamax
// with alpha-beta on win/draw/loss (Knuth & Moore, "An analysis of alpha-beta pruning",
// 1975), a transposition table of exact values and bounds keyed by the state's hash, and
// moves that end the game tried first. It clones a state per node, so it suits games whose
// solved trees have up to some ten million nodes; the budget bounds the rest.
//
// The distance to the end is not computed (win/draw/loss only), so `plies` stays empty.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "solve/search_budget.h"
#include "solve/solver.h"

namespace pz::solve {

class MinimaxSolver final : public Solver {
 public:
  // Throws std::invalid_argument when `game` is not two-player, zero-sum, deterministic and
  // of perfect information.
  explicit MinimaxSolver(const games::Game& game);
  std::string name() const override { return "alpha-beta over the Game API"; }
  Solution solve(const games::State& state, const SolveOptions& options) override;

 private:
  enum class Bound : std::uint8_t { kExact, kLower, kUpper };
  struct Entry {
    std::int8_t value;
    Bound bound;
  };
  int negamax(const games::State& state, int alpha, int beta);
  // The value of `child` for `mover`, who made the move that led to it.
  int child_value(const games::State& child, games::Player mover, int alpha, int beta);

  std::unordered_map<std::uint64_t, Entry> table_;
  SearchBudget budget_;
};

}  // namespace pz::solve
