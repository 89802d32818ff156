// The --game/--options pair every game-using command accepts: `--game hex:size=9` and
// `--game hex --options size=9` mean the same (options given both ways merge, --options
// wins).
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "games/game.h"

namespace pz::apps {

struct GameArgs {
  std::string game;
  std::string options;
  void add_to(CLI::App& command, const std::string& default_game = "");
  // Throws util::UsageError for unknown games or bad options.
  std::shared_ptr<const games::Game> make() const;
};

}  // namespace pz::apps
