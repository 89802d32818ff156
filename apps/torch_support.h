// The parts of polyzero that need LibTorch, behind one switch. A build with LibTorch
// (-DPZ_WITH_TORCH=ON, the default) compiles with_torch.cpp and the commands that train;
// a build without it compiles without_torch.cpp instead, where each of these says plainly
// that this polyzero was built without LibTorch and how to get a build that has it. The
// rest of apps/ is the same in both builds.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "nn/model_info.h"

namespace pz::apps {

// Model-backed players (policy:model=…, mcts:model=…) join the arena's list.
void register_model_players();

// `bench train`, `bench nn`, `bench recsys` and (with dist/) `bench distributed` under the
// bench command.
void add_network_bench_commands(CLI::App& bench);

// `polyzero export IN OUT`: a model checkpoint rewritten in the form OUT's name asks for
// (nn/checkpoint.h: .safetensors, else a LibTorch archive).
void add_export_command(CLI::App& app);

// What a model checkpoint says about itself (nn/checkpoint.h). A LibTorch archive needs
// LibTorch; a safetensors model is read by either build. Throws util::UsageError.
nn::ModelInfo read_checkpoint_info(const std::string& path);

// Whether this build reads checkpoints (false without LibTorch).
bool torch_available();

// One line for `polyzero info`: the LibTorch this build uses, or that it has none.
std::string torch_build_line();

}  // namespace pz::apps
