// polyzero.MCTS: the PUCT search of mcts/search.h over a game, with "uniform", "rollout", a
// model file or a Python callable as its evaluator; the search runs with the GIL released, and
// Ctrl-C ends it (then raises KeyboardInterrupt).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>

#include "mcts/determinization.h"
#include "mcts/search.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/evaluators.h"
#include "python/games_module.h"
#include "python/interruptible.h"
#include "python/search_result.h"
#include "util/rng.h"

namespace py = pybind11;

namespace pz::python {

namespace {

struct SearchSettings {
  mcts::SearchConfig config;
  EvaluatorChoice evaluator;
  int worlds = mcts::kDefaultWorlds;
  std::uint64_t seed = 0;
};

// One search tree over `game` with its evaluator. Searches of one MCTS run one at a time
// (a second Python thread waits, without the GIL).
class Mcts {
 public:
  Mcts(GameHandle game, py::object evaluator, const SearchSettings& settings)
      : game_(std::move(game)),
        evaluator_(make_evaluator(*game_, std::move(evaluator), settings.evaluator)),
        search_(*game_, settings.config, settings.seed),
        worlds_(settings.worlds),
        rng_(settings.seed ^ 0x9E3779B97F4A7C15ULL) {}

  SearchResult search(const games::State& state, py::object seat) {
    check_searchable(state);
    const games::Player chooser = seat.is_none() ? default_seat(state) : seat.cast<games::Player>();
    if (chooser < 0 || chooser >= game_->info().num_players) throw_value_error("seat " + std::to_string(chooser) + " is not a seat");
    mcts::SearchReport report;
    auto* python = dynamic_cast<PythonEvaluator*>(evaluator_.get());
    try {
      if (python) {
        // A Python evaluator runs on this thread, whose Python thread state it reuses: a
        // worker thread would make and drop one per call (tens of microseconds). Ctrl-C
        // reaches it inside its callback, and its KeyboardInterrupt ends the search.
        py::gil_scoped_release release;
        std::lock_guard lock(mutex_);
        search_or_drop_tree(state, chooser, report);
      } else {
        // Ctrl-C ends the search at its next budget check, then raises KeyboardInterrupt.
        run_interruptibly(
            [&](const std::atomic<bool>& stop) {
              std::lock_guard lock(mutex_);
              search_.set_stop(&stop);
              try {
                search_or_drop_tree(state, chooser, report);
              } catch (...) {
                search_.set_stop(nullptr);
                throw;
              }
              search_.set_stop(nullptr);
            },
            [] {});
      }
    } catch (...) {
      if (python) python->rethrow_callback_error();
      throw;
    }
    return search_result(report, state);
  }

  void clear_tree() {
    py::gil_scoped_release release;
    std::lock_guard lock(mutex_);
    if (search_.has_root()) search_.clear_tree();
  }

  GameHandle game() const { return game_; }
  const mcts::SearchConfig& config() const { return search_.config(); }
  std::int64_t evaluator_calls() const {
    auto* python = dynamic_cast<PythonEvaluator*>(evaluator_.get());
    return python ? python->calls() : -1;
  }

 private:
  // A search stopped by an exception (the evaluator raised, Ctrl-C in a Python evaluator)
  // leaves a tree with descents in flight: it is dropped, so the next search starts afresh.
  void search_or_drop_tree(const games::State& state, games::Player chooser, mcts::SearchReport& report) {
    try {
      report = mcts::search_worlds(search_, *evaluator_, state, chooser, worlds_, rng_);
    } catch (...) {
      if (search_.has_root()) search_.clear_tree();
      throw;
    }
  }
  static games::Player default_seat(const games::State& state) {
    return state.current_player() >= 0 ? state.current_player() : 0;
  }
  void check_searchable(const games::State& state) const {
    if (state.game().spec().to_string() != game_->spec().to_string()) {
      throw_value_error("this MCTS searches " + game_->spec().to_string() + ", not " + state.game().spec().to_string());
    }
    if (state.is_terminal()) throw_value_error("the game is over: nothing to search");
    if (state.is_chance_node()) throw_value_error("a chance node: draw an outcome (State.chance_outcomes()) instead of searching");
  }

  GameHandle game_;
  std::unique_ptr<mcts::Evaluator> evaluator_;
  mcts::Search search_;
  int worlds_;
  util::Rng rng_;
  std::mutex mutex_;
};

std::unique_ptr<Mcts> make_mcts(py::handle game, py::object evaluator, int sims, double seconds, int threads, int batch,
                                double c_puct, double c_puct_base, double fpu, int rollouts, bool solver, bool wincheck,
                                bool reuse, bool noise, int worlds, std::uint64_t seed, int symmetries,
                                const std::string& backend, int nnthreads) {
  if (sims < 0 || seconds < 0 || (sims == 0 && seconds == 0)) throw_value_error("MCTS: set sims or seconds above 0");
  if (threads < 1 || batch < 1 || rollouts < 1 || worlds < 1) {
    throw_value_error("MCTS: threads, batch, rollouts and worlds must be at least 1");
  }
  SearchSettings s;
  s.config.simulations = sims;
  s.config.max_seconds = seconds;
  s.config.threads = threads;
  s.config.leaves_per_batch = batch;
  s.config.c_puct_init = c_puct;
  s.config.c_puct_base = c_puct_base;
  s.config.fpu_reduction = fpu;
  s.config.solver = solver;
  s.config.check_immediate_wins = wincheck;
  s.config.reuse_tree = reuse;
  s.config.root_noise = noise;
  s.evaluator.rollouts = rollouts;
  s.evaluator.seed = seed ^ 0x5EED;
  s.evaluator.model.symmetries = symmetries;
  s.evaluator.model.backend = backend;
  s.evaluator.model.threads = nnthreads;
  s.worlds = worlds;
  s.seed = seed;
  return std::make_unique<Mcts>(game_argument(game), std::move(evaluator), s);
}

void bind_results(py::module_& m) {
  py::class_<MoveAnalysis>(m, "MoveAnalysis", "One root move of a search.")
      .def_readonly("action", &MoveAnalysis::action)
      .def_readonly("move", &MoveAnalysis::move, "the move in the game's notation")
      .def_readonly("visits", &MoveAnalysis::visits)
      .def_readonly("share", &MoveAnalysis::share, "its share of the root's visits")
      .def_readonly("prior", &MoveAnalysis::prior)
      .def_readonly("value", &MoveAnalysis::value, "mean value for the player choosing, in return units")
      .def_readonly("win_probability", &MoveAnalysis::win_probability, "value mapped to [0, 1]; None when unvisited")
      .def_readonly("proven_result", &MoveAnalysis::proven_result, "\"win\", \"loss\" or \"draw\" when the solver proved it")
      .def_readonly("pv", &MoveAnalysis::pv, "this move, then the most visited line below it (actions)")
      .def_readonly("pv_text", &MoveAnalysis::pv_text, "the same line in the game's notation")
      .def("__repr__", [](const MoveAnalysis& a) {
        return "<MoveAnalysis " + a.move + " visits=" + std::to_string(a.visits) + ">";
      });
  py::class_<SearchResult>(m, "SearchResult", "What a search found: the root's moves, most visited first.")
      .def_readonly("player", &SearchResult::player, "the seat choosing")
      .def_readonly("action", &SearchResult::action, "the most visited move (INVALID_ACTION when there is none)")
      .def_readonly("move", &SearchResult::move, "the most visited move in the game's notation")
      .def_readonly("value", &SearchResult::value, "the root's value for `player` in return units")
      .def_readonly("win_probability", &SearchResult::win_probability)
      .def_readonly("proven_result", &SearchResult::proven_result)
      .def_readonly("simulations", &SearchResult::simulations)
      .def_readonly("visits", &SearchResult::visits, "root visits, reused ones included")
      .def_readonly("seconds", &SearchResult::seconds)
      .def_readonly("tree_nodes", &SearchResult::tree_nodes)
      .def_readonly("moves", &SearchResult::moves, "MoveAnalysis of every root move, most visited first")
      .def_readonly("pv", &SearchResult::pv, "the principal variation in the game's notation")
      .def_property_readonly("policy",
                             [](const SearchResult& r) {
                               return py::array_t<float>(static_cast<py::ssize_t>(r.policy.size()), r.policy.data());
                             },
                             "visit shares over the action space: float32, num_distinct_actions long (all on `action` when the "
                             "root was proven before its children were visited)")
      .def("__repr__", [](const SearchResult& r) {
        return "<SearchResult " + r.move + " win_probability=" + std::to_string(r.win_probability) +
               " simulations=" + std::to_string(r.simulations) + ">";
      });
}

}  // namespace

void bind_search(py::module_& m) {
  bind_results(m);
  py::class_<Mcts>(m, "MCTS",
                   "PUCT search (AlphaZero, with the MCTS-solver) over one game. `evaluator` is \"rollout\" "
                   "(uniform priors, random-playout values), \"uniform\" (uniform priors, value 0), a model file, or a "
                   "callable evaluate(observations N×C×H×W float32) -> (priors N×A, values N or N×players).")
      .def(py::init(&make_mcts), py::arg("game"), py::arg("evaluator") = "rollout", py::kw_only(), py::arg("sims") = 800,
           py::arg("seconds") = 0.0, py::arg("threads") = 1, py::arg("batch") = 1, py::arg("c_puct") = 1.25,
           py::arg("c_puct_base") = 19652.0, py::arg("fpu") = 0.25, py::arg("rollouts") = 1, py::arg("solver") = true,
           py::arg("wincheck") = true, py::arg("reuse") = true, py::arg("noise") = false,
           py::arg("worlds") = mcts::kDefaultWorlds, py::arg("seed") = 0, py::arg("sym") = 1,
           py::arg("backend") = "auto", py::arg("nnthreads") = 1)
      .def("search", &Mcts::search, py::arg("state"), py::arg("seat") = py::none(),
           "Searches `state` for the player to move (or `seat` at a simultaneous node) and returns a "
           "SearchResult. The tree is kept when the next search starts from the same position.")
      .def("clear_tree", &Mcts::clear_tree, "drops the tree, so the next search starts afresh")
      .def_property_readonly("game", &Mcts::game)
      .def_property_readonly("sims", [](const Mcts& s) { return s.config().simulations; })
      .def_property_readonly("threads", [](const Mcts& s) { return s.config().threads; })
      .def_property_readonly("evaluator_calls", &Mcts::evaluator_calls,
                             "how often a callable evaluator was called (-1 for the built-in evaluators)");
}

}  // namespace pz::python
