// apps/torch_support.h with LibTorch (-DPZ_WITH_TORCH=ON).
#include <torch/version.h>

#include "apps/torch_support.h"
#include "nn/learner.h"
#include "nn/libtorch.h"
#include "nn/model_players.h"

namespace pz::apps {

void register_model_players() {
  nn::register_libtorch();
  nn::register_torch_learner();
  nn::register_model_players();
}

std::string torch_build_line() { return std::string("LibTorch: ") + TORCH_VERSION; }

}  // namespace pz::apps
