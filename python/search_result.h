// A search's findings as Python sees them (MCTS.search, Player.last_search): the root's
// moves, most visited first, with their visits, priors, values and principal variations,
// in the shape of `polyzero analyze`'s answers (server/thinking.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "games/game.h"
#include "mcts/report.h"

namespace pz::python {

struct MoveAnalysis {
  games::Action action = games::kInvalidAction;
  std::string move;               // in the game's notation
  int visits = 0;
  double share = 0;               // of the root's children's visits
  double prior = 0;
  double value = 0;               // mean value for the player choosing, return units
  std::optional<double> win_probability;  // value mapped to [0, 1]; None when unvisited
  std::optional<std::string> proven_result;  // "win", "loss", "draw" (or a score) when proven
  std::vector<games::Action> pv;  // this move, then the most visited line below it
  std::vector<std::string> pv_text;
};

struct SearchResult {
  games::Player player = 0;       // the seat choosing
  games::Action action = games::kInvalidAction;  // the most visited move (INVALID_ACTION: none)
  std::string move;
  double value = 0;               // the root's value for `player` (the proven one when proven)
  double win_probability = 0.5;
  std::optional<std::string> proven_result;
  long long simulations = 0, visits = 0;
  double seconds = 0;
  long long tree_nodes = 0;
  std::vector<MoveAnalysis> moves;  // most visited first
  std::vector<std::string> pv;      // the most visited move's line, in notation
  // Visit shares over the action space (num_distinct_actions); all on `action` when the
  // root was proven before its children were visited.
  std::vector<float> policy;
};

SearchResult search_result(const mcts::SearchReport& report, const games::State& root);

}  // namespace pz::python
