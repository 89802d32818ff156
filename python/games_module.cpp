// polyzero.Game and polyzero.State: the Game API of games/game.h, in the shape of
// OpenSpiel's pyspiel (load_game, new_initial_state, legal_actions, apply_action, returns).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <string>
#include <vector>

#include "games/registry.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/games_module.h"
#include "python/numpy_views.h"
#include "util/rng.h"

namespace py = pybind11;

namespace pz::python {

using games::Action;
using games::Game;
using games::Player;
using games::State;

GameHandle game_handle(const Game& game) { return std::const_pointer_cast<Game>(game.shared_from_this()); }

GameHandle game_argument(py::handle game) {
  if (py::isinstance<Game>(game)) return game.cast<GameHandle>();
  if (py::isinstance<py::str>(game)) return std::const_pointer_cast<Game>(games::make_game(game.cast<std::string>()));
  throw_value_error("expected a polyzero.Game or a game spec such as \"hex:size=9\", got " +
                    std::string(py::str(py::type::handle_of(game).attr("__name__"))));
}

namespace {

py::tuple shape_tuple(const games::Shape& shape) { return py::make_tuple(shape.channels, shape.height, shape.width); }

void check_seat(const State& state, Player player) {
  const int players = state.game().info().num_players;
  if (player < 0 || player >= players) {
    throw_value_error("player " + std::to_string(player) + " is not a seat of " + state.game().spec().to_string() +
                      " (seats 0.." + std::to_string(players - 1) + ")");
  }
}

std::vector<Action> legal_actions_of(const State& state, py::object player) {
  if (player.is_none()) return state.legal_actions();
  const Player p = player.cast<Player>();
  check_seat(state, p);
  std::vector<Action> out;
  state.legal_actions(p, out);
  return out;
}

Action parse_move(const State& state, const std::string& text) {
  std::string why;
  const auto action = state.parse_action(text, &why);
  if (!action) {
    throw_value_error("'" + text + "' is not a move of " + state.game().spec().to_string() + (why.empty() ? "" : ": " + why));
  }
  return *action;
}

void apply_joint(State& state, const std::vector<Action>& actions) {
  if (!state.is_simultaneous_node()) {
    throw_value_error("apply_joint_action: not a simultaneous-move node (use apply_action)");
  }
  const int players = state.game().info().num_players;
  if (static_cast<int>(actions.size()) != players) {
    throw_value_error("apply_joint_action: expected one action per player (" + std::to_string(players) + "), got " +
                      std::to_string(actions.size()));
  }
  std::vector<Action> legal;
  for (Player p = 0; p < players; ++p) {
    state.legal_actions(p, legal);
    if (!std::binary_search(legal.begin(), legal.end(), actions[p])) {
      throw_value_error("apply_joint_action: action " + std::to_string(actions[p]) + " is not legal for player " +
                        std::to_string(p));
    }
  }
  state.apply_joint_action(actions);
}

// A state pickles as its game's spec and its serialized text.
py::tuple state_pickle(const State& state) {
  return py::make_tuple(state.game().spec().to_string(), state.serialize());
}

std::unique_ptr<State> state_unpickle(const py::tuple& saved) {
  if (saved.size() != 2) throw_value_error("State.__setstate__: expected (game spec, serialized state)");
  const auto game = games::make_game(saved[0].cast<std::string>());
  return game->deserialize(saved[1].cast<std::string>());
}

py::list option_list(const util::OptionSchema& schema) {
  static const char* const kTypes[] = {"int", "float", "bool", "str"};
  py::list out;
  for (const auto& option : schema.options()) {
    py::dict d;
    d["key"] = option.key;
    d["type"] = kTypes[static_cast<int>(option.type)];
    d["default"] = option.default_value;
    d["help"] = option.help;
    d["min"] = option.min ? py::cast(*option.min) : py::none();
    d["max"] = option.max ? py::cast(*option.max) : py::none();
    d["choices"] = option.choices;
    out.append(d);
  }
  return out;
}

void bind_registry(py::module_& m) {
  py::class_<games::GameEntry>(m, "RegisteredGame", "A game of the registry: its name, options and description.")
      .def_readonly("name", &games::GameEntry::name)
      .def_readonly("long_name", &games::GameEntry::long_name)
      .def_readonly("description", &games::GameEntry::description)
      .def_property_readonly("family", [](const games::GameEntry& e) { return games::family_name(e.family); })
      .def_property_readonly("options", [](const games::GameEntry& e) { return option_list(e.options); },
                             "the options of its spec: dicts with key, type, default, help, min, max, choices")
      .def("__repr__", [](const games::GameEntry& e) { return "<polyzero.RegisteredGame " + e.name + ">"; });
  m.def("registered_games", [] { return games::registered_games(); },
        "Every game polyzero plays, in the order `polyzero games` lists them.");
  m.def("registered_game_names", [] {
        std::vector<std::string> names;
        for (const auto& entry : games::registered_games()) names.push_back(entry.name);
        return names;
      }, "The names load_game accepts.");
  m.def("load_game", [](const std::string& spec) { return std::const_pointer_cast<Game>(games::make_game(spec)); },
        py::arg("spec"),
        "The game named by `spec` (\"name[:key=value,...]\", e.g. \"hex:size=9\"). ValueError names an unknown "
        "game or option and lists the valid ones.");
}

void bind_game(py::module_& m) {
  py::class_<Game, GameHandle>(m, "Game", "The rules of a game with their parameters; immutable.")
      .def_property_readonly("name", [](const Game& g) { return g.info().name; }, "registry name, e.g. \"hex\"")
      .def_property_readonly("long_name", [](const Game& g) { return g.info().long_name; })
      .def_property_readonly("spec", [](const Game& g) { return g.spec().to_string(); },
                             "the spec with every option spelled out, e.g. \"hex:size=9,swap=false\"")
      .def_property_readonly("family", [](const Game& g) { return games::family_name(g.info().family); })
      .def_property_readonly("num_players", [](const Game& g) { return g.info().num_players; })
      .def_property_readonly("num_distinct_actions", [](const Game& g) { return g.info().num_distinct_actions; },
                             "size of the action space: actions are 0..num_distinct_actions-1")
      .def_property_readonly("max_chance_outcomes", [](const Game& g) { return g.info().max_chance_outcomes; },
                             "size of the chance-outcome space (0 for deterministic games)")
      .def_property_readonly("observation_shape", [](const Game& g) { return shape_tuple(g.info().observation_shape); },
                             "(channels, height, width) of State.observation()")
      .def_property_readonly("policy_shape", [](const Game& g) { return shape_tuple(g.info().policy_shape); },
                             "(planes, height, width): action a is flat index a of these planes")
      .def_property_readonly("zero_sum", [](const Game& g) { return g.info().zero_sum; })
      .def_property_readonly("perfect_information", [](const Game& g) { return g.info().perfect_information; })
      .def_property_readonly("simultaneous", [](const Game& g) { return g.info().simultaneous; },
                             "whether the game has simultaneous-move nodes")
      .def_property_readonly("min_return", [](const Game& g) { return g.info().min_return; })
      .def_property_readonly("max_return", [](const Game& g) { return g.info().max_return; })
      .def_property_readonly("max_game_length", [](const Game& g) { return g.info().max_game_length; })
      .def_property_readonly("num_symmetries", [](const Game& g) { return g.symmetries().size(); })
      .def("new_initial_state", [](const Game& g) { return g.new_initial_state(); })
      .def("deserialize", [](const Game& g, const std::string& text) { return g.deserialize(text); }, py::arg("text"),
           "The state State.serialize() wrote; ValueError on malformed text.")
      .def("__str__", [](const Game& g) { return g.spec().to_string(); })
      .def("__repr__", [](const Game& g) { return "polyzero.load_game(\"" + g.spec().to_string() + "\")"; })
      .def(py::pickle([](const Game& g) { return g.spec().to_string(); },
                      [](const std::string& spec) { return std::const_pointer_cast<Game>(games::make_game(spec)); }));
}

void bind_state(py::module_& m) {
  py::class_<State>(m, "State", "One position of a game.")
      .def("game", [](const State& s) { return game_handle(s.game()); })
      .def("current_player", &State::current_player,
           "the seat to move, or CHANCE_PLAYER, SIMULTANEOUS_PLAYER, TERMINAL_PLAYER")
      .def("is_terminal", &State::is_terminal)
      .def("is_chance_node", &State::is_chance_node)
      .def("is_simultaneous_node", &State::is_simultaneous_node)
      .def("move_number", &State::move_number, "actions applied since the initial state (chance outcomes included)")
      .def("legal_actions", &legal_actions_of, py::arg("player") = py::none(),
           "Legal actions, ascending: of the player to move (or the chance outcomes at a chance node); with "
           "`player`, that player's (at a simultaneous node, each player has their own).")
      .def("is_legal", &State::is_legal, py::arg("action"))
      .def("chance_outcomes", &State::chance_outcomes, "[(outcome, probability)] at a chance node")
      .def("apply_action", &State::apply_checked, py::arg("action"),
           "Applies a move or chance outcome; ValueError naming the move and why when it is not legal.")
      .def("apply_joint_action", &apply_joint, py::arg("actions"),
           "At a simultaneous node: one action per player, in seat order.")
      .def("returns", &State::returns, "one return per player (totals so far in scored games)")
      .def("observation",
           [](const State& s, py::object player) {
             const Player p = player.is_none() ? viewer(s) : player.cast<Player>();
             check_seat(s, p);
             return observation_array(s, p);
           },
           py::arg("player") = py::none(),
           "The network's view for `player` (default: the player to move, seat 0 elsewhere): a float32 numpy "
           "array shaped game.observation_shape.")
      .def("action_to_string",
           [](const State& s, Action action) { return s.action_to_string(s.current_player(), action); },
           py::arg("action"), "The move in the game's notation, made by the player to move.")
      .def("action_to_string", &State::action_to_string, py::arg("player"), py::arg("action"),
           "The move in the game's notation, made by `player`.")
      .def("string_to_action", &parse_move, py::arg("text"),
           "The action a move's text names (legality not checked); ValueError when it names none.")
      .def("explain_illegal", &State::explain_illegal, py::arg("action"), "why an illegal action is illegal")
      .def("clone", [](const State& s) { return s.clone(); })
      .def("__copy__", [](const State& s) { return s.clone(); })
      .def("__deepcopy__", [](const State& s, py::dict) { return s.clone(); }, py::arg("memo"))
      .def("resample",
           [](const State& s, Player player, std::uint64_t seed) {
             check_seat(s, player);
             util::Rng rng(seed);
             return s.resample(player, rng);
           },
           py::arg("player"), py::arg("seed") = 0,
           "A state consistent with what `player` has observed, hidden parts drawn at random (a clone in "
           "perfect-information games).")
      .def("serialize", &State::serialize, "text that game.deserialize() turns back into this state")
      .def("zobrist_hash", &State::hash, "a 64-bit hash of everything that decides the rest of the game")
      .def("__str__", &State::to_string)
      .def("__repr__", [](const State& s) {
        return "<polyzero.State of " + s.game().spec().to_string() + " after " + std::to_string(s.move_number()) +
               " moves>";
      })
      .def(py::pickle(&state_pickle, &state_unpickle));
}

}  // namespace

void bind_games(py::module_& m) {
  m.attr("CHANCE_PLAYER") = games::kChancePlayer;
  m.attr("SIMULTANEOUS_PLAYER") = games::kSimultaneousPlayer;
  m.attr("TERMINAL_PLAYER") = games::kTerminalPlayer;
  m.attr("INVALID_ACTION") = games::kInvalidAction;
  bind_registry(m);
  bind_game(m);
  bind_state(m);
}

}  // namespace pz::python
