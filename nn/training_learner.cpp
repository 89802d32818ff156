#include "nn/training_learner.h"

#include <iostream>

#include "nn/poly/backprop.h"
#include "nn/poly/learner.h"
#include "optim/plain_optimizer.h"
#include "optim/scheduler_factory.h"
#include "util/error.h"

namespace pz::nn {

namespace {

TorchLearnerMaker& torch_learner_maker() {
  static TorchLearnerMaker maker = nullptr;
  return maker;
}

void check_backend_name(const std::string& backend) {
  if (backend != "auto" && backend != "torch" && backend != "poly") {
    throw util::UsageError("learner.backend: \"" + backend + "\" is not one of \"auto\", \"torch\", \"poly\"");
  }
}

}  // namespace

void set_torch_learner_maker(TorchLearnerMaker maker) { torch_learner_maker() = maker; }

std::unique_ptr<TrainingLearner> make_training_learner(const games::Game& game, const LearnerConfig& config,
                                                       std::uint64_t seed) {
  check_backend_name(config.backend);
  const TorchLearnerMaker torch_maker = torch_learner_maker();
  if (config.backend == "torch") {
    if (torch_maker == nullptr) {
      throw util::UsageError("learner.backend \"torch\" needs LibTorch, and this polyzero was built without it "
                             "(-DPZ_WITH_TORCH=OFF); use \"poly\" (the kernels polyc generates) or a build with "
                             "LibTorch");
    }
    return torch_maker(game, config, seed);
  }
  if (config.backend == "poly" || torch_maker == nullptr) return std::make_unique<PolyLearner>(game.info(), config, seed);
  try {
    return std::make_unique<PolyLearner>(game.info(), config, seed);
  } catch (const util::UsageError&) {
    throw;
  } catch (const std::runtime_error& e) {
    std::cerr << "warning: " << e.what() << "\nwarning: the learner uses LibTorch's ops\n";
    LearnerConfig torch_config = config;
    torch_config.backend = "torch";
    return torch_maker(game, torch_config, seed);
  }
}

void check_learner_config(const games::Game& game, const LearnerConfig& config) {
  check_backend_name(config.backend);
  check_net_config(config.network, game.info());
  const optim::OptimizerConfig optimizer = optim::parse_optimizer_config(config.optimizer, "learner.optimizer");
  const auto params = trainable_parameters(network_slots(config.network, net_shape(game.info())));
  optim::build_scheduler(config.scheduler, std::make_shared<optim::PlainOptimizer>(optimizer, params));
}

}  // namespace pz::nn
