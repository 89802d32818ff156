// polyzero info: version and what this build contains.
#include <iostream>

#include "apps/commands.h"
#include "games/registry.h"

namespace pz::apps {

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "version, build and contents of this polyzero");
  cmd->callback([] {
    std::cout << "polyzero 0.1.0\n"
#ifdef NDEBUG
              << "build: optimised\n"
#else
              << "build: debug (assertions on)\n"
#endif
              << "compiler: " << __VERSION__ << "\n"
              << "games: " << games::registered_games().size() << "\n";
  });
}

}  // namespace pz::apps
