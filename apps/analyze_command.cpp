// polyzero analyze: a JSON-lines analysis engine (in the spirit of KataGo's), for every
// game. One query a line on stdin, one answer a line on stdout, answers carrying the
// query's id; --threads queries are searched at once, so answers may come out of order.
//
// Query:  {"id": "q1", "game": "connect4", "moves": ["4", "4"]            (or "position":
//          State::serialize() text), "player": "mcts:sims=800"            (optional; or
//          "sims": N / "seconds": S to set the default AI's budget), "max_moves": 10}
// Answer: {"id", "move", "to_move", "win_probability", "value", "proven", "proven_result",
//          "simulations", "visits", "seconds", "moves": [{"move", "prior", "visits",
//          "share", "value", "win_probability", "proven_result"}], "pv"}
//          ("pv": the most visited line, cut below mcts::kPvMinVisits visits, as the play
//          page and `polyzero play` cut it: mcts/report.h)
// A bad query is answered {"id", "error"} and the engine goes on.
#include <nlohmann/json.hpp>

#include <iostream>
#include <sstream>
#include <climits>
#include <mutex>
#include <optional>
#include <thread>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "arena/player_factory.h"
#include "arena/search_players.h"
#include "arena/untrusted_specs.h"
#include "games/registry.h"
#include "server/ai_pool.h"
#include "server/thinking.h"
#include "util/error.h"
#include "util/json_text.h"
#include "util/spec.h"

namespace pz::apps {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxLine = 1 << 20;

struct Engine {
  std::map<std::string, std::string> models;
  std::map<std::string, std::string> model_games;  // the network_spec (games/game.h) each network plays
  // --untrusted: queries name networks by game and use only what computes (untrusted_specs.h).
  std::optional<arena::UntrustedSpecs> untrusted;
  std::mutex output;

  void answer(const json& out) {
    std::lock_guard lock(output);
    std::cout << util::dump_json(out) << std::endl;
  }

  // The query's player as the query spells it (untrusted: model names, not paths).
  std::string player_spec(const json& query, const games::Game& game) const {
    if (query.contains("player")) {
      if (!query.at("player").is_string()) throw util::UsageError("player: must be a spec string, e.g. \"mcts:sims=800\"");
      return query.at("player").get<std::string>();
    }
    const auto model = models.find(game.info().name);
    const auto plays = model_games.find(game.info().name);
    const bool fits = model != models.end() && (plays == model_games.end() || plays->second == game.network_spec().to_string());
    util::Spec spec = util::parse_spec(!fits ? "mcts:sims=800"
                                       : "mcts:model=" + (untrusted ? model->first : model->second) + ",sims=400");
    if (query.contains("sims")) spec.options["sims"] = std::to_string(util::json_integer(query.at("sims"), "sims", 0, 10'000'000));
    if (query.contains("seconds")) {
      spec.options["seconds"] = util::format_double(util::json_number(query.at("seconds"), "seconds", 0, 86400));
      if (!query.contains("sims")) spec.options["sims"] = "0";
    }
    return spec.to_string();
  }

  std::string resolve(const std::string& spec) const { return untrusted ? untrusted->resolve(spec) : spec; }

  static std::unique_ptr<games::State> position(const json& query, const games::Game& game) {
    if (query.contains("position")) return game.deserialize(query.at("position").get<std::string>());
    auto state = game.new_initial_state();
    if (!query.contains("moves")) return state;
    std::vector<std::string> moves;
    if (query.at("moves").is_string()) {
      std::istringstream in(query.at("moves").get<std::string>());
      for (std::string m; in >> m;) moves.push_back(m);
    } else {
      moves = query.at("moves").get<std::vector<std::string>>();
    }
    for (std::size_t i = 0; i < moves.size(); ++i) {
      if (state->current_player() < 0) throw util::UsageError("moves: the game is over before move " + std::to_string(i + 1));
      std::string error;
      const auto action = state->parse_action(moves[i], &error);
      if (!action || !state->is_legal(*action)) {
        throw util::UsageError("move " + std::to_string(i + 1) + " '" + moves[i].substr(0, 40) + "': " +
                               (action ? state->explain_illegal(*action) : error));
      }
      state->apply_action(*action);
    }
    return state;
  }

  json analyse(const json& query) const {
    const auto game = games::make_game(query.at("game").get<std::string>());
    const auto state = position(query, *game);
    if (state->is_terminal()) throw util::UsageError("the position is over: nothing to analyse");
    if (state->is_chance_node() || state->is_simultaneous_node()) {
      throw util::UsageError("the position waits for chance or for simultaneous moves; give a decision position");
    }
    const int seat = state->current_player();
    const std::string spec = player_spec(query, *game);
    const auto seed = query.contains("seed") ? util::json_integer(query.at("seed"), "seed", 0, INT64_MAX) : 1;
    auto player = arena::make_player(resolve(spec), *game, static_cast<std::uint64_t>(seed));
    if (player->is_human()) throw util::UsageError("player: a person cannot analyse; give an AI spec");
    const games::Action action = player->choose_action(*state, seat);
    json out{{"move", state->action_to_string(seat, action)}, {"to_move", seat}, {"player", spec}};
    if (const auto* mcts = dynamic_cast<const arena::MctsPlayer*>(player.get())) {
      const auto max_moves =
          query.contains("max_moves") ? static_cast<int>(util::json_integer(query.at("max_moves"), "max_moves", 1, 1000)) : 10;
      out.update(server::thinking_json(mcts->last_report(), *state, true, max_moves));
      out.erase("done");
    }
    return out;
  }

  void handle(const std::string& line) {
    json id = nullptr;
    try {
      const json query = util::parse_json_object(line, "the query");
      if (query.contains("id")) id = query["id"];
      if (!query.contains("game")) throw util::UsageError("give \"game\", e.g. \"connect4\"");
      json out = analyse(query);
      out["id"] = id;
      answer(out);
    } catch (const std::exception& e) {
      answer({{"id", id}, {"error", e.what()}});
    } catch (...) {
      answer({{"id", id}, {"error", "internal error"}});
    }
  }
};

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("analyze", "JSON-lines analysis engine: positions in on stdin, the AI's view out on stdout");
  auto models = std::make_shared<std::vector<std::string>>();
  auto threads = std::make_shared<int>(1);
  auto untrusted = std::make_shared<bool>(false);
  cmd->add_option("--model", *models, "GAME=CHECKPOINT: the default AI of a game searches with this network (repeatable; default: the models shipped in models/)");
  cmd->add_option("--threads", *threads, "queries searched at once")->check(CLI::Range(1, 64))->capture_default_str();
  cmd->add_flag("--untrusted", *untrusted,
                "the queries come from someone who must not run commands or read files: players only of the kinds "
                "that compute, with bounded budgets, and networks only by the game names given with --model");
  cmd->footer(
      "Query (one JSON object a line): {\"id\": \"q1\", \"game\": \"connect4\", \"moves\": [\"4\", \"4\"], \"sims\": 800}\n"
      "  position: State::serialize() text instead of moves; player: any AI spec instead of sims/seconds;\n"
      "  max_moves: how many candidate moves to list (10).\n"
      "Answer: {\"id\", \"move\", \"win_probability\", \"value\", \"proven\", \"proven_result\", \"moves\": [{\"move\",\n"
      "  \"prior\", \"visits\", \"share\", \"value\", \"win_probability\"}], \"pv\", ...}; a bad query: {\"id\", \"error\"}.");
  cmd->callback([models, threads, untrusted] {
    Engine engine;
    const GameModels networks = load_game_models(*models);
    engine.models = networks.paths;
    engine.model_games = networks.games;
    if (*untrusted) engine.untrusted.emplace(engine.models);
    server::AiPool pool(*threads, 2 * *threads);
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      if (line.size() > kMaxLine) {
        engine.answer({{"id", nullptr}, {"error", "the query is longer than 1 MiB"}});
        continue;
      }
      // A full queue makes the reader wait: the input is read no faster than it is searched.
      while (!pool.submit([&engine, line] { engine.handle(line); })) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
    pool.drain();
  });
}

}  // namespace pz::apps
