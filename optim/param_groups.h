// What a learning-rate scheduler sees of an optimiser: its param groups' learning rates and,
// for OneCycleLR, their momentum (SGD's `momentum` or Adam's `betas[0]`).
//
// Schedulers are written against this interface so that all of their arithmetic stays
// torch-free: tests, the `polyzero lr` command and the plots run it on `VectorParamGroups`,
// training runs it on `TorchParamGroups` (optim/torch_param_groups.h), which writes straight
// into `torch::optim::Optimizer::param_groups()`.
//
// `initial_lr` mirrors PyTorch's `group["initial_lr"]`: the first scheduler attached to a
// group records the group's lr there (setdefault), and every later scheduler on the same
// groups takes its base lr from it. That is what lets SequentialLR reset the groups to their
// base lrs after its sub-schedulers have already applied their first step. It is scheduler
// bookkeeping, not optimiser state, so it lives here and not in the optimiser.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace pz::optim {

// Which field OneCycleLR cycles: SGD/RMSprop momentum, Adam/AdamW beta1, or none.
enum class MomentumKind { kNone, kMomentum, kBeta1 };

class ParamGroups {
 public:
  virtual ~ParamGroups() = default;

  virtual std::size_t size() const = 0;
  virtual double lr(std::size_t group) const = 0;
  virtual void set_lr(std::size_t group, double lr) = 0;

  virtual MomentumKind momentum_kind() const { return MomentumKind::kNone; }
  // Only meaningful when momentum_kind() != kNone.
  virtual double momentum(std::size_t group) const;
  virtual void set_momentum(std::size_t group, double momentum);

  // PyTorch's group.setdefault("initial_lr", group["lr"]).
  double initial_lr_or_current(std::size_t group);
  std::optional<double> initial_lr(std::size_t group) const;
  void set_initial_lr(std::size_t group, double lr);

 private:
  std::vector<std::optional<double>> initial_lrs_;
};

// Plain learning rates (and optionally momenta) in memory: an optimiser stand-in for tests,
// for printing and plotting schedules, and for anything that needs lr(t) without torch.
class VectorParamGroups final : public ParamGroups {
 public:
  explicit VectorParamGroups(std::vector<double> lrs, MomentumKind kind = MomentumKind::kNone,
                             std::vector<double> momenta = {});

  std::size_t size() const override { return lrs_.size(); }
  double lr(std::size_t group) const override { return lrs_.at(group); }
  void set_lr(std::size_t group, double lr) override { lrs_.at(group) = lr; }
  MomentumKind momentum_kind() const override { return kind_; }
  double momentum(std::size_t group) const override;
  void set_momentum(std::size_t group, double momentum) override;

  const std::vector<double>& lrs() const { return lrs_; }
  const std::vector<double>& momenta() const { return momenta_; }

 private:
  std::vector<double> lrs_;
  MomentumKind kind_;
  std::vector<double> momenta_;
};

}  // namespace pz::optim
