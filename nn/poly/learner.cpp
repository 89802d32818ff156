#include "nn/poly/learner.h"

#include <cmath>

#include "nn/poly/update_kernels.h"
#include "nn/safetensors.h"
#include "optim/scheduler_factory.h"
#include "util/error.h"
#include "util/fnv1a.h"

namespace pz::nn {

namespace {

const char kStateKey[] = "polyzero_learner";

}  // namespace

std::vector<optim::PlainParameter> trainable_parameters(const std::vector<WeightSlot>& slots) {
  std::vector<optim::PlainParameter> params;
  for (const WeightSlot& s : slots) {
    if (s.trainable) params.push_back({s.name, static_cast<std::int64_t>(s.shape.size()), s.size()});
  }
  return params;
}

PolyLearner::PolyLearner(const games::GameInfo& info, const LearnerConfig& config, std::uint64_t seed,
                         const std::string& cache_dir)
    : config_(config),
      optimizer_config_(optim::parse_optimizer_config(config.optimizer, "learner.optimizer")),
      backprop_((check_net_config(config.network, info), config.network), net_shape(info), cache_dir),
      weights_(backprop_.initial_weights(seed)),
      update_kernels_(compile_update_kernels(cache_dir)) {
  for (const WeightSlot& s : backprop_.slots()) {
    if (s.trainable) trainable_.push_back(s.name);
  }
  optimizer_ = std::make_shared<optim::PlainOptimizer>(optimizer_config_, trainable_parameters(backprop_.slots()));
  optimizer_->set_update_kernels(update_kernels_.get());
  scheduler_ = optim::build_scheduler(config_.scheduler, optimizer_);
}

PolyLearner::~PolyLearner() = default;

void PolyLearner::set_group(DataParallelGroup* group) {
  if (group != nullptr) {
    throw util::UsageError("several learners per run need the learner with LibTorch (learner.backend \"torch\" in a "
                           "build with LibTorch); this one trains alone");
  }
}

double PolyLearner::lr() const { return optimizer_->lr(0); }

StepStats PolyLearner::train_step(const Batch& batch) {
  StepStats stats;
  stats.step = step_ + 1;
  stats.lr = lr();
  // The pass moves the running statistics: kept, so that a failed check leaves them as found.
  NetWeights statistics_before;
  for (const WeightSlot& s : backprop_.slots()) {
    if (!s.trainable) statistics_before[s.name] = weights_.at(s.name);
  }
  const LossValues loss =
      backprop_.run(weights_, batch, {config_.value_weight, config_.ownership_weight, config_.score_weight}, gradients_);
  stats.loss = loss.total;
  stats.policy_loss = loss.policy;
  stats.value_loss = loss.value;
  stats.ownership_loss = loss.ownership;
  stats.score_loss = loss.score;
  stats.grad_norm = clip_or_measure_gradients();
  if (!step_is_finite(stats)) {
    for (auto& [name, tensor] : statistics_before) weights_[name] = std::move(tensor);
    throw TrainingDiverged(stats.step, divergence_reason(stats));
  }
  std::vector<float*> values;
  std::vector<const float*> gradients;
  for (const std::string& name : trainable_) {
    values.push_back(weights_.at(name).values.data());
    gradients.push_back(gradients_.at(name).values.data());
  }
  optimizer_->step(values, gradients);
  if (!weights_finite()) throw TrainingDiverged(stats.step, weights_divergence_reason(stats));
  scheduler_->step();
  ++step_;
  return stats;
}

double PolyLearner::clip_or_measure_gradients() {
  std::vector<float*> gradients;
  std::vector<std::size_t> sizes;
  for (const std::string& name : trainable_) {
    auto& g = gradients_.at(name).values;
    gradients.push_back(g.data());
    sizes.push_back(g.size());
  }
  if (optimizer_config_.clip_grad_norm) {
    return optim::clip_gradient_norm(gradients, sizes, *optimizer_config_.clip_grad_norm, optimizer_config_.clip_norm_type,
                                     update_kernels_.get());
  }
  return optim::gradient_norm(std::vector<const float*>(gradients.begin(), gradients.end()), sizes, 2.0,
                              update_kernels_.get());
}

bool PolyLearner::weights_finite() const {
  for (const std::string& name : trainable_) {
    for (float x : weights_.at(name).values) {
      if (!std::isfinite(x)) return false;
    }
  }
  return true;
}

void PolyLearner::set_weights(const NetWeights& weights) {
  NetWeights next;
  for (const WeightSlot& s : backprop_.slots()) {
    const auto found = weights.find(s.name);
    if (found == weights.end()) throw util::UsageError("the weights have no tensor '" + s.name + "' that the network needs");
    if (found->second.values.size() != s.size()) {
      throw util::UsageError("the weights' '" + s.name + "' has " + std::to_string(found->second.values.size()) +
                             " values; the network's has " + std::to_string(s.size()));
    }
    next[s.name] = {s.shape, found->second.values};
  }
  weights_ = std::move(next);
}

std::uint64_t PolyLearner::weights_hash() const {
  std::uint64_t h = util::kFnv1aOffsetBasis;
  for (const WeightSlot& s : backprop_.slots()) {
    const auto& v = weights_.at(s.name).values;
    h = util::fnv1a(v.data(), v.size() * sizeof(float), h);
  }
  return h;
}

void PolyLearner::save_state(const std::string& path) const {
  Safetensors file;
  for (auto& [name, values] : optimizer_->state()) {
    file.tensors[name] = {{static_cast<std::int64_t>(values.size())}, values};
  }
  const nlohmann::json meta = {{"step", step_}, {"scheduler", scheduler_->state_dict()},
                               {"optimizer", optimizer_config_.to_json()}};
  file.metadata[kStateKey] = meta.dump();
  write_safetensors(path, file);
}

void PolyLearner::load_state(const std::string& path) {
  Safetensors file;
  nlohmann::json meta;
  try {
    file = read_safetensors(path);
    meta = nlohmann::json::parse(file.metadata.at(kStateKey));
  } catch (const util::UsageError& e) {
    throw util::UsageError("cannot read learner state " + path + ": " + e.what());
  } catch (const std::exception&) {
    throw util::UsageError("learner state " + path + " has no \"" + kStateKey +
                           "\" metadata: it is not a polyzero learner state");
  }
  if (meta.value("optimizer", nlohmann::json()) != optimizer_config_.to_json()) {
    throw util::UsageError("learner state " + path + " was written for another optimiser config: " +
                           meta.value("optimizer", nlohmann::json()).dump());
  }
  optim::PlainState state;
  for (auto& [name, tensor] : file.tensors) state[name] = std::move(tensor.values);
  try {
    optimizer_->load_state(state);
  } catch (const util::UsageError& e) {
    throw util::UsageError("learner state " + path + ": " + e.what());
  }
  // The saved schedule wins over the configured one (its config travels with its state), so a
  // resumed run keeps the schedule it started with; restoring writes the saved lrs back.
  scheduler_ = optim::restore_scheduler(meta.at("scheduler"), optimizer_);
  step_ = meta.at("step").get<std::int64_t>();
}

}  // namespace pz::nn
