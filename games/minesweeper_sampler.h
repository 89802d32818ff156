// Minesweeper's hidden information: mine placements drawn uniformly among those consistent
// with what has been revealed (MinesweeperState::resample).
//
// Unrevealed cells next to a revealed number form the frontier; its cells are split into
// components linked by shared numbers. For each component a search over its cells,
// memoised on the running sums of the numbers it has partly filled (so a long frontier
// costs about its length times the number of distinct partial sums), counts the consistent
// assignments by number of mines. The components' mine counts are drawn from their exact
// joint weights (the product of the components' counts times C(interior cells, mines left
// for the interior)); then each component's assignment is drawn uniformly among those with
// its count, from the memo table, and the interior mines uniformly: an exact uniform draw
// over all consistent placements.
//
// When the tables would hold more than `budget` numbers (dense boards with wide,
// two-dimensional frontiers), it falls back to a Markov chain: block Gibbs sampling of the
// frontier, started from a consistent assignment found by randomised backtracking (or the
// true one if that fails). Each of 5 × (frontier cells) steps takes the frontier cells
// within two cells of a random frontier cell (at most 12) and redraws them from their exact
// conditional distribution given the rest (all their consistent assignments, weighted by
// C(interior cells, mines left for the interior)); the interior mines are placed uniformly
// at the end. Each step keeps the uniform distribution invariant and every state is
// consistent; the result is approximately uniform (exact in the limit when the blocks
// connect all consistent placements).
#pragma once

#include <cstdint>
#include <vector>

#include "util/rng.h"

namespace pz::games {

// The constraint system of a position: frontier variables and the revealed numbers on them.
struct MineFrontier {
  struct Constraint {
    int target = 0, count = 0;  // the number, and how many unrevealed neighbours it has
    int vars[8];                // those neighbours, as variables
  };
  int rows = 0, columns = 0, total_mines = 0;
  std::vector<int> cells;                         // variable -> cell
  std::vector<int> var_of;                        // cell -> variable, -1 off the frontier
  std::vector<Constraint> constraints;
  std::vector<std::vector<int>> var_constraints;  // variable -> constraints touching it
  std::vector<int> interior;                      // unrevealed cells next to no revealed number
};

struct MineSample {
  std::vector<int> mines;  // the mined cells
  bool exact = true;       // drawn by exact counting (false: by the Markov chain)
};

// `true_mines[cell]`: the real placement, where the Markov chain starts when backtracking
// finds no consistent start within its budget.
MineSample sample_mines(const MineFrontier& frontier, const std::vector<char>& true_mines, util::Rng& rng,
                        std::int64_t budget);

}  // namespace pz::games
