// polyzero gtp --game go|hex [--options …] [--p SPEC]: polyzero as a GTP v2 engine on standard
// input and output, for GUIs (Sabaki, GoGui) and tools (arena/gtp_engine.h).
#include <iostream>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "arena/gtp_engine.h"
#include "arena/player_factory.h"

namespace pz::apps {

void add_gtp_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("gtp", "a GTP v2 engine on standard input and output, for GUIs and tools (go, hex)");
  struct Args {
    GameArgs game;
    arena::GtpEngineConfig engine;
    std::int64_t seed = 1;
  };
  auto args = std::make_shared<Args>();
  args->game.add_to(*cmd, "go");
  args->engine.player = kDefaultAiSpec;
  cmd->add_option("--p,--player", args->engine.player, "the player that generates the moves")->capture_default_str();
  cmd->add_option("--seed", args->seed, "the player's random seed")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->footer("Players are written kind[:key=value,...], or ai: the game's default AI (a search with the network "
              "shipped in models/ for this board, else mcts:sims=800):\n" + arena::describe_player_kinds() +
              "\nCommands: protocol_version, name, version, known_command, list_commands, quit, boardsize, "
              "clear_board, komi, play, genmove, undo, showboard, final_score, time_settings, time_left.");
  cmd->callback([args] {
    args->engine.seed = static_cast<std::uint64_t>(args->seed);
    args->engine.resolve_player = resolve_default_ai;
    arena::GtpEngine engine(args->game.make(), args->engine, std::cin, std::cout);
    engine.run();
  });
}

}  // namespace pz::apps
