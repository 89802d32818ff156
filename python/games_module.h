// What the other parts of the module take from the games part.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "games/game.h"

namespace pz::python {

// Games are held by Python as shared_ptr<Game> (pybind11 holders are not const); every Game
// method the module calls is const.
using GameHandle = std::shared_ptr<games::Game>;
GameHandle game_handle(const games::Game& game);

// A `game` argument: a polyzero.Game, or a spec string such as "hex:size=9". Throws
// ValueError for anything else and for a bad spec.
GameHandle game_argument(pybind11::handle game);

}  // namespace pz::python
