// polyzero.solve(state): the exact value of a position, and of each move, from the game's
// solver (solve/solver.h: Connect Four and 8×8 Othello on bitboards, Hex up to 8×8,
// alpha-beta for other two-player deterministic games), run with the GIL released.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "python/bindings.h"
#include "python/errors.h"
#include "solve/solver.h"

namespace py = pybind11;

namespace pz::python {

namespace {

struct SolvedMove {
  games::Action action = games::kInvalidAction;
  std::string move;           // in the game's notation
  int value = 0;              // for the player making it: +1 win, 0 draw, -1 loss
  std::optional<int> plies;   // to the end of the game, this move included
};

struct SolveResult {
  bool complete = false;       // false: over the budget, nothing below is known
  int value = 0;               // for the player to move
  std::optional<int> plies;
  std::vector<SolvedMove> moves;
  std::string solver;
  unsigned long long nodes = 0;
  double seconds = 0;
};

SolveResult solve_state(const games::State& state, double seconds, unsigned long long nodes, bool each_move, bool weak) {
  if (state.is_terminal() || state.is_chance_node() || state.is_simultaneous_node()) {
    throw_value_error("solve: give a position where a player is to move");
  }
  std::string why;
  const auto solver = solve::make_solver(state.game(), &why);
  if (!solver) throw_value_error("solve: no solver for " + state.game().spec().to_string() + ": " + why);
  solve::SolveOptions options;
  options.seconds = seconds;
  options.nodes = nodes;
  options.each_move = each_move;
  options.distances = !weak;
  solve::Solution solution;
  {
    py::gil_scoped_release release;
    solution = solver->solve(state, options);
  }
  SolveResult r{solution.complete, solution.value, solution.plies, {}, solver->name(), solution.nodes, solution.seconds};
  for (const auto& m : solution.moves) {
    r.moves.push_back({m.action, state.action_to_string(state.current_player(), m.action), m.value, m.plies});
  }
  return r;
}

std::optional<std::string> result_name(bool known, int value) {
  return known ? std::optional<std::string>(solve::value_name(value)) : std::nullopt;
}

}  // namespace

void bind_solve(py::module_& m) {
  py::class_<SolvedMove>(m, "SolvedMove", "One move's exact value.")
      .def_readonly("action", &SolvedMove::action)
      .def_readonly("move", &SolvedMove::move)
      .def_readonly("value", &SolvedMove::value, "for the player making it: 1 win, 0 draw, -1 loss")
      .def_property_readonly("result", [](const SolvedMove& s) { return std::string(solve::value_name(s.value)); })
      .def_readonly("plies", &SolvedMove::plies, "to the end of the game under perfect play, this move included");
  py::class_<SolveResult>(m, "Solution", "A position's exact value for the player to move.")
      .def_readonly("complete", &SolveResult::complete, "False: the budget ran out and nothing is known")
      .def_readonly("value", &SolveResult::value, "1 win, 0 draw, -1 loss (when complete)")
      .def_property_readonly("result", [](const SolveResult& s) { return result_name(s.complete, s.value); },
                             "\"win\", \"draw\", \"loss\", or None when not complete")
      .def_readonly("plies", &SolveResult::plies)
      .def_readonly("moves", &SolveResult::moves, "every legal move's value (with each_move=True)")
      .def_readonly("solver", &SolveResult::solver)
      .def_readonly("nodes", &SolveResult::nodes)
      .def_readonly("seconds", &SolveResult::seconds);
  m.def("solve", &solve_state, py::arg("state"), py::kw_only(), py::arg("seconds") = 60.0, py::arg("nodes") = 0,
        py::arg("each_move") = false, py::arg("weak") = false,
        "The exact value of `state` for the player to move (`polyzero solve`): Connect Four, Othello, Hex up to "
        "8x8 and other two-player deterministic games of perfect information. `weak` skips the distances. "
        "ValueError for a game without a solver.");
}

}  // namespace pz::python
