// What a search found, per root child: the play server's "thinking" view, `--verbose`
// output, the source of training targets and of the final move choice (move_choice.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "games/game.h"

namespace pz::mcts {

// The principal variation (ChildReport::pv) starts with the root child's own move and then
// follows, at each node, the most visited child — but only while that child has at least
// kPvMinVisits visits. A node visited once was expanded and evaluated but never searched
// below, so its "most visited" child is merely the first in board order; the line stops
// there rather than print such noise. This one rule is used by every view of a search:
// the play page's "pv" (server/thinking.cpp), `polyzero analyze`, and the terminal
// summary of `polyzero play` and `--verbose` (SearchReport::summary, to_string).
inline constexpr std::int32_t kPvMinVisits = 2;

// Whether the principal variation continues into a child visited `visits` times.
constexpr bool pv_continues_into(std::int32_t visits) { return visits >= kPvMinVisits; }

struct ChildReport {
  games::Action action = games::kInvalidAction;
  std::int32_t visits = 0;
  double q = 0;             // mean value for the player choosing, in return units (0 if unvisited)
  double q_normalized = 0;  // q mapped to [0, 1] by the search's value bounds
  double stddev = 0;        // of the backed-up values, normalised units
  float prior = 0;          // after root noise, if any
  bool proven = false;
  double proven_value = 0;  // exact value for the player choosing, when proven
  std::vector<games::Action> pv;  // this child's action, then the most visited line below it (kPvMinVisits)
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
  // Indices into `children`, most visited first (ties: higher prior first).
  std::vector<std::size_t> by_visits() const;
  // `value` (for `player`, return units) mapped from the value bounds to [0, 1]: the win
  // probability in win/loss games, where a draw is ½.
  double win_probability(double value) const;
  // The root's value for `player`: the proven one when proven.
  double value() const { return root_proven ? root_proven_value : root_value; }
  // "win", "loss" or "draw" for a proven value at or between the bounds of a win/loss game.
  std::string proven_result(double value) const;
  // A table (move, visits, Q, prior, LCB-ish spread, PV) with moves in the game's notation.
  std::string to_string(const games::State& root) const;
  // One line for people watching an AI play: its win probability (or proven result), the
  // visits, the `max_moves` most visited moves with their win probabilities, and the
  // principal variation. Empty when there are no children.
  std::string summary(const games::State& root, int max_moves = 3) const;
};

// `actions` replayed from `root`, each named in the game's notation by the seat making it;
// stops at a terminal or simultaneous node or an action that is not legal there.
std::vector<std::string> line_text(const games::State& root, const std::vector<games::Action>& actions);

}  // namespace pz::mcts
