#include "optim/reduce_on_plateau.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "optim/config_fields.h"
#include "util/error.h"

namespace pz::optim {

using nlohmann::json;

ReduceLROnPlateau::ReduceLROnPlateau(std::shared_ptr<ParamGroups> groups, ReduceLROnPlateauOptions options,
                                     bool chainable)
    : LRScheduler(std::move(groups), chainable), options_(std::move(options)) {
  const auto& o = options_;
  auto require = [](bool ok, const std::string& message) {
    if (!ok) throw util::UsageError("reduce_on_plateau: " + message);
  };
  require(o.mode == "min" || o.mode == "max", "mode must be \"min\" or \"max\", got \"" + o.mode + "\"");
  require(o.threshold_mode == "rel" || o.threshold_mode == "abs",
          "threshold_mode must be \"rel\" or \"abs\", got \"" + o.threshold_mode + "\"");
  require(o.factor >= 0 && o.factor < 1, "factor must be in [0, 1)");
  require(o.patience >= 0 && o.cooldown >= 0, "patience and cooldown must be >= 0");
  require(o.threshold >= 0 && o.eps >= 0, "threshold and eps must be >= 0");
  const std::size_t n = num_groups();
  if (o.min_lr.size() == 1) {
    min_lrs_.assign(n, o.min_lr[0]);
  } else {
    require(o.min_lr.size() == n, "min_lr has " + std::to_string(o.min_lr.size()) + " values but the optimiser has " +
                                      std::to_string(n) + " param group(s)");
    min_lrs_ = o.min_lr;
  }
  reset_counters();
  initial_step();
}

json ReduceLROnPlateau::config() const {
  const auto& o = options_;
  json c = config_header();
  c["mode"] = o.mode;
  c["factor"] = o.factor;
  c["patience"] = o.patience;
  c["threshold"] = o.threshold;
  c["threshold_mode"] = o.threshold_mode;
  c["cooldown"] = o.cooldown;
  c["min_lr"] = o.min_lr.size() == 1 ? json(o.min_lr[0]) : json(o.min_lr);
  c["eps"] = o.eps;
  return c;
}

void ReduceLROnPlateau::reset_counters() {
  best_ = options_.mode == "min" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  num_bad_epochs_ = 0;
  cooldown_counter_ = 0;
}

void ReduceLROnPlateau::update(std::int64_t, Update how) {
  check_group_count();
  // PyTorch's constructor leaves the lr alone; a SequentialLR restart starts from the base lr.
  if (how == Update::kRestart) {
    reset_counters();
    write_lrs(base_lrs_);
  } else {
    std::vector<double> lrs(num_groups());
    for (std::size_t g = 0; g < lrs.size(); ++g) lrs[g] = groups_->lr(g);
    write_lrs(lrs);
  }
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  const double threshold = options_.threshold;
  if (options_.mode == "min" && options_.threshold_mode == "rel") return a < best * (1.0 - threshold);
  if (options_.mode == "min") return a < best - threshold;
  if (options_.threshold_mode == "rel") return a > best * (threshold + 1.0);
  return a > best + threshold;
}

void ReduceLROnPlateau::step() {
  throw std::logic_error("reduce_on_plateau: step() needs the metric; call step(metric)");
}

void ReduceLROnPlateau::step(double metric) {
  check_group_count();
  last_epoch_ += 1;
  if (is_better(metric, best_)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    num_bad_epochs_ += 1;
  }
  if (cooldown_counter_ > 0) {
    cooldown_counter_ -= 1;
    num_bad_epochs_ = 0;
  }
  if (num_bad_epochs_ > options_.patience) {
    for (std::size_t g = 0; g < num_groups(); ++g) {
      const double old_lr = groups_->lr(g);
      const double new_lr = std::max(old_lr * options_.factor, min_lrs_[g]);
      if (old_lr - new_lr > options_.eps) groups_->set_lr(g, new_lr);
    }
    cooldown_counter_ = options_.cooldown;
    num_bad_epochs_ = 0;
  }
  for (std::size_t g = 0; g < num_groups(); ++g) last_lr_[g] = groups_->lr(g);
}

json ReduceLROnPlateau::extra_state() const {
  return json{{"best", json_double(best_)}, {"num_bad_epochs", num_bad_epochs_}, {"cooldown_counter", cooldown_counter_}};
}

void ReduceLROnPlateau::load_extra_state(const json& state, const std::string& where) {
  for (const char* key : {"best", "num_bad_epochs", "cooldown_counter"})
    if (!state.contains(key)) throw util::UsageError(where + ": missing '" + std::string(key) + "'");
  if (!state["num_bad_epochs"].is_number_integer() || !state["cooldown_counter"].is_number_integer())
    throw util::UsageError(where + ": num_bad_epochs and cooldown_counter must be integers");
  best_ = double_from_json(state["best"], where + ".best");
  num_bad_epochs_ = state["num_bad_epochs"].get<std::int64_t>();
  cooldown_counter_ = state["cooldown_counter"].get<std::int64_t>();
}

}  // namespace pz::optim
