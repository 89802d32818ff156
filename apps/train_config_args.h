// The training config as train and bench train assemble it: built-in defaults, then
// configs/<game>.json ($PZ_CONFIG_DIR, or found beside the executable: util/data_dirs.h),
// then a --config file, then --set overrides.
#pragma once

#include <string>
#include <vector>

#include "games/game.h"
#include "nn/train_config.h"

namespace pz::apps {

nlohmann::json assemble_train_config(const games::Game& game, const std::string& config_file,
                                     const std::vector<std::string>& overrides);

}  // namespace pz::apps
