// polyzero perft --game G --depth D [--json]: move-generator check (see games/perft.h).
#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "games/perft.h"

namespace pz::apps {

void add_perft_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("perft", "count the move sequences of exactly D plies (move-generator check)");
  struct Args {
    GameArgs game;
    int depth = 1;
    std::string position;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  args->game.add_to(*cmd);
  cmd->add_option("--depth,-d", args->depth, "number of plies")->required()->check(CLI::Range(0, 64));
  cmd->add_option("--position", args->position, "start from this serialised position instead of the initial one");
  cmd->add_flag("--json", args->json, R"(print {"game":..., "depth":..., "nodes":...})");
  cmd->callback([args] {
    auto game = args->game.make();
    auto state = args->position.empty() ? game->new_initial_state() : game->deserialize(args->position);
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t nodes = games::perft(*state, args->depth);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (args->json) {
      std::cout << nlohmann::json{{"game", game->spec().to_string()}, {"depth", args->depth}, {"nodes", nodes}}.dump()
                << "\n";
    } else {
      std::cout << "perft(" << args->depth << ") of " << game->spec().to_string() << " = " << nodes << "  ("
                << seconds << " s)\n";
    }
  });
}

}  // namespace pz::apps
