// From a finished search to a move and a training target.
//
// choose_move: proven results first (a proven win is always played, a proven loss never
// when anything else is left), then the temperature schedule (sample ∝ N^(1/T)), or at
// temperature 0 the most visited child or the child with the best lower confidence bound
// on its value (Leela Zero's LCB: Q − z·σ/√N among children with enough visits, which
// avoids a move whose visits came from one lucky line).
//
// policy_target: the proven wins, shared equally, if there are any; else the root visit
// distribution; with pruning, KataGo's policy target pruning
// subtracts the visits that forced playouts gave to each non-best child (as many as keep
// its PUCT score below the best child's) and drops children left with one visit, so forced
// exploration does not leak into what the network learns.
#pragma once

#include <utility>
#include <vector>

#include "games/game.h"
#include "mcts/report.h"
#include "mcts/search_config.h"
#include "util/rng.h"

namespace pz::mcts {

games::Action choose_move(const SearchReport& report, const MoveSelection& selection, int move_number, util::Rng& rng);

// (action, probability) over the root children, summing to 1.
std::vector<std::pair<games::Action, float>> policy_target(const SearchReport& report, const SearchConfig& config,
                                                           bool prune_forced_playouts);

}  // namespace pz::mcts
