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
// A bad query is answered {"id", "error"} and the engine goes on.
#include <nlohmann/json.hpp>

#include <iostream>
#include <sstream>
#include <mutex>
#include <thread>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "arena/player_factory.h"
#include "arena/search_players.h"
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
  std::mutex output;

  void answer(const json& out) {
    std::lock_guard lock(output);
    std::cout << out.dump() << std::endl;
  }

  std::string player_spec(const json& query, const games::Game& game) const {
    if (query.contains("player")) return query.at("player").get<std::string>();
    const auto model = models.find(game.info().name);
    util::Spec spec = util::parse_spec(model != models.end() ? "mcts:model=" + model->second + ",sims=400" : "mcts:sims=800");
    if (query.contains("sims")) spec.options["sims"] = std::to_string(query.at("sims").get<int>());
    if (query.contains("seconds")) {
      spec.options["seconds"] = std::to_string(query.at("seconds").get<double>());
      if (!query.contains("sims")) spec.options["sims"] = "0";
    }
    return spec.to_string();
  }

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
    auto player = arena::make_player(spec, *game, query.value("seed", 1));
    if (player->is_human()) throw util::UsageError("player: a person cannot analyse; give an AI spec");
    const games::Action action = player->choose_action(*state, seat);
    json out{{"move", state->action_to_string(seat, action)}, {"to_move", seat}, {"player", spec}};
    if (const auto* mcts = dynamic_cast<const arena::MctsPlayer*>(player.get())) {
      const int max_moves = std::clamp(query.value("max_moves", 10), 1, 1000);
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
    }
  }
};

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("analyze", "JSON-lines analysis engine: positions in on stdin, the AI's view out on stdout");
  auto models = std::make_shared<std::vector<std::string>>();
  auto threads = std::make_shared<int>(1);
  cmd->add_option("--model", *models, "GAME=CHECKPOINT: the default AI of a game searches with this network (repeatable)");
  cmd->add_option("--threads", *threads, "queries searched at once")->check(CLI::Range(1, 64))->capture_default_str();
  cmd->footer(
      "Query (one JSON object a line): {\"id\": \"q1\", \"game\": \"connect4\", \"moves\": [\"4\", \"4\"], \"sims\": 800}\n"
      "  position: State::serialize() text instead of moves; player: any AI spec instead of sims/seconds;\n"
      "  max_moves: how many candidate moves to list (10).\n"
      "Answer: {\"id\", \"move\", \"win_probability\", \"value\", \"proven\", \"proven_result\", \"moves\": [{\"move\",\n"
      "  \"prior\", \"visits\", \"share\", \"value\", \"win_probability\"}], \"pv\", ...}; a bad query: {\"id\", \"error\"}.");
  cmd->callback([models, threads] {
    Engine engine;
    engine.models = parse_game_models(*models);
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
