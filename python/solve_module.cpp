// polyzero.solve(state): the exact value of a position, and of each move, from the game's
// solver (solve/solver.h: Connect Four and 8×8 Othello on bitboards, Hex up to 8×8,
// alpha-beta for other two-player deterministic games); polyzero.accuracy(game, players):
// players measured on solver-labelled positions (solve/accuracy.h). Both run with the GIL
// released, and Ctrl-C stops them.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "arena/player_factory.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/games_module.h"
#include "python/interruptible.h"
#include "solve/accuracy.h"
#include "solve/position_set.h"
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
  // Ctrl-C ends the solve as a spent budget does, then raises KeyboardInterrupt.
  run_interruptibly(
      [&](const std::atomic<bool>& stop) {
        options.stop = &stop;
        solution = solver->solve(state, options);
      },
      [] {});
  SolveResult r{solution.complete, solution.value, solution.plies, {}, solver->name(), solution.nodes, solution.seconds};
  for (const auto& m : solution.moves) {
    r.moves.push_back({m.action, state.action_to_string(state.current_player(), m.action), m.value, m.plies});
  }
  return r;
}

std::optional<std::string> result_name(bool known, int value) {
  return known ? std::optional<std::string>(solve::value_name(value)) : std::nullopt;
}

py::dict share_dict(const solve::AccuracyShare& s) {
  py::dict d;
  d["name"] = s.name;
  d["positions"] = s.positions;
  d["correct"] = s.correct;
  d["share"] = s.share;
  d["low"] = s.low;
  d["high"] = s.high;
  return d;
}

// The labelled set: generated (and saved where asked), or read from a file.
solve::PositionSet position_set(const games::Game& game, const std::string& positions, std::uint64_t seed,
                                const std::optional<std::pair<int, int>>& plies, const std::string& engine,
                                double solve_seconds, const std::string& save) {
  const std::string prefix = "generate:";
  if (positions.rfind(prefix, 0) != 0) {
    if (!save.empty()) throw_value_error("accuracy: save goes with positions=\"generate:N\"");
    return solve::load_positions(positions, game);
  }
  solve::GenerateOptions o;
  try {
    o.count = std::stoi(positions.substr(prefix.size()));
  } catch (const std::exception&) {
    o.count = 0;
  }
  if (o.count < 1 || o.count > 1000000) throw_value_error("accuracy: positions=\"generate:N\" needs 1 <= N <= 1000000");
  if (solve_seconds <= 0) throw_value_error("accuracy: solve_seconds must be above 0");
  o.seed = seed;
  o.engine = engine;
  o.solve_seconds = solve_seconds;
  if (plies) {
    if (plies->first < 0 || plies->first > plies->second) throw_value_error("accuracy: plies (A, B) with 0 <= A <= B");
    std::tie(o.min_ply, o.max_ply) = *plies;
  }
  solve::PositionSet set;
  run_interruptibly(
      [&](const std::atomic<bool>& stop) {
        o.stop = &stop;
        set = solve::generate_positions(game, o);
      },
      [] {});
  if (!save.empty()) solve::save_positions(save, set);
  return set;
}

py::list accuracy(py::handle game_arg, const std::vector<std::string>& players, const std::string& positions,
                  std::uint64_t seed, const std::optional<std::pair<int, int>>& plies, const std::string& engine,
                  double solve_seconds, const std::string& save) {
  const GameHandle game = game_argument(game_arg);
  if (players.empty()) throw_value_error("accuracy: name at least one player");
  for (const auto& spec : players) {  // a misspelt player fails now, not after the labelling
    if (arena::make_player(spec, *game, seed)->is_human()) throw_value_error("accuracy: '" + spec + "' is a person");
  }
  const solve::PositionSet set = position_set(*game, positions, seed, plies, engine, solve_seconds, save);
  if (set.positions.empty()) throw_value_error("accuracy: no positions to measure on");
  py::list reports;
  for (const auto& spec : players) {
    solve::AccuracyReport r;
    run_interruptibly([&](const std::atomic<bool>& stop) { r = solve::measure_accuracy(*game, set, spec, seed, &stop); },
                      [] {});
    py::dict d;
    d["player"] = r.player;
    d["all"] = share_dict(r.all);
    py::list phases, difficulty;
    for (const auto& s : r.by_phase) phases.append(share_dict(s));
    for (const auto& s : r.by_difficulty) difficulty.append(share_dict(s));
    d["by_phase"] = phases;
    d["by_difficulty"] = difficulty;
    d["seconds"] = r.seconds;
    reports.append(d);
  }
  return reports;
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
  m.def("accuracy", &accuracy, py::arg("game"), py::arg("players"), py::kw_only(), py::arg("positions") = "generate:200",
        py::arg("seed") = 1, py::arg("plies") = py::none(), py::arg("engine") = "uct:sims=200",
        py::arg("solve_seconds") = 10.0, py::arg("save") = "",
        "The share of solver-labelled positions where each player's move keeps the game's value (`polyzero "
        "accuracy`), with 95% intervals, overall, by phase and by difficulty (\"one ply settles it\", \"harder\"). "
        "positions: \"generate:N\" labels N new positions (plies=(A, B), engine, solve_seconds; save=FILE keeps "
        "them) or a saved file. Returns a dict per player. Ctrl-C stops and raises KeyboardInterrupt.");
}

}  // namespace pz::python
