// The parts of polyzero that need LibTorch, behind one switch. A build with LibTorch
// (-DPZ_WITH_TORCH=ON, the default) compiles with_torch.cpp and the commands that train;
// a build without it compiles without_torch.cpp instead, where each of these says plainly
// that this polyzero was built without LibTorch and how to get a build that has it. The
// rest of apps/ is the same in both builds.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace pz::apps {

// Model-backed players (policy:model=…, mcts:model=…) join the arena's list, in both builds
// (nn/model_players.h); with LibTorch, also its backend and checkpoint form (nn/libtorch.h).
void register_model_players();

// `bench train`, `bench nn`, `bench recsys` and (with distributed/) `bench distributed` under the
// bench command.
void add_network_bench_commands(CLI::App& bench);

// `polyzero export IN OUT`: a model checkpoint rewritten in the form OUT's name asks for
// (nn/checkpoint.h: .safetensors, else a LibTorch archive).
void add_export_command(CLI::App& app);

// One line for `polyzero info`: the LibTorch this build uses, or that it has none.
std::string torch_build_line();

}  // namespace pz::apps
