// polyzero train: the self-play trainer (issue 6). Until it lands the command says so and
// shows what this build can do, so the README's first command always runs.
#include <iostream>

#include "apps/commands.h"
#include "apps/game_args.h"

namespace pz::apps {

void add_train_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "self-play training run (not in this build yet)");
  auto game = std::make_shared<GameArgs>();
  game->add_to(*cmd, "connect4");
  cmd->allow_extras();
  CLI::App* root = &app;
  cmd->callback([root, game] {
    game->make();  // still reject unknown games and options

    std::cout << "polyzero train: the self-play trainer is not part of this build yet.\n"
                 "What this build can do:\n\n"
              << root->get_formatter()->make_help(root, "polyzero", CLI::AppFormatMode::Normal) << "\nTry: polyzero play --game connect4 --p1 human --p2 random\n";
  });
}

}  // namespace pz::apps
