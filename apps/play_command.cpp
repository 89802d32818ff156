// polyzero play --game G --p1 SPEC --p2 SPEC: a game in the terminal.
#include <iostream>
#include <random>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "arena/player_factory.h"
#include "arena/terminal_game.h"
#include "util/error.h"

namespace pz::apps {

void add_play_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("play", "play a game in the terminal (people and AIs, any mix)");
  struct Args {
    GameArgs game;
    std::vector<std::string> players = {"human", kDefaultAiSpec};
    std::int64_t seed = -1;
  };
  auto args = std::make_shared<Args>();
  args->game.add_to(*cmd);
  cmd->add_option("--p1", args->players[0], "player 1 (moves first)")->capture_default_str();
  auto* p2_option = cmd->add_option("--p2", args->players[1], "player 2 (two-player games)")->capture_default_str();
  cmd->add_option("--seed", args->seed, "random seed for AIs and chance (-1: from the clock)");
  cmd->footer("Players are written kind[:key=value,...], or ai: the game's default AI (a search with the network "
              "shipped in models/ for this board, else mcts:sims=800):\n" + arena::describe_player_kinds() +
              "\nAt the prompt: a move in the game's notation, or help, moves, board, undo, quit.");
  cmd->callback([args, p2_option] {
    auto game = args->game.make();
    if (game->info().num_players == 1 && p2_option->count() > 0) {
      throw util::UsageError(game->info().long_name + " is a single-player game: only --p1 plays (drop --p2)");
    }
    const std::uint64_t seed = args->seed >= 0 ? static_cast<std::uint64_t>(args->seed) : std::random_device{}();
    std::vector<std::unique_ptr<arena::Player>> players;
    const int n = game->info().num_players;
    if (n > 2) throw util::UsageError(game->info().long_name + " has more than two players; not supported by play yet");
    for (int p = 0; p < n; ++p) players.push_back(arena::make_player(resolve_default_ai(args->players[static_cast<size_t>(p)], *game), *game, seed + 1 + p));
    arena::TerminalGame session(game, std::move(players), seed, std::cin, std::cout);
    session.run();
  });
}

}  // namespace pz::apps
