// Othello endgames on 8×8 solved on bitboards (games/othello_bitboard.h): negamax with
// alpha-beta on the final disc difference searched with the window (−1, 1), which settles
// win, draw or loss with the fewest nodes; a transposition table of bounds keyed by the
// two colours' discs; moves ordered fastest-first (the fewest replies for the opponent, the
// classic endgame ordering of Othello programs) while more than a few squares are empty,
// corners first among equals. Passes are handled inside the search. About twenty empty
// squares solve in seconds; the budget bounds the rest.
#pragma once

#include <cstdint>
#include <vector>

#include "solve/search_budget.h"
#include "solve/solver.h"

namespace pz::solve {

class OthelloSolver final : public Solver {
 public:
  // The table (24 bytes an entry) is allocated by the first solve().
  explicit OthelloSolver(std::size_t table_entries = std::size_t{1} << 22);
  std::string name() const override { return "othello 8x8 bitboard endgame"; }
  Solution solve(const games::State& state, const SolveOptions& options) override;

 private:
  // The value (−1, 0, +1 at the end) of `own` to move against `opp`, clamped to the window.
  int negamax(std::uint64_t own, std::uint64_t opp, int alpha, int beta, bool passed);
  struct Entry {
    std::uint64_t own = 0, opp = 0;
    std::int8_t lower = -2, upper = 2;
  };
  std::size_t table_entries_;
  std::vector<Entry> table_;
  SearchBudget budget_;
};

}  // namespace pz::solve
