// The parts of the `polyzero` module, each adding its classes and functions to it
// (module.cpp calls them in this order: later parts take the classes of earlier ones).
#pragma once

#include <pybind11/pybind11.h>

namespace pz::python {

void bind_errors(pybind11::module_& m);    // errors.cpp: polyzero's exceptions as Python's
void bind_games(pybind11::module_& m);     // games_module.cpp: Game, State, load_game, registered_games

}  // namespace pz::python
