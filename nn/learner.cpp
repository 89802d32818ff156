#include "nn/learner.h"

#include <torch/torch.h>

#include <cmath>
#include <cstdio>

#include "nn/files.h"
#include "optim/optimizer.h"
#include "optim/torch_param_groups.h"
#include "util/error.h"

namespace pz::nn {

namespace {

std::string format_number(double x) {
  if (std::isnan(x)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

}  // namespace

Learner::Learner(const games::Game& game, const LearnerConfig& config, std::uint64_t seed)
    : game_(game), config_(config), optimizer_config_(optim::parse_optimizer_config(config.optimizer, "learner.optimizer")) {
  torch::manual_seed(seed);
  net_ = make_network(config_.network, game.info());
  net_->train();
  optimizer_ = optim::make_optimizer(optimizer_config_, net_->named_parameters());
  scheduler_ = optim::make_scheduler(config_.scheduler, *optimizer_);
}

Learner::~Learner() = default;

double Learner::lr() const { return optimizer_->param_groups()[0].options().get_lr(); }

StepStats Learner::train_step(const Batch& batch) {
  const games::GameInfo& info = game_.info();
  const games::Shape& s = info.observation_shape;
  const std::int64_t n = batch.size;
  const std::int64_t p = info.policy_shape.size();
  const std::int64_t v = net_->shape().value_outputs;
  // from_blob does not copy: the batch outlives this step's tensors.
  auto obs = torch::from_blob(const_cast<float*>(batch.observations.data()), {n, s.channels, s.height, s.width});
  auto pi = torch::from_blob(const_cast<float*>(batch.policies.data()), {n, p});
  auto mask = torch::from_blob(const_cast<float*>(batch.policy_mask.data()), {n});
  auto z = torch::from_blob(const_cast<float*>(batch.values.data()), {n, v});

  net_->train();
  StepStats stats;
  stats.lr = lr();
  // The forward pass in training mode moves the batch-norm running statistics: kept, so that
  // a step that fails its checks leaves every buffer as it found it.
  std::vector<torch::Tensor> buffers_before;
  for (const auto& b : net_->buffers()) buffers_before.push_back(b.clone());
  optimizer_->zero_grad();
  const NetOutput out = net_->heads(obs);
  auto per_row = -(pi * torch::log_softmax(out.policy, 1)).sum(1);
  auto policy_loss = (per_row * mask).sum() / mask.sum().clamp_min(1.0);
  torch::Tensor value_loss;
  if (config_.network.wdl()) {
    // Outcomes in between (draws, scores, q_mix blends) become soft targets with the same
    // expectation: z ≥ 0 → (z, 1 − z, 0), z < 0 → (0, 1 + z, −z), so W − L = z.
    const auto target = torch::stack({z.clamp_min(0), 1 - z.abs(), (-z).clamp_min(0)}, 2);
    value_loss = -(target * torch::log_softmax(out.value_logits, 2)).sum(2).mean();
  } else {
    value_loss = torch::mse_loss(out.value, z);
  }
  auto loss = policy_loss + config_.value_weight * value_loss;
  loss.backward();
  stats.step = step_ + 1;
  stats.loss = loss.item<double>();
  stats.policy_loss = policy_loss.item<double>();
  stats.value_loss = value_loss.item<double>();
  if (auto norm = optim::clip_gradients(optimizer_config_, *optimizer_)) {
    stats.grad_norm = *norm;
  } else {
    stats.grad_norm = gradient_norm();
  }
  if (!step_is_finite(stats)) {
    restore_buffers(buffers_before);
    optimizer_->zero_grad();
    throw TrainingDiverged(stats.step, divergence_reason(stats));
  }
  optimizer_->step();
  if (!weights_finite()) {
    throw TrainingDiverged(stats.step, "weights became non-finite at step " + std::to_string(stats.step) + " (lr " +
                                           format_number(stats.lr) + ", gradient norm " +
                                           format_number(stats.grad_norm) + ")");
  }
  scheduler_->step();
  ++step_;
  return stats;
}

bool Learner::step_is_finite(const StepStats& stats) { return std::isfinite(stats.loss) && std::isfinite(stats.grad_norm); }

std::string Learner::divergence_reason(const StepStats& stats) {
  const std::string where = " at step " + std::to_string(stats.step) + ", lr " + format_number(stats.lr);
  if (!std::isfinite(stats.loss)) {
    return "loss is " + format_number(stats.loss) + " (policy " + format_number(stats.policy_loss) + ", value " +
           format_number(stats.value_loss) + ")" + where;
  }
  return "gradient norm is " + format_number(stats.grad_norm) + " (loss " + format_number(stats.loss) + ")" + where;
}

void Learner::restore_buffers(const std::vector<torch::Tensor>& saved) {
  torch::NoGradGuard no_grad;
  std::size_t i = 0;
  for (auto& b : net_->buffers()) b.copy_(saved[i++]);
}

// One reduction and one read: the per-parameter norms are stacked, not read one by one.
double Learner::gradient_norm() const {
  std::vector<torch::Tensor> norms;
  for (const auto& p : net_->parameters()) {
    if (p.grad().defined()) norms.push_back(p.grad().norm());
  }
  return norms.empty() ? 0.0 : torch::stack(norms).norm().item<double>();
}

bool Learner::weights_finite() const { return all_finite(*net_); }

void Learner::save_state(const std::string& path) const {
  write_atomically(path, [&](const std::string& tmp) {
    torch::serialize::OutputArchive archive;
    nlohmann::json meta = {{"step", step_}, {"scheduler", scheduler_->state_dict()},
                           {"optimizer", optimizer_config_.to_json()}};
    archive.write("learner", c10::IValue(meta.dump()));
    torch::serialize::OutputArchive opt;
    optimizer_->save(opt);
    archive.write("optimizer", opt);
    archive.write("torch_rng", at::detail::getDefaultCPUGenerator().get_state());
    archive.save_to(tmp);
  });
}

void Learner::load_state(const std::string& path) {
  torch::serialize::InputArchive archive;
  nlohmann::json meta;
  try {
    archive.load_from(path);
    c10::IValue text;
    archive.read("learner", text);
    meta = nlohmann::json::parse(text.toStringRef());
  } catch (const std::exception&) {
    throw util::UsageError("cannot read learner state " + path + ": missing, truncated or corrupt");
  }
  if (meta.value("optimizer", nlohmann::json()) != optimizer_config_.to_json()) {
    throw util::UsageError("learner state " + path + " was written for another optimiser config: " +
                           meta.value("optimizer", nlohmann::json()).dump());
  }
  try {
    torch::serialize::InputArchive opt;
    archive.read("optimizer", opt);
    optimizer_->load(opt);
    torch::Tensor rng;
    archive.read("torch_rng", rng);
    auto generator = at::detail::getDefaultCPUGenerator();
    generator.set_state(rng);
  } catch (const std::exception&) {
    throw util::UsageError("learner state " + path + ": the optimiser state does not fit this network");
  }
  // The saved schedule wins over the configured one (its config travels with its state), so a
  // resumed run keeps the schedule it started with; restoring writes the saved lrs back.
  scheduler_ = optim::restore_scheduler(meta.at("scheduler"), *optimizer_);
  step_ = meta.at("step").get<std::int64_t>();
}

}  // namespace pz::nn
