// apps/torch_support.h without LibTorch (-DPZ_WITH_TORCH=OFF). The model players play
// safetensors models (nn/model_players.h) and `train` trains with the poly learner
// (nn/poly/learner.h); the commands that compare against LibTorch exist, so that `--help`
// lists them and using one names the reason, and each fails with a usage error (status 2)
// that says how to get them.
#include "apps/commands.h"
#include "apps/torch_support.h"
#include "nn/model_players.h"
#include "util/error.h"

namespace pz::apps {

namespace {

[[noreturn]] void needs_torch(const std::string& what) {
  throw util::UsageError(what + " needs LibTorch, and this polyzero was built without it (-DPZ_WITH_TORCH=OFF); "
                         "build with -DPZ_WITH_TORCH=ON (scripts/setup.sh installs LibTorch)");
}

// A command that is listed but cannot run here: it accepts any arguments, so the error is
// the reason rather than an argument complaint.
// `command` is the full command line's name, e.g. "bench nn".
void add_unavailable_command(CLI::App& parent, const std::string& name, const std::string& command,
                             const std::string& description) {
  auto* cmd = parent.add_subcommand(name, description + " (needs LibTorch: not in this build)");
  cmd->allow_extras();
  cmd->callback([command] { needs_torch("'polyzero " + command + "'"); });
}

}  // namespace

void add_network_bench_commands(CLI::App& bench) {
  add_unavailable_command(bench, "train", "bench train", "trainer rates per network backend");
  add_unavailable_command(bench, "nn", "bench nn", "network forward passes, torch against poly");
  add_unavailable_command(bench, "recsys", "bench recsys", "feature-crossing kernels, poly against LibTorch");
  add_unavailable_command(bench, "distributed", "bench distributed", "self-play across actor processes on Redis");
}

void register_model_players() { nn::register_model_players(); }

void add_export_command(CLI::App& app) {
  add_unavailable_command(app, "export", "export", "write a model checkpoint in another form (.pt or .safetensors)");
}

std::string torch_build_line() {
  return "LibTorch: none (built with -DPZ_WITH_TORCH=OFF: the poly learner trains; models are safetensors)";
}

}  // namespace pz::apps
