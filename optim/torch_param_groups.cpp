#include "optim/torch_param_groups.h"

#include <torch/torch.h>

#include <stdexcept>

namespace pz::optim {

namespace {

torch::optim::OptimizerOptions& options_of(torch::optim::Optimizer& optimizer, std::size_t group) {
  auto& groups = optimizer.param_groups();
  if (group >= groups.size())
    throw std::out_of_range("param group " + std::to_string(group) + " of " + std::to_string(groups.size()));
  return groups[group].options();
}

}  // namespace

TorchParamGroups::TorchParamGroups(torch::optim::Optimizer& optimizer) : optimizer_(optimizer) {}

std::size_t TorchParamGroups::size() const { return optimizer_.param_groups().size(); }

double TorchParamGroups::lr(std::size_t group) const { return options_of(optimizer_, group).get_lr(); }

void TorchParamGroups::set_lr(std::size_t group, double lr) { options_of(optimizer_, group).set_lr(lr); }

MomentumKind TorchParamGroups::momentum_kind() const {
  if (optimizer_.param_groups().empty()) return MomentumKind::kNone;
  auto& options = options_of(optimizer_, 0);
  if (dynamic_cast<torch::optim::SGDOptions*>(&options) || dynamic_cast<torch::optim::RMSpropOptions*>(&options))
    return MomentumKind::kMomentum;
  if (dynamic_cast<torch::optim::AdamOptions*>(&options) || dynamic_cast<torch::optim::AdamWOptions*>(&options))
    return MomentumKind::kBeta1;
  return MomentumKind::kNone;
}

double TorchParamGroups::momentum(std::size_t group) const {
  auto& options = options_of(optimizer_, group);
  if (auto* sgd = dynamic_cast<torch::optim::SGDOptions*>(&options)) return sgd->momentum();
  if (auto* rms = dynamic_cast<torch::optim::RMSpropOptions*>(&options)) return rms->momentum();
  if (auto* adam = dynamic_cast<torch::optim::AdamOptions*>(&options)) return std::get<0>(adam->betas());
  if (auto* adamw = dynamic_cast<torch::optim::AdamWOptions*>(&options)) return std::get<0>(adamw->betas());
  return ParamGroups::momentum(group);
}

void TorchParamGroups::set_momentum(std::size_t group, double momentum) {
  auto& options = options_of(optimizer_, group);
  if (auto* sgd = dynamic_cast<torch::optim::SGDOptions*>(&options)) {
    sgd->momentum(momentum);
  } else if (auto* rms = dynamic_cast<torch::optim::RMSpropOptions*>(&options)) {
    rms->momentum(momentum);
  } else if (auto* adam = dynamic_cast<torch::optim::AdamOptions*>(&options)) {
    adam->betas(std::make_tuple(momentum, std::get<1>(adam->betas())));
  } else if (auto* adamw = dynamic_cast<torch::optim::AdamWOptions*>(&options)) {
    adamw->betas(std::make_tuple(momentum, std::get<1>(adamw->betas())));
  } else {
    ParamGroups::set_momentum(group, momentum);
  }
}

std::unique_ptr<LRScheduler> make_scheduler(const nlohmann::json& config, torch::optim::Optimizer& optimizer,
                                            const SchedulerContext& context) {
  return build_scheduler(config, std::make_shared<TorchParamGroups>(optimizer), context);
}

std::unique_ptr<LRScheduler> restore_scheduler(const nlohmann::json& state, torch::optim::Optimizer& optimizer,
                                               const SchedulerContext& context) {
  return restore_scheduler(state, std::make_shared<TorchParamGroups>(optimizer), context);
}

}  // namespace pz::optim
