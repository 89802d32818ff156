// Observations as numpy arrays (float32, C-contiguous): the network's view of positions.
#pragma once

#include <pybind11/numpy.h>

#include <span>

#include "games/game.h"

namespace pz::python {

// The seat whose view a network is shown of `state`: the player to move, or seat 0 at
// chance, simultaneous and terminal nodes.
games::Player viewer(const games::State& state);

// `state`'s observation for `player`, shaped C×H×W.
pybind11::array_t<float> observation_array(const games::State& state, games::Player player);

// The observations of `states`, each for its viewer(), shaped N×C×H×W.
pybind11::array_t<float> observation_batch(const games::Game& game, std::span<const games::State* const> states);

}  // namespace pz::python
