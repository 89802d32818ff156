// The schedulers whose lr is a function of the step count t and the base lr: PyTorch's
// PolynomialLR, LinearLR, ConstantLR, StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR,
// CosineAnnealingWarmRestarts and LambdaLR, plus InversePolyLR (Caffe's "inv").
//
// Formulas (base = the group's initial lr; T, p, γ, … the options). Each is written in
// PyTorch's operation order so that results match PyTorch's to the last bit where the
// arithmetic is the same:
//
//   poly                 eta_min + (base-eta_min)·(1 - min(t,T)/T)^p      (PyTorch: eta_min = 0;
//                        the end lr is the TF/timm/mmengine extension; lr(t ≥ T) = eta_min)
//   inverse_poly         base·(1 + t/T)^(-p)                              (Caffe "inv", γ = 1/T;
//                        never reaches 0: lr(T) = base·2^(-p))
//   linear               base·(sf + (ef-sf)·min(T,t)/T)
//   constant             base·(f + [t ≥ T]·(1-f))
//   step                 base·γ^⌊t/step_size⌋
//   multistep            base·γ^(number of milestones ≤ t)
//   exponential          base·γ^t
//   cosine               eta_min + (base-eta_min)·(1 + cos(π·t/T_max))/2   (not clamped: past
//                        T_max it rises again, period 2·T_max, as in PyTorch)
//   cosine_warm_restarts eta_min + (base-eta_min)·(1 + cos(π·T_cur/T_i))/2, T_i = T_0·T_mult^k
//                        (restarts at T_0, T_0+T_0·T_mult, …; eta_min itself is never reached)
//   lambda               base·λ(t)
//
// Chainable forms are PyTorch's get_lr() (documented in lr_scheduler.h).
#pragma once

#include <functional>

#include "optim/lr_scheduler.h"

namespace pz::optim {

struct PolynomialLROptions {
  std::int64_t total_iters = 5;
  double power = 1.0;
  double eta_min = 0.0;
};

class PolynomialLR final : public LRScheduler {
 public:
  PolynomialLR(std::shared_ptr<ParamGroups> groups, PolynomialLROptions options, bool chainable = false);
  std::string type() const override { return "poly"; }
  nlohmann::json config() const override;

 protected:
  double closed_form_lr(std::size_t group, std::int64_t t) const override;
  double chainable_lr(std::size_t group, double current, std::int64_t t, bool initial) const override;

 private:
  PolynomialLROptions options_;
};

struct InversePolyLROptions {
  double decay_steps = 1.0;  // T: the lr halves (p = 1) after T steps
  double power = 1.0;
};

class InversePolyLR final : public LRScheduler {
 public:
  InversePolyLR(std::shared_ptr<ParamGroups> groups, InversePolyLROptions options, bool chainable = false);
  std::string type() const override { return "inverse_poly"; }
  nlohmann::json config() const override;

 protected:
  double closed_form_lr(std::size_t group, std::int64_t t) const override;
  double chainable_lr(std::size_t group, double current, std::int64_t t, bool initial) const override;

 private:
  InversePolyLROptions options_;
};

struct LinearLROptions {
  double start_factor = 1.0 / 3;
  double end_factor = 1.0;
  std::int64_t total_iters = 5;
};

class LinearLR final : public LRScheduler {
 public:
  LinearLR(std::shared_ptr<ParamGroups> groups, LinearLROptions options, bool chainable = false);
  std::string type() const override { return "linear"; }
  nlohmann::json config() const override;

 protected:
  double closed_form_lr(std::size_t group, std::int64_t t) const override;
  double chainable_lr(std::size_t group, double current, std::int64_t t, bool initial) const override;

 private:
  LinearLROptions options_;
};

struct ConstantLROptions {
  double factor = 1.0 / 3;
  std::int64_t total_iters = 5;
};

class ConstantLR final : public LRScheduler {
 public:
  ConstantLR(std::shared_ptr<ParamGroups> groups, ConstantLROptions options, bool chainable = false);
  std::string type() const override { return "constant"; }
  nlohmann::json config() const override;

 protected:
  double closed_form_lr(std::size_t group, std::int64_t t) const override;
  double chainable_lr(std::size_t group, double current, std::int64_t t, bool initial) const override;

 private:
  ConstantLROptions options_;
};

struct StepLROptions {
  std::int64_t step_size = 1;
  double gamma = 0.1;
};

class StepLR final : public LRScheduler {
 public:
  StepLR(std::shared_ptr<ParamGroups> groups, StepLROptions options, bool chainable = false);
  std::string type() const override { return "step"; }
  nlohmann::json config() const override;

 protected:
  double closed_form_lr(std::size_t group, std::int64_t t) const override;
  double chainable_lr(std::size_t group, double current, std::int64_t t, bool initial) const override;

 private:
  StepLROptions options_;
};

struct MultiStepLROptions {
  std::vector<std::int64_t> milestones;  // strictly increasing (PyTorch allows repeats; we don't)
  double gamma = 0.1;
};

class MultiStepLR final : public LRScheduler {
 public:
  MultiStepLR(std::shared_ptr<ParamGroups> groups, MultiStepLROptions options, bool chainable = false);
  std::string type() const override { return "multistep"; }
  nlohmann::json config() const override;

 protected:
  double closed_form_lr(std::size_t group, std::int64_t t) const override;
  double chainable_lr(std::size_t group, double current, std::int64_t t, bool initial) const override;

 private:
  MultiStepLROptions options_;
};

struct ExponentialLROptions {
  double gamma = 1.0;
};

class ExponentialLR final : public LRScheduler {
 public:
  ExponentialLR(std::shared_ptr<ParamGroups> groups, ExponentialLROptions options, bool chainable = false);
  std::string type() const override { return "exponential"; }
  nlohmann::json config() const override;

 protected:
  double closed_form_lr(std::size_t group, std::int64_t t) const override;
  double chainable_lr(std::size_t group, double current, std::int64_t t, bool initial) const override;

 private:
  ExponentialLROptions options_;
};

struct CosineAnnealingLROptions {
  std::int64_t T_max = 1;
  double eta_min = 0.0;
};

class CosineAnnealingLR final : public LRScheduler {
 public:
  CosineAnnealingLR(std::shared_ptr<ParamGroups> groups, CosineAnnealingLROptions options, bool chainable = false);
  std::string type() const override { return "cosine"; }
  nlohmann::json config() const override;

 protected:
  double closed_form_lr(std::size_t group, std::int64_t t) const override;
  double chainable_lr(std::size_t group, double current, std::int64_t t, bool initial) const override;

 private:
  CosineAnnealingLROptions options_;
};

struct CosineAnnealingWarmRestartsOptions {
  std::int64_t T_0 = 1;
  std::int64_t T_mult = 1;
  double eta_min = 0.0;
};

// Absolute (not chainable), as in PyTorch. Integer steps only: PyTorch's fractional
// `step(epoch + i/iters)` form is deprecated with the rest of step(epoch).
class CosineAnnealingWarmRestarts final : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(std::shared_ptr<ParamGroups> groups, CosineAnnealingWarmRestartsOptions options,
                              bool chainable = false);
  std::string type() const override { return "cosine_warm_restarts"; }
  nlohmann::json config() const override;
  // Steps since the last restart and the current period at step t.
  std::pair<std::int64_t, std::int64_t> cycle_position(std::int64_t t) const;
  bool depends_on_current_lr() const override { return false; }

 protected:
  double closed_form_lr(std::size_t group, std::int64_t t) const override;

 private:
  CosineAnnealingWarmRestartsOptions options_;
};

using LrLambda = std::function<double(std::int64_t)>;

// lr = base·λ(t) (absolute). Lambdas are code, so the config names them: a lambda built
// from JSON is looked up by name in the SchedulerContext (scheduler_factory.h); one passed
// here directly may be given a name so that config()/state_dict() can refer to it.
class LambdaLR final : public LRScheduler {
 public:
  // One lambda for every group, or one per group.
  LambdaLR(std::shared_ptr<ParamGroups> groups, std::vector<LrLambda> lambdas, std::vector<std::string> names = {},
           bool chainable = false);
  std::string type() const override { return "lambda"; }
  nlohmann::json config() const override;
  bool depends_on_current_lr() const override { return false; }

 protected:
  double closed_form_lr(std::size_t group, std::int64_t t) const override;

 private:
  std::vector<LrLambda> lambdas_;
  std::vector<std::string> names_;
};

}  // namespace pz::optim
