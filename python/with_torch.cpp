// python/torch_support.h with LibTorch (-DPZ_WITH_TORCH=ON).
#include "nn/learner.h"
#include "nn/libtorch.h"
#include "nn/model_players.h"
#include "python/torch_support.h"
#include "solve/solver_player.h"

namespace pz::python {

void register_players_and_networks() {
  nn::register_libtorch();
  nn::register_torch_learner();
  nn::register_model_players();
  solve::register_solver_player();
}

bool has_libtorch() { return true; }

}  // namespace pz::python
