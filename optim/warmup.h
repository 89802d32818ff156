// Warmup in front of any scheduler (JSON: "warmup": {"type": ..., "steps": W, ...} inside the
// scheduler's config). W = warmup steps, base = the group's base lr:
//
//   linear       base·(sf + (1-sf)·t/W)     start_factor sf in (0, 1], default 1/3
//                                           (PyTorch's LinearLR(sf, 1.0, W))
//   constant     base·f                     factor f in [0, 1], default 1/3
//                                           (PyTorch's ConstantLR(f, W))
//   exponential  base·sf^(1 - t/W)          start_factor sf in (0, 1], default 0.01
//                                           (mmcv's "exp" warmup; PyTorch: a LambdaLR)
//
// Prefix convention (the default, "prefix": true): the warmup takes steps 0..W-1 and the main
// schedule starts at t = W from its own step 0, so a poly schedule of total_iters T ends at
// W + T. This is exactly PyTorch's SequentialLR([warmup, main], milestones=[W]), timm's
// warmup_prefix=True and DeepLab-TF's slow start, and it is continuous when the main
// schedule starts at the base lr. Every t is shifted, so the main schedule's parameters mean
// what they mean without warmup.
//
// "prefix": false is timm's default: the main schedule runs on the absolute step (its first W
// steps are hidden under the warmup), so the warmup ends on base while the schedule is
// already at main(W): a jump unless main(W) = base. The main schedule must then be in
// closed form (not chainable, no metric), since it is computed under the warmup.
#pragma once

#include <optional>

#include "optim/lr_scheduler.h"

namespace pz::optim {

struct WarmupOptions {
  std::string type = "linear";  // "linear", "constant" or "exponential"
  std::int64_t steps = 1;
  double start_factor = 1.0 / 3;  // linear; exponential (its default is 0.01)
  double factor = 1.0 / 3;        // constant
  bool prefix = true;
};

class WarmupLR final : public LRScheduler {
 public:
  WarmupLR(std::shared_ptr<ParamGroups> groups, WarmupOptions options, std::unique_ptr<LRScheduler> main,
           bool chainable = false);
  // The main scheduler's type; config() is the main config with "warmup" added.
  std::string type() const override { return main_->type(); }
  nlohmann::json config() const override;
  nlohmann::json warmup_config() const;

  void step() override { advance(std::nullopt); }
  void step(double metric) override { advance(metric); }
  bool needs_metric() const override { return main_->needs_metric(); }
  bool depends_on_current_lr() const override;
  const LRScheduler& main() const { return *main_; }

 protected:
  void update(std::int64_t t, Update how) override;
  void check_step(std::int64_t t) const override;
  void reset_to_unstarted() override;
  nlohmann::json extra_state() const override;
  void load_extra_state(const nlohmann::json& state, const std::string& where) override;

 private:
  void advance(std::optional<double> metric);

  WarmupOptions options_;
  std::unique_ptr<LRScheduler> main_;
  std::unique_ptr<LRScheduler> phase_;  // the warmup itself, a LinearLR / ConstantLR / LambdaLR
};

}  // namespace pz::optim
