// What a search found, per root child: the play server's "thinking" view, `--verbose`
// output, the source of training targets and of the final move choice (move_choice.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "games/game.h"

namespace pz::mcts {

struct ChildReport {
  games::Action action = games::kInvalidAction;
  std::int32_t visits = 0;
  double q = 0;             // mean value for the player choosing, in return units (0 if unvisited)
  double q_normalized = 0;  // q mapped to [0, 1] by the search's value bounds
  double stddev = 0;        // of the backed-up values, normalised units
  float prior = 0;          // after root noise, if any
  bool proven = false;
  double proven_value = 0;  // exact value for the player choosing, when proven
  std::vector<games::Action> pv;  // this child's action, then the most visited line below it
};

struct SearchReport {
  games::Player player = 0;           // seat choosing among `children` (kChancePlayer at a chance root)
  std::vector<ChildReport> children;  // in legal-action order
  std::int64_t root_visits = 0;       // reused visits included
  std::int64_t simulations = 0;       // playouts completed by this search
  std::int64_t collisions = 0;        // descents abandoned on a leaf another descent was expanding
  std::int64_t bursts = 0;            // bursts run by threads sharing the tree (SearchConfig::burst_simulations)
  double seconds = 0;
  double root_value = 0;              // for `player`, return units
  bool root_proven = false;
  double root_proven_value = 0;       // for `player`
  double value_low = -1, value_high = 1;  // normalisation bounds used by selection
  bool win_loss = false;  // two-player zero-sum: proven values at the bounds are wins and losses
  std::size_t tree_nodes = 0;

  // Null when there are no children.
  const ChildReport* most_visited() const;
  // A table (move, visits, Q, prior, LCB-ish spread, PV) with moves in the game's notation.
  std::string to_string(const games::State& root) const;
};

}  // namespace pz::mcts
