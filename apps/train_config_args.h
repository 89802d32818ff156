// The training config as train and bench train assemble it: built-in defaults, then
// configs/<game>.json ($PZ_CONFIG_DIR, or found beside the executable: util/data_dirs.h),
// then a --config file, then --set overrides.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "apps/game_args.h"
#include "games/game.h"
#include "nn/train_config.h"

namespace pz::apps {

// The game a new run trains: --game as given, or, when it names a game without options,
// the board that configs/<game>.json's recipe was made for (its "game", e.g.
// "hex:size=8,swap=false").
std::shared_ptr<const games::Game> recipe_game(const GameArgs& args);

nlohmann::json assemble_train_config(const games::Game& game, const std::string& config_file,
                                     const std::vector<std::string>& overrides);

}  // namespace pz::apps
