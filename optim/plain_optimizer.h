// The optimisers of optimizer_config.h on plain float arrays, without LibTorch: SGD (momentum,
// dampening, Nesterov, L2 weight decay), Adam (L2 weight decay, AMSGrad) and AdamW (decoupled
// weight decay), each step the arithmetic of torch::optim's C++ optimisers of LibTorch 1.13
// (torch/csrc/api/src/optim/{sgd,adam,adamw}.cpp) in the same order, in float:
//
//   SGD    g ← g + wd·p;  b ← g on the first step, else μ·b + (1 − dampening)·g;
//          g ← g + μ·b (Nesterov) or b;  p ← p − lr·g
//   Adam   g ← g + wd·p (AdamW instead: p ← p·(1 − lr·wd));  t ← t + 1;
//          m ← β1·m + (1 − β1)·g;  v ← β2·v + (1 − β2)·g²;  v̂ ← max(v̂, v) with AMSGrad;
//          p ← p − lr/(1 − β1ᵗ) · m / (√v (or √v̂) / √(1 − β2ᵗ) + ε)
//
// Parameters fall into param groups by the config's rules (assign_param_groups), and the
// optimiser is the schedulers' ParamGroups (param_groups.h): a scheduler built on it sets the
// lr (and OneCycleLR's momentum or β1) of each group, as on torch::optim's.
//
// State, for checkpoints (a map of named float arrays, as safetensors holds them): per
// parameter "NAME.momentum_buffer" (SGD with momentum, after its first step), "NAME.exp_avg",
// "NAME.exp_avg_sq" and "NAME.max_exp_avg_sq" (AMSGrad), and "NAME.step" (Adam, AdamW: one
// float, the step count).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "optim/optimizer_config.h"
#include "optim/param_groups.h"

namespace pz::optim {

// A parameter the optimiser updates: its dotted name, its dimensions (for the group rules'
// max_ndim) and its number of floats.
struct PlainParameter {
  std::string name;
  std::int64_t ndim = 1;
  std::size_t size = 0;
};

using PlainState = std::map<std::string, std::vector<float>>;

// The element-wise loops of a step and of clipping as compiled kernels, for a client that
// generates them (nn/poly/update_kernels.h: polyc). Each takes the number of floats n and the
// coefficients h that the step works out once (the formulas above, in that order):
//   sgd_momentum  d = g + h0·p;  b ← b·h1 + d·h2;  d ← d·h3 + b·h4;  p ← p + d·h5
//                 (h2 = 1 − dampening, or h1 = 0 and h2 = 1 on the buffer's first step; Nesterov:
//                 h3 = 1, h4 = μ, else h3 = 0, h4 = 1; h5 = −lr); d is scratch
//   sgd           p ← p + (g + h0·p)·h1  (h1 = −lr)
//   adam          p ← p·h0;  d = g + h1·p;  m ← m·h2 + d·h3;  v ← v·h4 + d·d·h5;
//                 p ← p + m / (√v / h6 + h7) · h8  (AdamW: h0 = 1 − lr·wd, h1 = 0; Adam: h0 = 1,
//                 h1 = wd; h6 = √(1 − β2ᵗ), h7 = ε, h8 = −lr/(1 − β1ᵗ)); d is scratch
//   adam_amsgrad  the same with v̂ ← max(v̂, v) and √v̂ in the denominator
//   sum_of_squares  h0 = Σ g² (in float);  scale  g ← g·h0
// Null members keep the plain loops.
struct UpdateKernels {
  void (*sgd_momentum)(int n, const float* h, float* p, const float* g, float* b, float* d) = nullptr;
  void (*sgd)(int n, const float* h, float* p, const float* g) = nullptr;
  void (*adam)(int n, const float* h, float* p, const float* g, float* m, float* v, float* d) = nullptr;
  void (*adam_amsgrad)(int n, const float* h, float* p, const float* g, float* m, float* v, float* vmax, float* d) = nullptr;
  void (*sum_of_squares)(int n, const float* g, float* h) = nullptr;
  void (*scale)(int n, const float* h, float* g) = nullptr;
};

class PlainOptimizer final : public ParamGroups {
 public:
  // Throws util::UsageError when `params` is empty or a group rule selects nothing.
  PlainOptimizer(const OptimizerConfig& config, std::vector<PlainParameter> params);

  // The step's loops as `kernels` (kept by the caller while the optimiser lives); null: plain loops.
  void set_update_kernels(const UpdateKernels* kernels) { kernels_ = kernels; }

  // One step: values[i] (params()[i].size floats) moves against gradients[i].
  void step(const std::vector<float*>& values, const std::vector<const float*>& gradients);

  const std::vector<PlainParameter>& params() const { return params_; }
  const OptimizerConfig& config() const { return config_; }

  // ParamGroups: each group's lr and momentum (SGD's momentum, Adam's β1).
  std::size_t size() const override { return groups_.size(); }
  double lr(std::size_t group) const override;
  void set_lr(std::size_t group, double lr) override;
  MomentumKind momentum_kind() const override;
  double momentum(std::size_t group) const override;
  void set_momentum(std::size_t group, double momentum) override;

  PlainState state() const;
  // Replaces the state; throws util::UsageError naming the entry when one does not fit the
  // parameters (an unknown name or a wrong size).
  void load_state(const PlainState& state);

 private:
  struct Group {
    OptimizerOptions options;
    std::vector<std::size_t> members;
  };
  struct Slots {  // one parameter's state; empty vectors until its first step
    std::vector<float> momentum_buffer, exp_avg, exp_avg_sq, max_exp_avg_sq;
    std::int64_t step = 0;
  };
  void sgd_step(const OptimizerOptions& o, std::size_t i, float* p, const float* g);
  void adam_step(const OptimizerOptions& o, std::size_t i, float* p, const float* g);
  Group& group_at(std::size_t group);
  const Group& group_at(std::size_t group) const;

  OptimizerConfig config_;
  std::vector<PlainParameter> params_;
  std::vector<Group> groups_;
  std::vector<Slots> slots_;
  std::vector<float> scratch_;  // one parameter's effective gradient
  const UpdateKernels* kernels_ = nullptr;
};

// torch.nn.utils.clip_grad_norm_ over the gradients (sizes[i] floats each): the total
// `norm_type`-norm (∞: the largest magnitude) of all of them together, returned; when it
// exceeds `max_norm`, every gradient is scaled by max_norm / (norm + 1e-6). With `kernels`,
// the 2-norm's squares and the scaling run in them (each gradient's sum in float, the total
// in double).
double clip_gradient_norm(const std::vector<float*>& gradients, const std::vector<std::size_t>& sizes, double max_norm,
                          double norm_type = 2.0, const UpdateKernels* kernels = nullptr);

// The total norm alone (clip_gradient_norm's first half).
double gradient_norm(const std::vector<const float*>& gradients, const std::vector<std::size_t>& sizes,
                     double norm_type = 2.0, const UpdateKernels* kernels = nullptr);

}  // namespace pz::optim
