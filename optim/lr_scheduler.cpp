#include "optim/lr_scheduler.h"

#include <stdexcept>

#include "optim/config_fields.h"
#include "util/error.h"

namespace pz::optim {

using nlohmann::json;

LRScheduler::LRScheduler(std::shared_ptr<ParamGroups> groups, bool chainable)
    : groups_(std::move(groups)), chainable_(chainable) {
  if (!groups_) throw std::invalid_argument("LRScheduler: no param groups");
  if (groups_->size() == 0) throw util::UsageError("the optimiser has no param groups to schedule");
  for (std::size_t g = 0; g < groups_->size(); ++g) base_lrs_.push_back(groups_->initial_lr_or_current(g));
  last_lr_.resize(base_lrs_.size());
  for (std::size_t g = 0; g < groups_->size(); ++g) last_lr_[g] = groups_->lr(g);
}

void LRScheduler::step() {
  const std::int64_t t = last_epoch_ + 1;
  check_step(t);
  last_epoch_ = t;
  update(t, Update::kStep);
}

void LRScheduler::step(double /*metric*/) { step(); }

void LRScheduler::initial_step() {
  check_step(0);
  last_epoch_ = 0;
  update(0, Update::kInitial);
}

void LRScheduler::restart() {
  check_step(0);
  last_epoch_ = 0;
  update(0, Update::kRestart);
}

void LRScheduler::check_group_count() const {
  if (groups_->size() != base_lrs_.size())
    throw util::UsageError("the optimiser now has " + std::to_string(groups_->size()) +
                           " param groups but the '" + type() + "' scheduler was built for " +
                           std::to_string(base_lrs_.size()) + "; build the scheduler after adding param groups");
}

void LRScheduler::update(std::int64_t t, Update how) {
  check_group_count();
  std::vector<double> lrs(num_groups());
  const bool closed = how == Update::kRestart || !chainable_;
  for (std::size_t g = 0; g < lrs.size(); ++g)
    lrs[g] = closed ? closed_form_lr(g, t) : chainable_lr(g, groups_->lr(g), t, how == Update::kInitial);
  write_lrs(lrs);
}

double LRScheduler::closed_form_lr(std::size_t, std::int64_t) const {
  throw std::logic_error("scheduler '" + type() + "' has no closed form");
}

double LRScheduler::chainable_lr(std::size_t group, double, std::int64_t t, bool) const {
  return closed_form_lr(group, t);
}

void LRScheduler::write_lrs(const std::vector<double>& lrs) {
  for (std::size_t g = 0; g < lrs.size(); ++g) groups_->set_lr(g, lrs[g]);
  last_lr_ = lrs;
}

json LRScheduler::config_header() const { return json{{"type", type()}, {"chainable", chainable_}}; }

json LRScheduler::state_dict() const {
  json state = extra_state();
  state["type"] = type();
  state["config"] = config();
  state["last_epoch"] = last_epoch_;
  state["base_lrs"] = json_doubles(base_lrs_);
  state["last_lr"] = json_doubles(last_lr_);
  return state;
}

void LRScheduler::load_state_dict(const json& state) {
  const std::string where = "scheduler state";
  if (!state.is_object()) throw util::UsageError(where + ": expected a JSON object from state_dict()");
  for (const char* key : {"type", "config", "last_epoch", "base_lrs", "last_lr"})
    if (!state.contains(key)) throw util::UsageError(where + ": missing '" + std::string(key) + "'; not a saved scheduler");
  if (state["type"] != type())
    throw util::UsageError(where + ": saved scheduler is '" + state["type"].dump() + "' but this one is '" + type() + "'");
  if (state["config"] != config())
    throw util::UsageError(where + ": the saved scheduler's config " + state["config"].dump() +
                           " differs from this scheduler's " + config().dump() +
                           "; rebuild it from the checkpoint (restore_scheduler) or keep the config unchanged");
  const auto base = doubles_from_json(state["base_lrs"], where + ".base_lrs");
  const auto last = doubles_from_json(state["last_lr"], where + ".last_lr");
  if (base.size() != groups_->size() || last.size() != groups_->size())
    throw util::UsageError(where + ": saved for " + std::to_string(base.size()) + " param groups, the optimiser has " +
                           std::to_string(groups_->size()));
  if (!state["last_epoch"].is_number_integer()) throw util::UsageError(where + ".last_epoch: expected an integer");
  load_extra_state(state, where);
  last_epoch_ = state["last_epoch"].get<std::int64_t>();
  base_lrs_ = base;
  for (std::size_t g = 0; g < base.size(); ++g) groups_->set_initial_lr(g, base[g]);
  write_lrs(last);
}

}  // namespace pz::optim
