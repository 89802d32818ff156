#include "optim/plain_optimizer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "util/error.h"

namespace pz::optim {

PlainOptimizer::PlainOptimizer(const OptimizerConfig& config, std::vector<PlainParameter> params)
    : config_(config), params_(std::move(params)), slots_(params_.size()) {
  if (params_.empty()) throw util::UsageError("optimizer: the model has no trainable parameters");
  std::vector<ParamInfo> infos;
  for (const PlainParameter& p : params_) infos.push_back({p.name, p.ndim});
  const GroupAssignment assignment = assign_param_groups(config_, infos);
  for (std::size_t g = 0; g < assignment.members.size(); ++g) {
    const int rule = assignment.rule[g];
    groups_.push_back({rule < 0 ? config_.options : config_.param_groups[static_cast<std::size_t>(rule)].options,
                       assignment.members[g]});
  }
}

void PlainOptimizer::step(const std::vector<float*>& values, const std::vector<const float*>& gradients) {
  if (values.size() != params_.size() || gradients.size() != params_.size()) {
    throw std::invalid_argument("optimizer: " + std::to_string(values.size()) + " parameters and " +
                                std::to_string(gradients.size()) + " gradients for " + std::to_string(params_.size()));
  }
  for (const Group& group : groups_) {
    for (std::size_t i : group.members) {
      if (config_.type == "sgd") {
        sgd_step(group.options, i, values[i], gradients[i]);
      } else {
        adam_step(group.options, i, values[i], gradients[i]);
      }
    }
  }
}

void PlainOptimizer::sgd_step(const OptimizerOptions& o, std::size_t i, float* p, const float* g) {
  const std::size_t n = params_[i].size;
  const auto wd = static_cast<float>(o.weight_decay), mu = static_cast<float>(o.momentum);
  scratch_.resize(n);
  if (kernels_ && kernels_->sgd_momentum && kernels_->sgd) {
    const auto lr = static_cast<float>(-o.lr);
    if (o.momentum == 0) {
      const float h[] = {wd, lr};
      kernels_->sgd(static_cast<int>(n), h, p, g);
      return;
    }
    std::vector<float>& buf = slots_[i].momentum_buffer;
    const bool first = buf.empty();
    if (first) buf.assign(n, 0.0f);
    const float h[] = {wd, first ? 0.0f : mu, first ? 1.0f : static_cast<float>(1 - o.dampening),
                       o.nesterov ? 1.0f : 0.0f, o.nesterov ? mu : 1.0f, lr};
    kernels_->sgd_momentum(static_cast<int>(n), h, p, g, buf.data(), scratch_.data());
    return;
  }
  float* d = scratch_.data();
  for (std::size_t k = 0; k < n; ++k) d[k] = o.weight_decay != 0 ? g[k] + wd * p[k] : g[k];
  if (o.momentum != 0) {
    std::vector<float>& buf = slots_[i].momentum_buffer;
    if (buf.empty()) {
      buf.assign(d, d + n);
    } else {
      const auto keep = static_cast<float>(1 - o.dampening);
      for (std::size_t k = 0; k < n; ++k) buf[k] = buf[k] * mu + d[k] * keep;
    }
    for (std::size_t k = 0; k < n; ++k) d[k] = o.nesterov ? d[k] + buf[k] * mu : buf[k];
  }
  const auto lr = static_cast<float>(o.lr);
  for (std::size_t k = 0; k < n; ++k) p[k] += d[k] * -lr;
}

void PlainOptimizer::adam_step(const OptimizerOptions& o, std::size_t i, float* p, const float* g) {
  const std::size_t n = params_[i].size;
  Slots& s = slots_[i];
  if (s.exp_avg.empty()) {
    s.exp_avg.assign(n, 0.0f);
    s.exp_avg_sq.assign(n, 0.0f);
  }
  if (o.amsgrad && s.max_exp_avg_sq.empty()) s.max_exp_avg_sq.assign(n, 0.0f);
  const bool decoupled = config_.type == "adamw";
  const bool shrinks = decoupled && o.weight_decay != 0, couples = !decoupled && o.weight_decay != 0;
  const auto shrink = shrinks ? static_cast<float>(1 - o.lr * o.weight_decay) : 1.0f;
  ++s.step;
  const double bias_correction1 = 1 - std::pow(o.beta1, static_cast<double>(s.step));
  const double bias_correction2 = 1 - std::pow(o.beta2, static_cast<double>(s.step));
  const auto b1 = static_cast<float>(o.beta1), b2 = static_cast<float>(o.beta2);
  const auto one_minus_b1 = static_cast<float>(1 - o.beta1), one_minus_b2 = static_cast<float>(1 - o.beta2);
  const auto wd = static_cast<float>(o.weight_decay), eps = static_cast<float>(o.eps);
  const auto root_bc2 = static_cast<float>(std::sqrt(bias_correction2));
  const auto step_size = static_cast<float>(o.lr / bias_correction1);
  if (kernels_ && kernels_->adam && kernels_->adam_amsgrad) {
    const float h[] = {shrink, couples ? wd : 0.0f, b1, one_minus_b1, b2, one_minus_b2, root_bc2, eps, -step_size};
    scratch_.resize(n);
    if (o.amsgrad) {
      kernels_->adam_amsgrad(static_cast<int>(n), h, p, g, s.exp_avg.data(), s.exp_avg_sq.data(), s.max_exp_avg_sq.data(),
                             scratch_.data());
    } else {
      kernels_->adam(static_cast<int>(n), h, p, g, s.exp_avg.data(), s.exp_avg_sq.data(), scratch_.data());
    }
    return;
  }
  if (shrinks) {
    for (std::size_t k = 0; k < n; ++k) p[k] *= shrink;
  }
  for (std::size_t k = 0; k < n; ++k) {
    const float grad = couples ? g[k] + wd * p[k] : g[k];
    s.exp_avg[k] = s.exp_avg[k] * b1 + grad * one_minus_b1;
    s.exp_avg_sq[k] = s.exp_avg_sq[k] * b2 + grad * grad * one_minus_b2;
    float second = s.exp_avg_sq[k];
    if (o.amsgrad) second = s.max_exp_avg_sq[k] = std::max(s.max_exp_avg_sq[k], second);
    const float denom = std::sqrt(second) / root_bc2 + eps;
    p[k] += s.exp_avg[k] / denom * -step_size;
  }
}

PlainOptimizer::Group& PlainOptimizer::group_at(std::size_t group) {
  if (group >= groups_.size()) {
    throw std::out_of_range("param group " + std::to_string(group) + " of " + std::to_string(groups_.size()));
  }
  return groups_[group];
}
const PlainOptimizer::Group& PlainOptimizer::group_at(std::size_t group) const {
  return const_cast<PlainOptimizer*>(this)->group_at(group);
}

double PlainOptimizer::lr(std::size_t group) const { return group_at(group).options.lr; }
void PlainOptimizer::set_lr(std::size_t group, double lr) { group_at(group).options.lr = lr; }

MomentumKind PlainOptimizer::momentum_kind() const {
  return config_.type == "sgd" ? MomentumKind::kMomentum : MomentumKind::kBeta1;
}
double PlainOptimizer::momentum(std::size_t group) const {
  const OptimizerOptions& o = group_at(group).options;
  return config_.type == "sgd" ? o.momentum : o.beta1;
}
void PlainOptimizer::set_momentum(std::size_t group, double momentum) {
  OptimizerOptions& o = group_at(group).options;
  (config_.type == "sgd" ? o.momentum : o.beta1) = momentum;
}

PlainState PlainOptimizer::state() const {
  PlainState out;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const Slots& s = slots_[i];
    const std::string& name = params_[i].name;
    if (!s.momentum_buffer.empty()) out[name + ".momentum_buffer"] = s.momentum_buffer;
    if (!s.exp_avg.empty()) {
      out[name + ".exp_avg"] = s.exp_avg;
      out[name + ".exp_avg_sq"] = s.exp_avg_sq;
      out[name + ".step"] = {static_cast<float>(s.step)};
    }
    if (!s.max_exp_avg_sq.empty()) out[name + ".max_exp_avg_sq"] = s.max_exp_avg_sq;
  }
  return out;
}

void PlainOptimizer::load_state(const PlainState& state) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < params_.size(); ++i) index[params_[i].name] = i;
  std::vector<Slots> slots(params_.size());
  for (const auto& [key, values] : state) {
    const std::size_t dot = key.rfind('.');
    const auto found = dot == std::string::npos ? index.end() : index.find(key.substr(0, dot));
    if (found == index.end()) throw util::UsageError("optimizer state: '" + key + "' names no parameter of this network");
    const std::string field = key.substr(dot + 1);
    Slots& s = slots[found->second];
    const std::size_t expected = field == "step" ? 1 : params_[found->second].size;
    if (values.size() != expected) {
      throw util::UsageError("optimizer state: '" + key + "' has " + std::to_string(values.size()) + " values, the network " +
                             std::to_string(expected));
    }
    if (field == "momentum_buffer") s.momentum_buffer = values;
    else if (field == "exp_avg") s.exp_avg = values;
    else if (field == "exp_avg_sq") s.exp_avg_sq = values;
    else if (field == "max_exp_avg_sq") s.max_exp_avg_sq = values;
    else if (field == "step") s.step = static_cast<std::int64_t>(values[0]);
    else throw util::UsageError("optimizer state: '" + key + "' is not a state this optimiser keeps");
  }
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const Slots& s = slots[i];
    if (s.exp_avg.empty() != s.exp_avg_sq.empty()) {
      const std::string& name = params_[i].name;
      throw util::UsageError("optimizer state: '" + name + (s.exp_avg.empty() ? ".exp_avg_sq' without '" : ".exp_avg' without '") +
                             name + (s.exp_avg.empty() ? ".exp_avg'" : ".exp_avg_sq'") + ": the two moments are kept together");
    }
  }
  slots_ = std::move(slots);
}

double gradient_norm(const std::vector<const float*>& gradients, const std::vector<std::size_t>& sizes, double norm_type,
                     const UpdateKernels* kernels) {
  const bool infinity = std::isinf(norm_type);
  double total = 0;
  if (norm_type == 2.0 && kernels && kernels->sum_of_squares) {
    for (std::size_t i = 0; i < gradients.size(); ++i) {
      float squares = 0;
      kernels->sum_of_squares(static_cast<int>(sizes[i]), gradients[i], &squares);
      if (std::isinf(squares)) {  // past float's range: this gradient's sum again in double
        double sum = 0;
        for (std::size_t k = 0; k < sizes[i]; ++k) sum += static_cast<double>(gradients[i][k]) * gradients[i][k];
        total += sum;
      } else {
        total += squares;
      }
    }
    return std::sqrt(total);
  }
  for (std::size_t i = 0; i < gradients.size(); ++i) {
    for (std::size_t k = 0; k < sizes[i]; ++k) {
      const double a = std::fabs(static_cast<double>(gradients[i][k]));
      total = infinity ? std::max(total, a) : total + (norm_type == 2.0 ? a * a : std::pow(a, norm_type));
      if (std::isnan(a)) total = std::numeric_limits<double>::quiet_NaN();
    }
  }
  return infinity ? total : std::pow(total, 1.0 / norm_type);
}

double clip_gradient_norm(const std::vector<float*>& gradients, const std::vector<std::size_t>& sizes, double max_norm,
                          double norm_type, const UpdateKernels* kernels) {
  const double norm =
      gradient_norm(std::vector<const float*>(gradients.begin(), gradients.end()), sizes, norm_type, kernels);
  const double coefficient = max_norm / (norm + 1e-6);
  if (coefficient < 1) {
    const auto c = static_cast<float>(coefficient);
    for (std::size_t i = 0; i < gradients.size(); ++i) {
      if (kernels && kernels->scale) {
        kernels->scale(static_cast<int>(sizes[i]), &c, gradients[i]);
      } else {
        for (std::size_t k = 0; k < sizes[i]; ++k) gradients[i][k] *= c;
      }
    }
  }
  return norm;
}

}  // namespace pz::optim
