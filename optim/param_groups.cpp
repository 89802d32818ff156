#include "optim/param_groups.h"

#include <stdexcept>
#include <string>

namespace pz::optim {

double ParamGroups::momentum(std::size_t) const {
  throw std::logic_error("this optimiser has no momentum or beta1 to read");
}

void ParamGroups::set_momentum(std::size_t, double) {
  throw std::logic_error("this optimiser has no momentum or beta1 to set");
}

double ParamGroups::initial_lr_or_current(std::size_t group) {
  if (auto v = initial_lr(group)) return *v;
  const double current = lr(group);
  set_initial_lr(group, current);
  return current;
}

std::optional<double> ParamGroups::initial_lr(std::size_t group) const {
  return group < initial_lrs_.size() ? initial_lrs_[group] : std::nullopt;
}

void ParamGroups::set_initial_lr(std::size_t group, double lr) {
  if (initial_lrs_.size() <= group) initial_lrs_.resize(group + 1);
  initial_lrs_[group] = lr;
}

VectorParamGroups::VectorParamGroups(std::vector<double> lrs, MomentumKind kind, std::vector<double> momenta)
    : lrs_(std::move(lrs)), kind_(kind), momenta_(std::move(momenta)) {
  if (kind_ != MomentumKind::kNone && momenta_.empty()) momenta_.assign(lrs_.size(), 0.0);
  if (kind_ != MomentumKind::kNone && momenta_.size() != lrs_.size())
    throw std::invalid_argument("VectorParamGroups: " + std::to_string(momenta_.size()) + " momenta for " +
                                std::to_string(lrs_.size()) + " groups");
}

double VectorParamGroups::momentum(std::size_t group) const {
  if (kind_ == MomentumKind::kNone) return ParamGroups::momentum(group);
  return momenta_.at(group);
}

void VectorParamGroups::set_momentum(std::size_t group, double momentum) {
  if (kind_ == MomentumKind::kNone) return ParamGroups::set_momentum(group, momentum);
  momenta_.at(group) = momentum;
}

}  // namespace pz::optim
