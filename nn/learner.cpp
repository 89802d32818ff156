#include "nn/learner.h"

#include <torch/torch.h>

#include <malloc.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

#include "nn/files.h"
#include "nn/poly/training.h"
#include "optim/optimizer.h"
#include "optim/torch_param_groups.h"
#include "util/error.h"
#include "util/fnv1a.h"

namespace pz::nn {

namespace {

// A step allocates and frees tens of MiB of activations and gradients (LibTorch's CPU
// allocator does not cache). With glibc's defaults the top of the heap is returned to the
// system between steps and every page faults back in on the next one; a learner keeps
// what it freed for the next step instead (glibc's M_TRIM_THRESHOLD, M_MMAP_THRESHOLD).
void keep_freed_memory_for_the_next_step() {
  static const bool done = [] {
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    return true;
  }();
  (void)done;
}

}  // namespace

void register_torch_learner() {
  set_torch_learner_maker([](const games::Game& game, const LearnerConfig& config,
                             std::uint64_t seed) -> std::unique_ptr<TrainingLearner> {
    return std::make_unique<Learner>(game, config, seed);
  });
}

Learner::Learner(const games::Game& game, const LearnerConfig& config, std::uint64_t seed)
    : game_(game), config_(config), optimizer_config_(optim::parse_optimizer_config(config.optimizer, "learner.optimizer")) {
  keep_freed_memory_for_the_next_step();
  torch::manual_seed(seed);
  net_ = make_network(config_.network, game.info());
  net_->train();
  if (config_.backend == "poly") {
    poly_ = std::make_unique<PolyTrainingNet>(config_.network, net_->shape(), config_.fusion_batch);
  } else if (config_.backend == "auto") {
    try {
      poly_ = std::make_unique<PolyTrainingNet>(config_.network, net_->shape(), config_.fusion_batch);
    } catch (const util::UsageError&) {
      throw;
    } catch (const std::runtime_error& e) {
      static std::atomic<bool> warned{false};
      if (!warned.exchange(true)) std::cerr << "warning: " << e.what() << "\nwarning: the learner uses LibTorch's ops\n";
    }
  } else if (config_.backend != "torch") {
    throw util::UsageError("learner.backend: \"" + config_.backend + "\" is not one of \"auto\", \"torch\", \"poly\"");
  }
  optimizer_ = optim::make_optimizer(optimizer_config_, net_->named_parameters());
  scheduler_ = optim::make_scheduler(config_.scheduler, *optimizer_);
}

Learner::~Learner() = default;

NetOutput Learner::heads(const torch::Tensor& observations) {
  return poly_ ? poly_->heads(*net_, observations) : net_->heads(observations);
}

namespace {

// Mean of per-row losses over the rows whose mask is 1.
torch::Tensor masked_mean(const torch::Tensor& per_row, const torch::Tensor& mask) {
  return (per_row * mask).sum() / mask.sum().clamp_min(1.0);
}

}  // namespace

Learner::LossTerms Learner::losses(const NetOutput& out, const Batch& batch, const torch::Tensor& pi,
                                   const torch::Tensor& mask, const torch::Tensor& z) const {
  LossTerms t;
  if (poly_) {
    t.policy = poly_->policy_loss(out.policy, pi, mask);
    t.value = poly_->value_loss(out, z);
  } else {
    t.policy = masked_mean(-(pi * torch::log_softmax(out.policy, 1)).sum(1), mask);
    // Outcomes in between (draws, scores, q_mix blends) become soft targets with the same
    // expectation (wdl_targets).
    t.value = config_.network.wdl() ? -(wdl_targets(z) * torch::log_softmax(out.value_logits, 2)).sum(2).mean()
                                    : torch::mse_loss(out.value, z);
  }
  t.ownership = t.score = torch::zeros({}, torch::kFloat32);
  if (!config_.network.auxiliary()) return t;
  const std::int64_t n = batch.size;
  if (batch.auxiliary_mask.size() != static_cast<std::size_t>(n)) {
    throw std::invalid_argument("learner: the network has auxiliary heads, the batch has no auxiliary targets");
  }
  const auto aux_mask = torch::from_blob(const_cast<float*>(batch.auxiliary_mask.data()), {n});
  if (config_.network.ownership) {
    const auto owner = torch::from_blob(const_cast<float*>(batch.ownership.data()), out.ownership.sizes());
    // (1 + tanh x)/2 = sigmoid(2x): the binary cross-entropy of the logits doubled.
    const auto per_cell = torch::binary_cross_entropy_with_logits(2 * out.ownership, (1 + owner) / 2, {}, {},
                                                                   torch::Reduction::None);
    t.ownership = masked_mean(per_cell.mean(1), aux_mask);
  }
  if (config_.network.score) {
    const auto score = torch::from_blob(const_cast<float*>(batch.score.data()), {n});
    t.score = masked_mean((out.score.squeeze(1) - score).square(), aux_mask);
  }
  return t;
}

NetWeights Learner::current_weights() const { return export_weights(*net_); }

void Learner::set_weights(const NetWeights& weights) {
  try {
    import_weights(weights, *net_);
  } catch (const std::runtime_error& e) {
    throw util::UsageError(std::string("the weights do not fit the network: ") + e.what());
  }
}

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
  const NetOutput out = heads(obs);
  LossTerms terms = losses(out, batch, pi, mask, z);
  auto loss = terms.total(config_);
  loss.backward();
  stats.step = step_ + 1;
  if (group_ != nullptr) average_over_group(loss, terms);
  stats.loss = loss.item<double>();
  stats.policy_loss = terms.policy.item<double>();
  stats.value_loss = terms.value.item<double>();
  stats.ownership_loss = terms.ownership.item<double>();
  stats.score_loss = terms.score.item<double>();
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
    throw TrainingDiverged(stats.step, weights_divergence_reason(stats));
  }
  scheduler_->step();
  ++step_;
  return stats;
}

void Learner::average_over_group(torch::Tensor& loss, LossTerms& terms) {
  torch::NoGradGuard no_grad;
  auto params = net_->parameters();
  std::vector<torch::Tensor> buffers;
  for (const auto& b : net_->buffers()) {
    if (b.is_floating_point()) buffers.push_back(b);
  }
  const auto dtype = params.empty() ? torch::kFloat32 : params.front().scalar_type();
  std::vector<torch::Tensor> parts;
  parts.reserve(params.size() + buffers.size() + 1);
  for (const auto& p : params) {
    parts.push_back(p.grad().defined() ? p.grad().reshape(-1).to(dtype) : torch::zeros({p.numel()}, dtype));
  }
  for (const auto& b : buffers) parts.push_back(b.reshape(-1).to(dtype));
  parts.push_back(torch::stack({loss.detach(), terms.policy.detach(), terms.value.detach(), terms.ownership.detach(),
                                terms.score.detach()})
                      .reshape(-1)
                      .to(dtype));
  torch::Tensor flat = torch::cat(parts);
  group_->all_reduce_sum(flat);
  flat.div_(static_cast<double>(group_->world_size()));
  std::int64_t offset = 0;
  const auto take = [&](const torch::Tensor& like) {
    auto slice = flat.narrow(0, offset, like.numel()).view(like.sizes());
    offset += like.numel();
    return slice;
  };
  for (auto& p : params) {
    auto mean = take(p);
    if (p.grad().defined()) {
      p.mutable_grad().copy_(mean);
    } else {
      p.mutable_grad() = mean.clone();
    }
  }
  for (auto& b : buffers) b.copy_(take(b));
  const auto losses = take(torch::empty({5})).to(torch::kFloat64);
  loss = losses[0];
  terms = {losses[1], losses[2], losses[3], losses[4]};
}

void Learner::broadcast_from_root() {
  if (group_ == nullptr) return;
  torch::NoGradGuard no_grad;
  // Parameters and buffers (counters included) as float64: exact for float32 and for integers
  // below 2^53.
  std::vector<torch::Tensor> tensors;
  for (const auto& p : net_->parameters()) tensors.push_back(p);
  for (const auto& b : net_->buffers()) tensors.push_back(b);
  std::vector<torch::Tensor> parts;
  for (const auto& t : tensors) parts.push_back(t.reshape(-1).to(torch::kFloat64));
  torch::Tensor flat = parts.empty() ? torch::empty({0}, torch::kFloat64) : torch::cat(parts);
  group_->broadcast(flat);
  std::int64_t offset = 0;
  for (auto& t : tensors) {
    t.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()).to(t.scalar_type()));
    offset += t.numel();
  }
  // The optimiser's state (momentum, Adam moments) as rank 0's serialised archive.
  std::string bytes;
  if (group_->rank() == 0) {
    torch::serialize::OutputArchive archive;
    optimizer_->save(archive);
    std::ostringstream out;
    archive.save_to(out);
    bytes = out.str();
  }
  const auto size = broadcast(*group_, {static_cast<double>(bytes.size())});
  torch::Tensor data = torch::zeros({static_cast<std::int64_t>(size[0])}, torch::kUInt8);
  if (group_->rank() == 0) std::memcpy(data.data_ptr<std::uint8_t>(), bytes.data(), bytes.size());
  group_->broadcast(data);
  if (group_->rank() != 0) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data.data_ptr<std::uint8_t>()),
                                      static_cast<std::size_t>(data.numel())));
    torch::serialize::InputArchive archive;
    archive.load_from(in);
    optimizer_->load(archive);
  }
}

std::uint64_t Learner::weights_hash() const {
  std::uint64_t h = util::kFnv1aOffsetBasis;
  const auto add = [&h](const torch::Tensor& t) {
    const torch::Tensor c = t.detach().contiguous();
    h = util::fnv1a(c.data_ptr(), static_cast<std::size_t>(c.numel()) * c.element_size(), h);
  };
  for (const auto& p : net_->parameters()) add(p);
  for (const auto& b : net_->buffers()) add(b);
  return h;
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
