// polyzero bench <what>: throughput measurements (see bench/).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "apps/commands.h"
#include "bench/playout_bench.h"
#include "games/registry.h"

namespace pz::apps {

void add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "benchmarks: games (random-playout throughput)");
  cmd->require_subcommand(1);
  auto* games_cmd = cmd->add_subcommand("games", "random-playout throughput per game (games/s, moves/s)");
  struct Args {
    std::vector<std::string> games;
    double seconds = 1.0;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  games_cmd->add_option("--game,-g", args->games, "game specs to measure (default: every game with default options)");
  games_cmd->add_option("--seconds", args->seconds, "time per game")->check(CLI::PositiveNumber)->capture_default_str();
  games_cmd->add_flag("--json", args->json, "one JSON object per game");
  games_cmd->callback([args] {
    std::vector<std::shared_ptr<const games::Game>> list;
    if (args->games.empty()) {
      for (const auto& entry : games::registered_games()) list.push_back(games::make_game(entry.name));
    } else {
      for (const auto& spec : args->games) list.push_back(games::make_game(spec));
    }
    if (!args->json) std::printf("%-36s %10s %12s %14s %12s\n", "game", "games", "games/s", "moves/s", "moves/game");
    for (const auto& game : list) {
      const auto r = bench::measure_random_playouts(*game, args->seconds, 12345);
      if (args->json) {
        std::cout << nlohmann::json{{"game", r.game}, {"games", r.games}, {"moves", r.moves}, {"seconds", r.seconds},
                                    {"games_per_second", r.games_per_second()}, {"moves_per_second", r.moves_per_second()}}
                         .dump()
                  << std::endl;
      } else {
        std::printf("%-36s %10lld %12.0f %14.0f %12.1f\n", r.game.c_str(), static_cast<long long>(r.games),
                    r.games_per_second(), r.moves_per_second(), static_cast<double>(r.moves) / static_cast<double>(r.games));
        std::fflush(stdout);
      }
    }
  });
}

}  // namespace pz::apps
