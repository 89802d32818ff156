// polyzero.player(spec, game) and polyzero.match(game, p1, p2): the arena's players by spec
// (arena/player_factory.h) and matches between two specs (arena/match.h), run with the GIL
// released; Ctrl-C stops a match.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>

#include "arena/match.h"
#include "arena/player_factory.h"
#include "arena/search_players.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/games_module.h"
#include "python/interruptible.h"
#include "python/search_result.h"

namespace py = pybind11;

namespace pz::python {

namespace {

// A player made from a spec for one game. Its calls run one at a time, without the GIL.
class PlayerHandle {
 public:
  PlayerHandle(GameHandle game, std::unique_ptr<arena::Player> player) : game_(std::move(game)), player_(std::move(player)) {}

  games::Action choose_action(const games::State& state, py::object seat) {
    check_game(state);
    if (state.is_terminal() || state.is_chance_node()) {
      throw_value_error("a player chooses at decision and simultaneous nodes, not at " +
                        std::string(state.is_terminal() ? "the end of the game" : "a chance node"));
    }
    const games::Player chooser = seat.is_none() ? (state.current_player() >= 0 ? state.current_player() : 0)
                                                 : seat.cast<games::Player>();
    games::Action action;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(mutex_);
      action = player_->choose_action(state, chooser);
      last_root_ = state.clone();
    }
    return action;
  }

  void observe_action(const games::State& before, games::Action action) {
    check_game(before);
    py::gil_scoped_release release;
    std::lock_guard lock(mutex_);
    player_->observe_action(before, action);
  }

  void reset(const games::State& state) {
    check_game(state);
    py::gil_scoped_release release;
    std::lock_guard lock(mutex_);
    player_->reset(state);
  }

  std::string name() const { return player_->name(); }

  // The search behind the last choice of a searching (mcts) player; None for the others.
  py::object last_search() const {
    const auto* mcts = dynamic_cast<const arena::MctsPlayer*>(player_.get());
    if (!mcts || !last_root_) return py::none();
    return py::cast(search_result(mcts->last_report(), *last_root_));
  }

 private:
  void check_game(const games::State& state) const {
    if (state.game().spec().to_string() != game_->spec().to_string()) {
      throw_value_error("this player plays " + game_->spec().to_string() + ", not " + state.game().spec().to_string());
    }
  }

  GameHandle game_;
  std::unique_ptr<arena::Player> player_;
  std::unique_ptr<games::State> last_root_;
  std::mutex mutex_;
};

std::unique_ptr<PlayerHandle> make_player_handle(const std::string& spec, py::handle game_arg, std::uint64_t seed) {
  GameHandle game = game_argument(game_arg);
  auto player = arena::make_player(spec, *game, seed);
  if (player->is_human()) {
    throw_value_error("player '" + spec + "': a human answers through a front-end; in Python, choose the moves yourself");
  }
  return std::make_unique<PlayerHandle>(std::move(game), std::move(player));
}

arena::MatchResult run_match(py::handle game_arg, const std::string& p1, const std::string& p2, int games, int threads,
                             std::uint64_t seed, int max_moves) {
  const GameHandle game = game_argument(game_arg);
  if (games < 1 || threads < 1 || max_moves < 0) throw_value_error("match: games and threads at least 1, max_moves at least 0");
  arena::MatchOptions options;
  options.p1 = p1;
  options.p2 = p2;
  options.games = games;
  options.threads = threads;
  options.seed = seed;
  options.max_moves = max_moves;
  arena::MatchResult result;
  // Ctrl-C: no new game starts, games in progress end unfinished, then KeyboardInterrupt.
  run_interruptibly(
      [&](const std::atomic<bool>& stop) {
        options.stop = &stop;
        result = arena::play_match(*game, options);
      },
      [] {});
  return result;
}

void bind_match_results(py::module_& m) {
  py::class_<arena::GameResult>(m, "GameResult", "One game of a match.")
      .def_readonly("index", &arena::GameResult::index)
      .def_readonly("p1_seat", &arena::GameResult::p1_seat, "the seat p1 played (games alternate colours)")
      .def_readonly("moves", &arena::GameResult::moves, "the moves in the game's notation, chance outcomes included")
      .def_readonly("final_state", &arena::GameResult::final_state, "State.serialize() of the final position")
      .def_readonly("returns", &arena::GameResult::returns)
      .def_property_readonly("p1_outcome", [](const arena::GameResult& r) { return arena::outcome_name(r.p1_outcome); },
                             "\"win\", \"draw\" or \"loss\" for p1")
      .def_readonly("cut_short", &arena::GameResult::cut_short, "ended by max_moves (a draw)")
      .def_readonly("forfeit_seat", &arena::GameResult::forfeit_seat)
      .def_readonly("termination", &arena::GameResult::termination, "why a player gave up (\"resigned\", ...), or empty");
  py::class_<arena::MatchResult>(m, "MatchResult", "A match's wins, draws and losses, from p1's view, and its games.")
      .def_readonly("game", &arena::MatchResult::game)
      .def_readonly("p1", &arena::MatchResult::p1)
      .def_readonly("p2", &arena::MatchResult::p2)
      .def_readonly("wins", &arena::MatchResult::wins)
      .def_readonly("draws", &arena::MatchResult::draws)
      .def_readonly("losses", &arena::MatchResult::losses)
      .def_property_readonly("played", &arena::MatchResult::played)
      .def_property_readonly("score", &arena::MatchResult::score, "(wins + draws/2) / played")
      .def_readonly("games", &arena::MatchResult::games)
      .def_readonly("p2_games", &arena::MatchResult::p2_games, "single-player games: p2's games on the same chance seeds")
      .def("__repr__", [](const arena::MatchResult& r) {
        return "<MatchResult " + r.p1 + " vs " + r.p2 + ": +" + std::to_string(r.wins) + " =" + std::to_string(r.draws) +
               " -" + std::to_string(r.losses) + ">";
      });
}

}  // namespace

void bind_players(py::module_& m) {
  py::class_<PlayerHandle>(m, "Player", "A player made from a spec (polyzero.player).")
      .def_property_readonly("name", &PlayerHandle::name, "the spec it was made from")
      .def("choose_action", &PlayerHandle::choose_action, py::arg("state"), py::arg("seat") = py::none(),
           "The action it plays in `state` (for `seat` at a simultaneous node).")
      .def("step", &PlayerHandle::choose_action, py::arg("state"), py::arg("seat") = py::none(),
           "The same as choose_action (OpenSpiel's bots' name).")
      .def("observe_action", &PlayerHandle::observe_action, py::arg("before"), py::arg("action"),
           "Tells the player an action was applied to `before`, so a searching player keeps its tree.")
      .def("reset", &PlayerHandle::reset, py::arg("state"), "the game restarted or was rewound to `state`")
      .def_property_readonly("last_search", &PlayerHandle::last_search,
                             "an mcts player's SearchResult behind its last choice; None for other players");
  m.def("player", &make_player_handle, py::arg("spec"), py::arg("game"), py::arg("seed") = 1,
        "A player by spec, the CLI's grammar: \"random\", \"uct:sims=400\", \"mcts:sims=200\", "
        "\"mcts:model=FILE,sims=200\", \"solver\", \"gtp:cmd=...\". ValueError names an unknown kind or option.");
  m.def("player_kinds", [] {
        std::vector<std::string> names;
        for (const auto& kind : arena::player_kinds()) names.push_back(kind.name);
        return names;
      }, "The kinds of player a spec may name.");
  bind_match_results(m);
  m.def("match", &run_match, py::arg("game"), py::arg("p1"), py::arg("p2") = "", py::arg("games") = 2, py::arg("threads") = 1,
        py::arg("seed") = 1, py::arg("max_moves") = 0,
        "A match between two player specs, colours alternating; results from p1's view. Single-player games: each plays the same chance seeds, p2 optional.");
}

}  // namespace pz::python
