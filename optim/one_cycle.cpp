#include "optim/one_cycle.h"

#include <cmath>
#include <limits>
#include <numbers>

#include "optim/config_fields.h"
#include "util/error.h"
#include "util/spec.h"

namespace pz::optim {

using nlohmann::json;

namespace {

std::vector<double> per_group(const std::vector<double>& values, std::size_t groups, const char* name) {
  if (values.size() == 1) return std::vector<double>(groups, values[0]);
  if (values.size() == groups) return values;
  throw util::UsageError("one_cycle: " + std::string(name) + " has " + std::to_string(values.size()) +
                         " values but the optimiser has " + std::to_string(groups) +
                         " param group(s); give one value for all groups or one per group");
}

json one_or_list(const std::vector<double>& values) {
  return values.size() == 1 ? json(values[0]) : json(values);
}

}  // namespace

OneCycleLR::OneCycleLR(std::shared_ptr<ParamGroups> groups, OneCycleLROptions options, bool chainable)
    : LRScheduler(std::move(groups), chainable), options_(std::move(options)) {
  const auto& o = options_;
  if (o.total_steps > 0) {
    total_steps_ = o.total_steps;
  } else if (o.epochs > 0 && o.steps_per_epoch > 0) {
    if (o.epochs > std::numeric_limits<std::int64_t>::max() / o.steps_per_epoch)
      throw util::UsageError("one_cycle: epochs * steps_per_epoch (" + std::to_string(o.epochs) + " * " +
                             std::to_string(o.steps_per_epoch) + ") is more than 2^63 - 1 steps; give fewer");
    total_steps_ = o.epochs * o.steps_per_epoch;
  } else {
    throw util::UsageError("one_cycle: give total_steps (>= 1), or epochs and steps_per_epoch (both >= 1)");
  }
  if (!(o.pct_start >= 0 && o.pct_start <= 1)) throw util::UsageError("one_cycle: pct_start must be in [0, 1]");
  if (o.anneal_strategy != "cos" && o.anneal_strategy != "linear")
    throw util::UsageError("one_cycle: anneal_strategy must be \"cos\" or \"linear\", got \"" + o.anneal_strategy + "\"");
  if (!(o.div_factor > 0) || !(o.final_div_factor > 0))
    throw util::UsageError("one_cycle: div_factor and final_div_factor must be > 0");

  const double N = static_cast<double>(total_steps_);
  if (o.three_phase) {
    phases_ = {{o.pct_start * N - 1, kInitialLr, kMaxLr, kMaxMomentum, kBaseMomentum},
               {2 * o.pct_start * N - 2, kMaxLr, kInitialLr, kBaseMomentum, kMaxMomentum},
               {N - 1, kInitialLr, kMinLr, kMaxMomentum, kMaxMomentum}};
  } else {
    phases_ = {{o.pct_start * N - 1, kInitialLr, kMaxLr, kMaxMomentum, kBaseMomentum},
               {N - 1, kMaxLr, kMinLr, kBaseMomentum, kMaxMomentum}};
  }
  // A phase that some t in [0, N] falls into must have a length, or pct is x/0.
  double start = 0.0;
  for (std::size_t i = 0; i < phases_.size(); ++i) {
    const bool last = i + 1 == phases_.size();
    const bool reached = last || phases_[i].end_step >= 0;
    if (reached && phases_[i].end_step == start)
      throw util::UsageError("one_cycle: phase " + std::to_string(i + 1) + " has zero length (pct_start " +
                             util::format_double(o.pct_start) + " with total_steps " + std::to_string(total_steps_) +
                             " puts its start and end both at step " + util::format_double(start) +
                             "); change pct_start or total_steps");
    start = phases_[i].end_step;
  }

  const std::size_t n = num_groups();
  max_lrs_ = per_group(o.max_lr, n, "max_lr");
  for (std::size_t g = 0; g < n; ++g) {
    // OneCycleLR owns the base lrs: PyTorch overwrites group["initial_lr"] the same way.
    base_lrs_[g] = max_lrs_[g] / o.div_factor;
    groups_->set_initial_lr(g, base_lrs_[g]);
    min_lrs_.push_back(base_lrs_[g] / o.final_div_factor);
  }
  if (o.cycle_momentum) {
    if (groups_->momentum_kind() == MomentumKind::kNone)
      throw util::UsageError(
          "one_cycle: cycle_momentum needs an optimiser with momentum (sgd) or betas (adam, adamw); "
          "set \"cycle_momentum\": false for this one");
    max_momenta_ = per_group(o.max_momentum, n, "max_momentum");
    base_momenta_ = per_group(o.base_momentum, n, "base_momentum");
    for (std::size_t g = 0; g < n; ++g) groups_->set_momentum(g, max_momenta_[g]);
  }
  initial_step();
}

json OneCycleLR::config() const {
  const auto& o = options_;
  json c = config_header();
  c["max_lr"] = one_or_list(o.max_lr);
  if (o.total_steps > 0) {
    c["total_steps"] = o.total_steps;
  } else {
    c["epochs"] = o.epochs;
    c["steps_per_epoch"] = o.steps_per_epoch;
  }
  c["pct_start"] = o.pct_start;
  c["anneal_strategy"] = o.anneal_strategy;
  c["cycle_momentum"] = o.cycle_momentum;
  c["base_momentum"] = one_or_list(o.base_momentum);
  c["max_momentum"] = one_or_list(o.max_momentum);
  c["div_factor"] = o.div_factor;
  c["final_div_factor"] = o.final_div_factor;
  c["three_phase"] = o.three_phase;
  return c;
}

void OneCycleLR::check_step(std::int64_t t) const {
  if (t > total_steps_)
    throw util::UsageError("one_cycle: step " + std::to_string(t) + " is past the end of the cycle: total_steps is " +
                           std::to_string(total_steps_) + ", so lr is defined for t = 0.." +
                           std::to_string(total_steps_) + "; make total_steps (or epochs*steps_per_epoch) cover "
                           "every optimiser step of the run");
}

double OneCycleLR::level(std::size_t g, Level which) const {
  switch (which) {
    case kInitialLr: return base_lrs_[g];
    case kMaxLr: return max_lrs_[g];
    case kMinLr: return min_lrs_[g];
    case kMaxMomentum: return max_momenta_[g];
    case kBaseMomentum: return base_momenta_[g];
  }
  return 0.0;
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (options_.anneal_strategy == "cos") {
    const double cos_out = std::cos(std::numbers::pi * pct) + 1;
    return end + (start - end) / 2.0 * cos_out;
  }
  return (end - start) * pct + start;
}

std::pair<double, double> OneCycleLR::evaluate(std::size_t g, std::int64_t t) const {
  double start = 0.0;
  const double step = static_cast<double>(t);
  for (std::size_t i = 0; i < phases_.size(); ++i) {
    const Phase& phase = phases_[i];
    if (step <= phase.end_step || i + 1 == phases_.size()) {
      const double pct = (step - start) / (phase.end_step - start);
      const double lr = anneal(level(g, phase.start_lr), level(g, phase.end_lr), pct);
      const double momentum = options_.cycle_momentum
                                  ? anneal(level(g, phase.start_momentum), level(g, phase.end_momentum), pct)
                                  : 0.0;
      return {lr, momentum};
    }
    start = phase.end_step;
  }
  return {0.0, 0.0};  // unreachable: the last phase always matches
}

double OneCycleLR::closed_form_lr(std::size_t g, std::int64_t t) const { return evaluate(g, t).first; }

void OneCycleLR::update(std::int64_t t, Update) {
  check_group_count();
  std::vector<double> lrs(num_groups());
  if (options_.cycle_momentum) last_momentum_.assign(num_groups(), 0.0);
  for (std::size_t g = 0; g < lrs.size(); ++g) {
    const auto [lr, momentum] = evaluate(g, t);
    lrs[g] = lr;
    if (options_.cycle_momentum) {
      groups_->set_momentum(g, momentum);
      last_momentum_[g] = momentum;
    }
  }
  write_lrs(lrs);
}

json OneCycleLR::extra_state() const {
  json s = json::object();
  if (options_.cycle_momentum) s["last_momentum"] = json_doubles(last_momentum_);
  return s;
}

void OneCycleLR::load_extra_state(const json& state, const std::string& where) {
  if (!options_.cycle_momentum) return;
  if (!state.contains("last_momentum")) throw util::UsageError(where + ": missing 'last_momentum'");
  const auto m = doubles_from_json(state["last_momentum"], where + ".last_momentum");
  if (m.size() != num_groups()) throw util::UsageError(where + ".last_momentum: wrong number of param groups");
  last_momentum_ = m;
  for (std::size_t g = 0; g < m.size(); ++g) groups_->set_momentum(g, m[g]);
}

}  // namespace pz::optim
