// perft: the number of distinct action sequences of exactly `depth` plies from a state.
// A finished game has no moves (a terminal state before `depth` contributes nothing), a
// forced pass is a ply like any other, a chance outcome is a ply, and at a simultaneous
// node each joint action is one ply. The standard move-generator check from chess
// programming; tests compare it with independently derived counts.
#pragma once

#include <cstdint>

#include "games/game.h"

namespace pz::games {

std::uint64_t perft(const State& state, int depth);

}  // namespace pz::games
