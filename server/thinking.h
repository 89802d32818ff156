// A search's view of a position as JSON, for people and scripts: the win probability of the
// searching seat, the most visited moves with their priors, shares and values, the
// principal variation, and what the solver proved. The play server streams it while an AI
// thinks ("thinking" events) and `polyzero analyze` answers with it.
#pragma once

#include <nlohmann/json.hpp>

#include "games/game.h"
#include "mcts/report.h"

namespace pz::server {

// `root` is the searched position; `done` says whether the search has finished. Win
// probabilities map values from the search's bounds to [0, 1] (a draw is ½ in games scored
// −1/0/+1). At most `max_moves` moves, most visited first.
nlohmann::json thinking_json(const mcts::SearchReport& report, const games::State& root, bool done,
                             int max_moves = 10);

}  // namespace pz::server
