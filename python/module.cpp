// `import polyzero`: the module's entry point. Each part binds its classes (bindings.h);
// the player kinds and network backends are registered as the polyzero program does at
// start-up.
#include <pybind11/pybind11.h>

#include "python/bindings.h"
#include "python/torch_support.h"

namespace py = pybind11;

PYBIND11_MODULE(polyzero, m) {
  m.doc() = "polyzero from Python: games, search (MCTS with Python evaluators), players, matches, exact solvers, polyc and training, checkpoints on numpy batches";
  pz::python::register_players_and_networks();
  m.attr("has_libtorch") = pz::python::has_libtorch();
  pz::python::bind_errors(m);
  pz::python::bind_games(m);
  pz::python::bind_search(m);
  pz::python::bind_players(m);
  pz::python::bind_solve(m);
  pz::python::bind_polyc(m);
  pz::python::bind_train(m);
  pz::python::bind_model(m);
  pz::python::bind_tournament(m);
}
