// The perfect player: `solver[:seconds=S]` plays a move that keeps the game-theoretic value
// (solver.h), the quickest win or the longest defence where the solver knows distances, the
// first such move otherwise. It is the reference of `polyzero accuracy` (100% by
// construction) and a perfect opponent in matches. A position the solver cannot finish in S
// seconds is an error naming the position, never a guess.
#pragma once

namespace pz::solve {

// Adds the `solver` kind to the arena's players; call once at start-up.
void register_solver_player();

}  // namespace pz::solve
