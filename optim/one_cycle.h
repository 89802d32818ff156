// OneCycleLR (Smith's 1cycle policy, fastai's two-phase default), exactly as PyTorch:
//
//   initial_lr = max_lr/div_factor, min_lr = initial_lr/final_div_factor (these replace the
//   optimiser's lr as the base lrs), N = total_steps (or epochs·steps_per_epoch), p = pct_start.
//   two-phase:   t ≤ pN-1: initial → max;  then (to N-1): max → min
//   three-phase: t ≤ pN-1: initial → max;  t ≤ 2pN-2: max → initial;  then (to N-1): initial → min
//   Within a phase pct = (t - start)/(end - start), where start is the previous phase's end
//   (not end + 1); cos: end + (start-end)/2·(cos(π·pct)+1), linear: (end-start)·pct + start.
//   Momentum (SGD momentum or Adam beta1) cycles inversely, max_momentum ↔ base_momentum
//   (third phase: stays at max_momentum).
//
// lr(N) is still defined (the last phase evaluated with pct > 1, which overshoots, as in
// PyTorch); stepping past N is an error, thrown before anything changes. Phases of zero
// length, on which PyTorch divides by zero, are refused at construction.
#pragma once

#include "optim/lr_scheduler.h"

namespace pz::optim {

struct OneCycleLROptions {
  std::vector<double> max_lr;  // one for all groups, or one per group
  std::int64_t total_steps = 0;  // 0: epochs·steps_per_epoch
  std::int64_t epochs = 0;
  std::int64_t steps_per_epoch = 0;
  double pct_start = 0.3;
  std::string anneal_strategy = "cos";  // "cos" or "linear"
  bool cycle_momentum = true;
  std::vector<double> base_momentum{0.85};
  std::vector<double> max_momentum{0.95};
  double div_factor = 25.0;
  double final_div_factor = 1e4;
  bool three_phase = false;
};

class OneCycleLR final : public LRScheduler {
 public:
  OneCycleLR(std::shared_ptr<ParamGroups> groups, OneCycleLROptions options, bool chainable = false);
  std::string type() const override { return "one_cycle"; }
  nlohmann::json config() const override;
  std::int64_t total_steps() const { return total_steps_; }
  bool depends_on_current_lr() const override { return false; }
  const std::vector<double>& last_momentum() const { return last_momentum_; }

 protected:
  void update(std::int64_t t, Update how) override;
  double closed_form_lr(std::size_t group, std::int64_t t) const override;
  void check_step(std::int64_t t) const override;
  nlohmann::json extra_state() const override;
  void load_extra_state(const nlohmann::json& state, const std::string& where) override;

 private:
  enum Level { kInitialLr, kMaxLr, kMinLr, kMaxMomentum, kBaseMomentum };
  struct Phase {
    double end_step;
    Level start_lr, end_lr, start_momentum, end_momentum;
  };
  double level(std::size_t group, Level which) const;
  double anneal(double start, double end, double pct) const;
  // (lr, momentum) of group g at step t.
  std::pair<double, double> evaluate(std::size_t group, std::int64_t t) const;

  OneCycleLROptions options_;
  std::int64_t total_steps_;
  std::vector<Phase> phases_;
  std::vector<double> max_lrs_, min_lrs_, max_momenta_, base_momenta_;
  std::vector<double> last_momentum_;
};

}  // namespace pz::optim
