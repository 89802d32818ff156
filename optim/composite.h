// Schedulers made of schedulers: SequentialLR and ChainedScheduler, with PyTorch's
// semantics (current code, i.e. after pytorch#72856 and #149392).
//
// SequentialLR(schedulers, milestones): the groups are reset to their base lrs, every
// sub-scheduler is set back to "not started", and the first one applies lr(0). At step t:
// the sub-scheduler i = number of milestones ≤ t runs; at a milestone it *restarts* from the
// base lrs (its closed form at 0, PyTorch's `_update_lr(0)`), otherwise it steps. So
// sub-scheduler i at global step t is at its own step t - milestones[i-1].
// Differences from PyTorch, all deliberate:
//   * milestones must be strictly increasing and >= 1 (PyTorch does not check; an unsorted
//     list silently misbehaves and milestone 0 gives a wrong lr(0), pytorch#185872);
//   * a composite sub-scheduler restarts as a whole (PyTorch shifts it by one step,
//     pytorch#196243, or cannot restart it at all: ChainedScheduler has no get_lr);
//   * a metric-driven sub-scheduler (ReduceLROnPlateau) is allowed: step(metric) is passed
//     to whichever sub-scheduler is active.
//
// ChainedScheduler(schedulers): step() steps every sub-scheduler in order, each applying
// its chainable (recursive) form to what the previous one left; nothing is reset at
// construction, so lr(0) is every sub-scheduler's initial step in order. Its sub-schedulers
// must be chainable (built with chainable = true; the JSON builder does that). Absolute
// ones (lambda, one_cycle, cosine_warm_restarts) overwrite what came before them, exactly
// as in PyTorch (pytorch#129565). ReduceLROnPlateau is refused, as in PyTorch.
#pragma once

#include <optional>

#include "optim/lr_scheduler.h"

namespace pz::optim {

class SequentialLR final : public LRScheduler {
 public:
  SequentialLR(std::shared_ptr<ParamGroups> groups, std::vector<std::unique_ptr<LRScheduler>> schedulers,
               std::vector<std::int64_t> milestones, bool chainable = false);
  std::string type() const override { return "sequential"; }
  nlohmann::json config() const override;

  void step() override { advance(std::nullopt); }
  void step(double metric) override { advance(metric); }
  bool needs_metric() const override;
  bool depends_on_current_lr() const override;
  const std::vector<std::unique_ptr<LRScheduler>>& schedulers() const { return schedulers_; }

 protected:
  void update(std::int64_t t, Update how) override;
  void check_step(std::int64_t t) const override;
  void reset_to_unstarted() override;
  nlohmann::json extra_state() const override;
  void load_extra_state(const nlohmann::json& state, const std::string& where) override;

 private:
  void advance(std::optional<double> metric);
  std::size_t active_index(std::int64_t t) const;

  std::vector<std::unique_ptr<LRScheduler>> schedulers_;
  std::vector<std::int64_t> milestones_;
};

class ChainedScheduler final : public LRScheduler {
 public:
  ChainedScheduler(std::shared_ptr<ParamGroups> groups, std::vector<std::unique_ptr<LRScheduler>> schedulers);
  std::string type() const override { return "chained"; }
  nlohmann::json config() const override;
  bool depends_on_current_lr() const override { return true; }
  const std::vector<std::unique_ptr<LRScheduler>>& schedulers() const { return schedulers_; }

 protected:
  void update(std::int64_t t, Update how) override;
  void check_step(std::int64_t t) const override;
  void reset_to_unstarted() override;
  nlohmann::json extra_state() const override;
  void load_extra_state(const nlohmann::json& state, const std::string& where) override;

 private:
  std::vector<std::unique_ptr<LRScheduler>> schedulers_;
};

}  // namespace pz::optim
