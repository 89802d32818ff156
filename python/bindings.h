// The parts of the `polyzero` module, each adding its classes and functions to it
// (module.cpp calls them in this order: later parts take the classes of earlier ones).
#pragma once

#include <pybind11/pybind11.h>

namespace pz::python {

void bind_errors(pybind11::module_& m);    // errors.cpp: polyzero's exceptions as Python's
void bind_games(pybind11::module_& m);     // games_module.cpp: Game, State, load_game, registered_games
void bind_search(pybind11::module_& m);    // search_module.cpp: MCTS, SearchResult, MoveAnalysis
void bind_players(pybind11::module_& m);   // players_module.cpp: Player, player, match, MatchResult
void bind_solve(pybind11::module_& m);     // solve_module.cpp: solve, Solution, SolvedMove
void bind_polyc(pybind11::module_& m);     // polyc_module.cpp: polyc
void bind_train(pybind11::module_& m);     // train_module.cpp: train, train_config, TrainResult
void bind_model(pybind11::module_& m);     // model_module.cpp: load_model, Model
void bind_tournament(pybind11::module_& m);  // tournament_module.cpp: tournament

}  // namespace pz::python
