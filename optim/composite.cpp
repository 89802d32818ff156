#include "optim/composite.h"

#include <algorithm>
#include <stdexcept>

#include "util/error.h"

namespace pz::optim {

using nlohmann::json;

namespace {

void check_children(const std::vector<std::unique_ptr<LRScheduler>>& schedulers, const ParamGroups& groups,
                    const std::string& who) {
  if (schedulers.empty()) throw util::UsageError(who + ": needs at least one scheduler in \"schedulers\"");
  for (std::size_t i = 0; i < schedulers.size(); ++i) {
    if (!schedulers[i]) throw util::UsageError(who + ": scheduler " + std::to_string(i) + " is missing");
    if (&schedulers[i]->groups() != &groups)
      throw util::UsageError(who + ": scheduler " + std::to_string(i) +
                             " acts on a different optimiser; every sub-scheduler must share the composite's param groups");
  }
}

json states_of(const std::vector<std::unique_ptr<LRScheduler>>& schedulers) {
  json out = json::array();
  for (const auto& s : schedulers) out.push_back(s->state_dict());
  return out;
}

json configs_of(const std::vector<std::unique_ptr<LRScheduler>>& schedulers) {
  json out = json::array();
  for (const auto& s : schedulers) out.push_back(s->config());
  return out;
}

}  // namespace

// ---- SequentialLR ----------------------------------------------------------------------

SequentialLR::SequentialLR(std::shared_ptr<ParamGroups> groups, std::vector<std::unique_ptr<LRScheduler>> schedulers,
                           std::vector<std::int64_t> milestones, bool chainable)
    : LRScheduler(std::move(groups), chainable), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  check_children(schedulers_, *groups_, "sequential");
  if (milestones_.size() + 1 != schedulers_.size())
    throw util::UsageError("sequential: " + std::to_string(schedulers_.size()) + " schedulers need " +
                           std::to_string(schedulers_.size() - 1) + " milestone(s), got " +
                           std::to_string(milestones_.size()));
  for (std::size_t i = 0; i < milestones_.size(); ++i) {
    if (milestones_[i] < 1) throw util::UsageError("sequential: milestones must be >= 1");
    if (i > 0 && milestones_[i] <= milestones_[i - 1])
      throw util::UsageError("sequential: milestones must be strictly increasing");
  }
  initial_step();
}

json SequentialLR::config() const {
  json c = config_header();
  c["schedulers"] = configs_of(schedulers_);
  c["milestones"] = milestones_;
  return c;
}

bool SequentialLR::needs_metric() const {
  return std::any_of(schedulers_.begin(), schedulers_.end(), [](const auto& s) { return s->needs_metric(); });
}

bool SequentialLR::depends_on_current_lr() const {
  return std::any_of(schedulers_.begin(), schedulers_.end(), [](const auto& s) { return s->depends_on_current_lr(); });
}

std::size_t SequentialLR::active_index(std::int64_t t) const {
  return static_cast<std::size_t>(std::upper_bound(milestones_.begin(), milestones_.end(), t) - milestones_.begin());
}

void SequentialLR::update(std::int64_t t, Update how) {
  check_group_count();
  // Ordinary steps go through advance(), which routes them to the active sub-scheduler.
  if (how == Update::kStep) throw std::logic_error(type() + ": update(kStep) is not used; step() advances");
  (void)t;
  write_lrs(base_lrs_);
  for (auto& s : schedulers_) s->reset_to_unstarted();
  if (how == Update::kInitial) {
    schedulers_[0]->initial_step();
  } else {
    schedulers_[0]->restart();
  }
  last_lr_ = schedulers_[0]->get_last_lr();
}

void SequentialLR::check_step(std::int64_t t) const {
  const std::size_t i = active_index(t);
  const auto& s = *schedulers_[i];
  if (i > 0 && milestones_[i - 1] == t) {
    s.check_step(0);
  } else {
    s.check_step(s.last_epoch_ + 1);
  }
}

void SequentialLR::advance(std::optional<double> metric) {
  check_group_count();
  const std::int64_t t = last_epoch_ + 1;
  check_step(t);
  last_epoch_ = t;
  const std::size_t i = active_index(t);
  auto& s = *schedulers_[i];
  if (i > 0 && milestones_[i - 1] == t) {
    s.restart();
  } else if (metric) {
    s.step(*metric);
  } else {
    s.step();
  }
  last_lr_ = s.get_last_lr();
}

void SequentialLR::reset_to_unstarted() {
  last_epoch_ = -1;
  for (auto& s : schedulers_) s->reset_to_unstarted();
}

json SequentialLR::extra_state() const { return json{{"schedulers", states_of(schedulers_)}}; }

void SequentialLR::load_extra_state(const json& state, const std::string& where) {
  if (!state.contains("schedulers") || !state["schedulers"].is_array() || state["schedulers"].size() != schedulers_.size())
    throw util::UsageError(where + ".schedulers: expected " + std::to_string(schedulers_.size()) + " sub-scheduler states");
  for (std::size_t i = 0; i < schedulers_.size(); ++i) schedulers_[i]->load_state_dict(state["schedulers"][i]);
}

// ---- ChainedScheduler ------------------------------------------------------------------

ChainedScheduler::ChainedScheduler(std::shared_ptr<ParamGroups> groups,
                                   std::vector<std::unique_ptr<LRScheduler>> schedulers)
    : LRScheduler(std::move(groups), /*chainable=*/true), schedulers_(std::move(schedulers)) {
  check_children(schedulers_, *groups_, "chained");
  for (std::size_t i = 0; i < schedulers_.size(); ++i) {
    if (schedulers_[i]->needs_metric())
      throw util::UsageError("chained: scheduler " + std::to_string(i) + " ('" + schedulers_[i]->type() +
                             "') needs a metric; ChainedScheduler cannot drive it (use it inside \"sequential\" or alone)");
    if (!schedulers_[i]->chainable())
      throw util::UsageError("chained: scheduler " + std::to_string(i) + " ('" + schedulers_[i]->type() +
                             "') must be chainable: ChainedScheduler composes the recursive forms; drop its "
                             "\"chainable\": false");
  }
  // PyTorch's ChainedScheduler does not step at construction: each sub-scheduler already
  // applied its own initial step.
  last_epoch_ = 0;
  for (std::size_t g = 0; g < num_groups(); ++g) last_lr_[g] = groups_->lr(g);
}

json ChainedScheduler::config() const {
  json c = config_header();
  c["schedulers"] = configs_of(schedulers_);
  return c;
}

void ChainedScheduler::update(std::int64_t, Update how) {
  check_group_count();
  if (how == Update::kStep) {
    for (auto& s : schedulers_) s->step();
  } else {
    // Restarting (inside a SequentialLR) replays construction from the base lrs.
    write_lrs(base_lrs_);
    for (auto& s : schedulers_) s->initial_step();
  }
  for (std::size_t g = 0; g < num_groups(); ++g) last_lr_[g] = groups_->lr(g);
}

void ChainedScheduler::check_step(std::int64_t) const {
  for (const auto& s : schedulers_) s->check_step(s->last_epoch_ + 1);
}

void ChainedScheduler::reset_to_unstarted() {
  last_epoch_ = -1;
  for (auto& s : schedulers_) s->reset_to_unstarted();
}

json ChainedScheduler::extra_state() const { return json{{"schedulers", states_of(schedulers_)}}; }

void ChainedScheduler::load_extra_state(const json& state, const std::string& where) {
  if (!state.contains("schedulers") || !state["schedulers"].is_array() || state["schedulers"].size() != schedulers_.size())
    throw util::UsageError(where + ".schedulers: expected " + std::to_string(schedulers_.size()) + " sub-scheduler states");
  for (std::size_t i = 0; i < schedulers_.size(); ++i) schedulers_[i]->load_state_dict(state["schedulers"][i]);
}

}  // namespace pz::optim
