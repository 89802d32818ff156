// Searching games with hidden information: perfect-information Monte Carlo (PIMC).
//
// A search may never look at what its player cannot see. For a game whose
// info().perfect_information is false, the budget is split over `worlds` states drawn with
// State::resample(seat): each agrees with everything the seat has observed and fills the
// hidden part (the secret code, the mines, the opponent's hand) at random, consistently. Each
// world is searched as a perfect-information game and the root statistics are summed by
// action. The choice is thus the move that does best across the worlds the player cannot
// tell apart: in Minesweeper the cell that is safe in most of them, in Mastermind a guess
// consistent with the feedback so far.
//
// Proofs do not carry over: a line solved in one world is not solved in the game, so a
// merged report never claims a proven result.
#pragma once

#include <span>
#include <vector>

#include "games/game.h"
#include "mcts/evaluator.h"
#include "mcts/report.h"
#include "mcts/search.h"
#include "util/rng.h"

namespace pz::mcts {

// Whether `state` must be resampled before it is searched for `seat`.
bool needs_worlds(const games::State& state);

// The state to search for `seat`: a resampled world for hidden-information games, else a
// copy of `state`.
std::unique_ptr<games::State> world_for(const games::State& state, games::Player seat, util::Rng& rng);

// Sums the per-world reports of one position: visits and simulations add up, Q and the
// spread are visit-weighted means, priors are averaged, the principal variation is the one
// of the world that visited the child most, and nothing is proven.
SearchReport merge_world_reports(std::span<const SearchReport> reports);

// Searches `state` for `seat` with `search`'s configured budget split over `worlds` worlds
// (at least one simulation each), each on a fresh tree. For perfect-information games
// this is one ordinary search and keeps the tree. The search's config is restored after.
SearchReport search_worlds(Search& search, Evaluator& evaluator, const games::State& state, games::Player seat,
                           int worlds, util::Rng& rng);

}  // namespace pz::mcts
