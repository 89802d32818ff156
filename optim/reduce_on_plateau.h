// ReduceLROnPlateau, as PyTorch: step(metric) after each epoch (or evaluation)
//
//   1. t += 1
//   2. better? (min/rel: m < best·(1-threshold), min/abs: m < best-threshold,
//               max/rel: m > best·(threshold+1), max/abs: m > best+threshold)
//      yes: best = m, bad = 0; no: bad += 1  (NaN is never better)
//   3. in cooldown (counter > 0): counter -= 1, bad = 0
//   4. bad > patience: every group's lr becomes max(lr·factor, min_lr), applied only if it
//      drops by more than eps; then counter = cooldown, bad = 0
//
// best starts at +inf (min) or -inf (max). Construction leaves the lr as it is (lr(0) is
// the base lr). LibTorch's own C++ port (2.1+) tests max/abs wrongly and starts max mode at
// FLT_MIN; this one does not. There is no closed form: the lr depends on the metrics, which
// is why its state (best, bad epochs, cooldown) is saved with it.
#pragma once

#include "optim/lr_scheduler.h"

namespace pz::optim {

struct ReduceLROnPlateauOptions {
  std::string mode = "min";  // "min" or "max"
  double factor = 0.1;
  std::int64_t patience = 10;
  double threshold = 1e-4;
  std::string threshold_mode = "rel";  // "rel" or "abs"
  std::int64_t cooldown = 0;
  std::vector<double> min_lr{0.0};  // one for all groups, or one per group
  double eps = 1e-8;
};

class ReduceLROnPlateau final : public LRScheduler {
 public:
  ReduceLROnPlateau(std::shared_ptr<ParamGroups> groups, ReduceLROnPlateauOptions options, bool chainable = false);
  std::string type() const override { return "reduce_on_plateau"; }
  nlohmann::json config() const override;

  void step() override;  // refuses: the metric is needed
  void step(double metric) override;
  bool needs_metric() const override { return true; }
  bool depends_on_current_lr() const override { return true; }

  double best() const { return best_; }
  std::int64_t num_bad_epochs() const { return num_bad_epochs_; }
  std::int64_t cooldown_counter() const { return cooldown_counter_; }
  bool is_better(double metric, double best) const;

 protected:
  void update(std::int64_t t, Update how) override;
  nlohmann::json extra_state() const override;
  void load_extra_state(const nlohmann::json& state, const std::string& where) override;

 private:
  void reset_counters();

  ReduceLROnPlateauOptions options_;
  std::vector<double> min_lrs_;
  double best_ = 0;
  std::int64_t num_bad_epochs_ = 0;
  std::int64_t cooldown_counter_ = 0;
};

}  // namespace pz::optim
