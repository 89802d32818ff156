// apps/torch_support.h without LibTorch (-DPZ_WITH_TORCH=OFF): the commands and players
// that need networks exist, so that `--help` lists them and using one names the reason,
// and each fails with a usage error (status 2) that says how to get them.
#include "apps/commands.h"
#include "apps/torch_support.h"
#include "arena/player_factory.h"
#include "nn/model_file.h"
#include "nn/safetensors.h"
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

void add_train_command(CLI::App& app) { add_unavailable_command(app, "train", "train", "train a network by self-play"); }

void add_network_bench_commands(CLI::App& bench) {
  add_unavailable_command(bench, "train", "bench train", "trainer rates per network backend");
  add_unavailable_command(bench, "nn", "bench nn", "network forward passes, torch against poly");
  add_unavailable_command(bench, "recsys", "bench recsys", "feature-crossing kernels, poly against LibTorch");
  add_unavailable_command(bench, "distributed", "bench distributed", "self-play across actor processes on Redis");
}

void register_model_players() {
  arena::set_model_evaluator_factory(
      [](const std::string& path, const games::Game&, const arena::ModelEvaluatorOptions&) -> std::unique_ptr<mcts::Evaluator> {
        needs_torch("the player option model=" + path);
      });
  util::OptionSchema options;
  options.add_string("model", "", "network checkpoint (required)");
  arena::register_player_kind({"policy", "the raw policy of a network checkpoint (needs LibTorch: not in this build)",
                               std::move(options),
                               [](const util::OptionSchema::Values&, const util::Spec&, const games::Game&,
                                  std::uint64_t) -> std::unique_ptr<arena::Player> { needs_torch("player 'policy'"); }});
}

nn::ModelInfo read_checkpoint_info(const std::string& path) {
  if (nn::is_safetensors_file(path)) return nn::read_safetensors_model(path).info;
  needs_torch("reading the LibTorch checkpoint '" + path + "' (a .safetensors model reads without it: `polyzero export`)");
}

void add_export_command(CLI::App& app) {
  add_unavailable_command(app, "export", "export", "write a model checkpoint in another form (.pt or .safetensors)");
}

bool torch_available() { return false; }

std::string torch_build_line() { return "LibTorch: none (built with -DPZ_WITH_TORCH=OFF: no training, no model players)"; }

}  // namespace pz::apps
