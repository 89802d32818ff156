// LRScheduler: the base of every learning-rate scheduler in pz::optim, with PyTorch's
// semantics (torch/optim/lr_scheduler.py; docs/lr-schedulers.md has the reference):
//
//   * base lrs come from each group's `initial_lr` (recorded by the first scheduler attached);
//   * the constructor applies lr(0) ("initial step"), so right after construction the
//     optimiser holds lr(0);
//   * after t calls to step() the optimiser holds lr(t) and last_epoch() == t. The loop is
//     "train step t with lr(t); optimizer.step(); scheduler.step()".
//
// Two ways to compute lr(t), chosen per scheduler (JSON "chainable"; children inherit it):
//   * closed form (default): lr(t) is a function of t and the base lrs only (PyTorch's
//     `_get_closed_form_lr`, or the documented formula). Exact on resume, independent of
//     anything else writing the lr, and what the tests check against.
//   * chainable: PyTorch's recursive `get_lr()`, which multiplies the lr the group holds now.
//     Standalone it agrees with the closed form to an ulp or two; it is what composes when
//     several schedulers act on the same groups (ChainedScheduler forces it on its children),
//     and it reproduces PyTorch's numbers bit for bit.
// Absolute schedulers (LambdaLR, OneCycleLR, CosineAnnealingWarmRestarts) have one form.
//
// State: state_dict() is JSON holding the scheduler's normalised config, t, base lrs, last
// lrs and whatever else the scheduler keeps (plateau counters, sub-scheduler states).
// load_state_dict() restores it and writes the saved lrs (and momenta) back into the groups,
// so a resumed run continues with bit-identical learning rates. Unlike PyTorch, hyper-
// parameters in a checkpoint never silently override the ones the scheduler was built with:
// a mismatch is an error (restore_scheduler() in scheduler_factory.h rebuilds from the
// checkpoint instead).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "optim/param_groups.h"

namespace pz::optim {

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  // Advances to t+1 and writes lr(t+1) into every group.
  virtual void step();
  // For schedulers driven by a metric (ReduceLROnPlateau, or a schedule that contains one):
  // the metric measured with the current lr. Time-based schedulers ignore it.
  virtual void step(double metric);
  virtual bool needs_metric() const { return false; }
  // Whether lr(t) depends on the lr the groups hold before the step (chainable mode, or
  // metric-driven), i.e. whether it may not be overwritten and recomputed freely.
  virtual bool depends_on_current_lr() const { return chainable_; }

  std::int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  bool chainable() const { return chainable_; }
  ParamGroups& groups() const { return *groups_; }

  // The JSON "type" and the complete config (every field, defaults filled in):
  // build_scheduler(config()) makes an identical scheduler.
  virtual std::string type() const = 0;
  virtual nlohmann::json config() const = 0;

  nlohmann::json state_dict() const;
  void load_state_dict(const nlohmann::json& state);

 protected:
  LRScheduler(std::shared_ptr<ParamGroups> groups, bool chainable);

  // Why lr(t) is being written: the constructor's first step (PyTorch's `_is_initial`), an
  // ordinary step(), or SequentialLR restarting this scheduler at a milestone (PyTorch's
  // `_update_lr(0)`, which always takes the closed form).
  enum class Update { kInitial, kStep, kRestart };

  // Computes and writes lr(t) into every group. The default evaluates the closed or the
  // chainable form per group; composite and stateful schedulers override it.
  virtual void update(std::int64_t t, Update how);
  // lr(t) of group g from its base lr alone.
  virtual double closed_form_lr(std::size_t group, std::int64_t t) const;
  // PyTorch's get_lr(): lr(t) of group g given the lr it holds now.
  virtual double chainable_lr(std::size_t group, double current, std::int64_t t, bool initial) const;
  // Throws, before anything changes, when step t is not allowed (OneCycleLR past its end).
  virtual void check_step(std::int64_t /*t*/) const {}

  // Derived constructors end with this: last_epoch = 0 and lr(0) written.
  void initial_step();
  // SequentialLR's milestone restart: last_epoch = 0 and lr(0) in closed form.
  void restart();
  // Sub-schedulers waiting for their milestone sit at -1 (PyTorch's recursive_undo).
  virtual void reset_to_unstarted() { last_epoch_ = -1; }

  virtual nlohmann::json extra_state() const { return nlohmann::json::object(); }
  virtual void load_extra_state(const nlohmann::json& /*state*/, const std::string& /*where*/) {}

  void write_lrs(const std::vector<double>& lrs);
  void check_group_count() const;
  std::size_t num_groups() const { return base_lrs_.size(); }
  // The common fields of config(): type and chainable.
  nlohmann::json config_header() const;

  std::shared_ptr<ParamGroups> groups_;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
  std::int64_t last_epoch_ = -1;
  bool chainable_;

  friend class SequentialLR;
  friend class ChainedScheduler;
  friend class WarmupLR;
};

}  // namespace pz::optim
