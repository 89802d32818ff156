// The torch side of the schedulers: ParamGroups over a torch::optim::Optimizer, and
// make_scheduler(), which builds a scheduler from JSON directly on an optimiser.
//
// Learning rates go through `param_groups()[i].options().set_lr()`, as LibTorch's own
// LRScheduler does. OneCycleLR's momentum is SGD's / RMSprop's `momentum` or Adam's /
// AdamW's `betas` first element (the second is kept).
//
// The optimiser must outlive the TorchParamGroups (and so every scheduler built on it), the
// way a PyTorch scheduler holds its optimiser.
#pragma once

#include <memory>

#include "optim/lr_scheduler.h"
#include "optim/scheduler_factory.h"

namespace torch::optim {
class Optimizer;
}

namespace pz::optim {

class TorchParamGroups final : public ParamGroups {
 public:
  explicit TorchParamGroups(torch::optim::Optimizer& optimizer);

  std::size_t size() const override;
  double lr(std::size_t group) const override;
  void set_lr(std::size_t group, double lr) override;
  MomentumKind momentum_kind() const override;
  double momentum(std::size_t group) const override;
  void set_momentum(std::size_t group, double momentum) override;

 private:
  torch::optim::Optimizer& optimizer_;
};

std::unique_ptr<LRScheduler> make_scheduler(const nlohmann::json& config, torch::optim::Optimizer& optimizer,
                                            const SchedulerContext& context = {});

// Resume: rebuild the scheduler from its saved state onto a (restored) optimiser.
std::unique_ptr<LRScheduler> restore_scheduler(const nlohmann::json& state, torch::optim::Optimizer& optimizer,
                                               const SchedulerContext& context = {});

}  // namespace pz::optim
