#include "optim/warmup.h"

#include <cmath>
#include <stdexcept>

#include "optim/config_fields.h"
#include "optim/schedulers.h"
#include "util/error.h"

namespace pz::optim {

using nlohmann::json;

WarmupLR::WarmupLR(std::shared_ptr<ParamGroups> groups, WarmupOptions options, std::unique_ptr<LRScheduler> main,
                   bool chainable)
    : LRScheduler(std::move(groups), chainable), options_(std::move(options)), main_(std::move(main)) {
  const auto& o = options_;
  if (!main_) throw std::invalid_argument("WarmupLR: no main scheduler");
  if (&main_->groups() != groups_.get())
    throw util::UsageError("warmup: the main scheduler acts on a different optimiser");
  if (o.steps < 1) throw util::UsageError("warmup: steps must be >= 1 (leave \"warmup\" out for no warmup)");
  if (!o.prefix && main_->depends_on_current_lr())
    throw util::UsageError("warmup: \"prefix\": false runs the '" + main_->type() +
                           "' schedule underneath the warmup, so it must be in closed form: it cannot be "
                           "chainable or metric-driven; use \"prefix\": true");
  // The phase acts on the same groups; under "prefix": false it must not chain from the main
  // schedule's value, so it is always in closed form there.
  const bool phase_chainable = o.prefix && chainable;
  if (o.type == "linear") {
    if (!(o.start_factor > 0 && o.start_factor <= 1)) throw util::UsageError("warmup: start_factor must be in (0, 1]");
    phase_ = std::make_unique<LinearLR>(groups_, LinearLROptions{o.start_factor, 1.0, o.steps}, phase_chainable);
  } else if (o.type == "constant") {
    phase_ = std::make_unique<ConstantLR>(groups_, ConstantLROptions{o.factor, o.steps}, phase_chainable);
  } else if (o.type == "exponential") {
    if (!(o.start_factor > 0 && o.start_factor <= 1)) throw util::UsageError("warmup: start_factor must be in (0, 1]");
    const double sf = o.start_factor;
    const double W = static_cast<double>(o.steps);
    phase_ = std::make_unique<LambdaLR>(
        groups_, std::vector<LrLambda>{[sf, W](std::int64_t t) { return std::pow(sf, 1.0 - static_cast<double>(t) / W); }},
        std::vector<std::string>{"exponential_warmup"}, phase_chainable);
  } else {
    throw util::UsageError("warmup: type must be \"linear\", \"constant\" or \"exponential\", got \"" + o.type + "\"");
  }
  initial_step();
}

json WarmupLR::warmup_config() const {
  const auto& o = options_;
  json w{{"type", o.type}, {"steps", o.steps}, {"prefix", o.prefix}};
  if (o.type == "constant") {
    w["factor"] = o.factor;
  } else {
    w["start_factor"] = o.start_factor;
  }
  return w;
}

json WarmupLR::config() const {
  json c = main_->config();
  c["warmup"] = warmup_config();
  return c;
}

bool WarmupLR::depends_on_current_lr() const {
  return main_->depends_on_current_lr() || phase_->depends_on_current_lr();
}

void WarmupLR::update(std::int64_t, Update how) {
  check_group_count();
  // Ordinary steps go through advance(), which routes them to the active sub-scheduler.
  if (how == Update::kStep) throw std::logic_error(type() + ": update(kStep) is not used; step() advances");
  if (options_.prefix) {
    // SequentialLR([phase, main], [W]) at construction (or restart).
    write_lrs(base_lrs_);
    main_->reset_to_unstarted();
    if (how == Update::kInitial) {
      phase_->initial_step();
    } else {
      phase_->restart();
    }
  } else {
    main_->restart();
    phase_->restart();
  }
  last_lr_ = phase_->get_last_lr();
}

void WarmupLR::check_step(std::int64_t t) const {
  if (options_.prefix) {
    if (t < options_.steps) return;
    main_->check_step(t == options_.steps ? 0 : main_->last_epoch_ + 1);
  } else {
    main_->check_step(main_->last_epoch_ + 1);
  }
}

void WarmupLR::advance(std::optional<double> metric) {
  check_group_count();
  const std::int64_t t = last_epoch_ + 1;
  const std::int64_t W = options_.steps;
  check_step(t);
  last_epoch_ = t;
  LRScheduler* last = nullptr;
  if (options_.prefix) {
    if (t < W) {
      phase_->step();
      last = phase_.get();
    } else if (t == W) {
      main_->restart();
      last = main_.get();
    } else {
      if (metric) {
        main_->step(*metric);
      } else {
        main_->step();
      }
      last = main_.get();
    }
  } else {
    main_->step();  // closed form (checked at construction): it ignores what the phase wrote
    last = main_.get();
    if (t < W) {
      phase_->step();
      last = phase_.get();
    }
  }
  last_lr_ = last->get_last_lr();
}

void WarmupLR::reset_to_unstarted() {
  last_epoch_ = -1;
  main_->reset_to_unstarted();
  phase_->reset_to_unstarted();
}

json WarmupLR::extra_state() const {
  return json{{"warmup_state", phase_->state_dict()}, {"main_state", main_->state_dict()}};
}

void WarmupLR::load_extra_state(const json& state, const std::string& where) {
  if (!state.contains("warmup_state") || !state.contains("main_state"))
    throw util::UsageError(where + ": missing 'warmup_state' or 'main_state'");
  phase_->load_state_dict(state["warmup_state"]);
  main_->load_state_dict(state["main_state"]);
}

}  // namespace pz::optim
