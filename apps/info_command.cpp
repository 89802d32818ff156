// polyzero info [CHECKPOINT | RUN_DIR]: version and build, or what a model checkpoint or a
// training run holds.
#include <filesystem>
#include <iostream>

#include "apps/commands.h"
#include "apps/torch_support.h"
#include "games/registry.h"
#include "nn/model_info.h"
#include "nn/run_dir.h"
#include "util/error.h"

namespace pz::apps {

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "version and build, or what a checkpoint or run directory holds");
  auto path = std::make_shared<std::string>();
  cmd->add_option("checkpoint", *path, "a model checkpoint (.pt) or a training run directory");
  cmd->callback([path] {
    if (path->empty()) {
      std::cout << "polyzero 0.1.0\n"
#ifdef NDEBUG
                << "build: optimised\n"
#else
                << "build: debug (assertions on)\n"
#endif
                << "compiler: " << __VERSION__ << "\n"
                << torch_build_line() << "\n"
                << "games: " << games::registered_games().size() << "\n";
      return;
    }
    std::error_code ec;
    if (std::filesystem::is_directory(*path, ec)) {
      const nn::RunDir run(*path);
      if (!std::filesystem::exists(run.config_path(), ec)) {
        throw util::UsageError(*path + " is a directory but not a training run (no config.json)");
      }
      const auto steps = run.checkpoint_steps();
      std::cout << "training run: " << *path << "\n"
                << "checkpoints: " << steps.size();
      if (!steps.empty()) std::cout << " (newest at step " << steps.back() << ")";
      std::cout << "\n";
      if (!steps.empty()) {
        // The learner that wrote the newest checkpoint, by its state file (run_dir.h).
        const std::string dir = run.checkpoint_dir(steps.back());
        const bool poly = std::filesystem::exists(dir + "/learner.safetensors", ec);
        const bool torch = std::filesystem::exists(dir + "/learner.pt", ec);
        std::cout << "learner: "
                  << (poly    ? "poly, without LibTorch (learner.safetensors: resumes in either build)"
                      : torch ? "LibTorch's (learner.pt: resumes in a build with LibTorch)"
                              : "no learner state in the newest checkpoint")
                  << "\n";
      }
      if (std::filesystem::exists(run.latest_model_path(), ec)) {
        std::cout << nn::describe_model(nn::read_model_info(run.latest_model_path()), run.latest_model_path());
      }
      return;
    }
    std::cout << nn::describe_model(nn::read_model_info(*path), *path);
  });
}

}  // namespace pz::apps
