// apps/torch_support.h with LibTorch (-DPZ_WITH_TORCH=ON).
#include <torch/version.h>

#include "apps/torch_support.h"
#include "nn/model_players.h"

namespace pz::apps {

void register_model_players() { nn::register_model_players(); }

nn::ModelInfo read_checkpoint_info(const std::string& path) { return nn::read_model_info(path); }

bool torch_available() { return true; }

std::string torch_build_line() { return std::string("LibTorch: ") + TORCH_VERSION; }

}  // namespace pz::apps
