#include "nn/network.h"

#include <torch/torch.h>

#include <cmath>

#include "util/fnv1a.h"

namespace pz::nn {

namespace {

torch::nn::Conv2d conv(int in, int out, int kernel, bool bias) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel).padding(kernel / 2).bias(bias));
}

}  // namespace

ResidualBlockImpl::ResidualBlockImpl(int channels) {
  conv1_ = register_module("conv1", conv(channels, channels, 3, false));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(channels));
  conv2_ = register_module("conv2", conv(channels, channels, 3, false));
  bn2_ = register_module("bn2", torch::nn::BatchNorm2d(channels));
}

torch::Tensor ResidualBlockImpl::forward(const torch::Tensor& x) {
  auto y = torch::relu(bn1_(conv1_(x)));
  y = bn2_(conv2_(y));
  return torch::relu(y + x);
}

torch::Tensor global_pool(const torch::Tensor& x) {
  const auto mean = x.mean({2, 3});
  const double area = static_cast<double>(x.size(2) * x.size(3));
  return torch::cat({mean, mean * ((std::sqrt(area) - 14.0) / 10.0), x.amax({2, 3})}, 1);
}

namespace {

// A per-channel bias [N, C] broadcast over the board.
torch::Tensor as_planes(const torch::Tensor& bias) { return bias.unsqueeze(-1).unsqueeze(-1); }

}  // namespace

GlobalPoolingBlockImpl::GlobalPoolingBlockImpl(int channels, int global_channels) {
  conv1_ = register_module("conv1", conv(channels, channels, 3, false));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(channels));
  global_conv_ = register_module("global_conv", conv(channels, global_channels, 3, false));
  global_bn_ = register_module("global_bn", torch::nn::BatchNorm2d(global_channels));
  global_fc_ = register_module("global_fc", torch::nn::Linear(3 * global_channels, channels));
  conv2_ = register_module("conv2", conv(channels, channels, 3, false));
  bn2_ = register_module("bn2", torch::nn::BatchNorm2d(channels));
}

torch::Tensor GlobalPoolingBlockImpl::forward(const torch::Tensor& x) {
  const auto pooled = global_pool(torch::relu(global_bn_(global_conv_(x))));
  auto y = torch::relu(bn1_(conv1_(x)) + as_planes(global_fc_(pooled)));
  y = bn2_(conv2_(y));
  return torch::relu(y + x);
}

PolicyValueNetImpl::PolicyValueNetImpl(const NetConfig& config, const NetShape& shape) : config_(config), shape_(shape) {
  const int c = config.channels, pc = config.policy_channels, vc = config.value_channels;
  const bool pooled = config.pooled();
  // The resnet's flattening heads are sized for this board; the pooled net's never are.
  const int hw = shape.input.plane_size();
  stem_conv_ = register_module("stem_conv", conv(shape.input.channels, c, 3, false));
  stem_bn_ = register_module("stem_bn", torch::nn::BatchNorm2d(c));
  tower_ = register_module("tower", torch::nn::Sequential());
  for (int b = 0; b < config.blocks; ++b) {
    if (pooled && b % 2 == 1) {
      tower_->push_back(GlobalPoolingBlock(c, config.global_channels));
    } else {
      tower_->push_back(ResidualBlock(c));
    }
  }
  if (pooled) {
    policy_global_conv_ = register_module("policy_global_conv", conv(c, pc, 1, false));
    policy_global_bn_ = register_module("policy_global_bn", torch::nn::BatchNorm2d(pc));
  }
  if (!pooled || shape.spatial_policy) {
    policy_conv_ = register_module("policy_conv", conv(c, pc, 1, false));
    policy_bn_ = register_module("policy_bn", torch::nn::BatchNorm2d(pc));
  }
  if (shape.spatial_policy) {
    if (pooled) policy_global_fc_ = register_module("policy_global_fc", torch::nn::Linear(3 * pc, pc));
    policy_out_conv_ = register_module("policy_out", conv(pc, shape.policy.channels, 1, true));
  } else {
    policy_fc_ = register_module("policy_fc", torch::nn::Linear(pooled ? 3 * pc : pc * hw, shape.policy.size()));
  }
  value_conv_ = register_module("value_conv", conv(c, vc, 1, false));
  value_bn_ = register_module("value_bn", torch::nn::BatchNorm2d(vc));
  value_fc1_ = register_module("value_fc1", torch::nn::Linear(pooled ? 3 * vc : vc * hw, config.value_hidden));
  const int value_logits = config.wdl() ? 3 * shape.value_outputs : shape.value_outputs;
  value_fc2_ = register_module("value_fc2", torch::nn::Linear(config.value_hidden, value_logits));
  if (config.ownership) ownership_conv_ = register_module("ownership_conv", conv(vc, 1, 1, true));
  if (config.score) score_fc_ = register_module("score_fc", torch::nn::Linear(config.value_hidden, 1));
}

NetOutput PolicyValueNetImpl::heads(const torch::Tensor& x) {
  auto h = torch::relu(stem_bn_(stem_conv_(x)));
  if (config_.blocks > 0) h = tower_->forward(h);
  NetOutput out;
  if (config_.pooled()) {
    const auto g = global_pool(torch::relu(policy_global_bn_(policy_global_conv_(h))));
    if (shape_.spatial_policy) {
      const auto p = torch::relu(policy_bn_(policy_conv_(h) + as_planes(policy_global_fc_(g))));
      out.policy = policy_out_conv_(p).flatten(1);
    } else {
      out.policy = policy_fc_(g);
    }
  } else {
    const auto p = torch::relu(policy_bn_(policy_conv_(h)));
    out.policy = shape_.spatial_policy ? policy_out_conv_(p).flatten(1) : policy_fc_(p.flatten(1));
  }
  const auto features = torch::relu(value_bn_(value_conv_(h)));
  if (config_.ownership) out.ownership = ownership_conv_(features).flatten(1);
  const auto hidden = torch::relu(value_fc1_(config_.pooled() ? global_pool(features) : features.flatten(1)));
  if (config_.score) out.score = score_fc_(hidden);
  const auto v = value_fc2_(hidden);
  if (config_.wdl()) {
    out.value_logits = v.view({v.size(0), shape_.value_outputs, 3});
    const auto probs = torch::softmax(out.value_logits, 2);
    out.value = probs.select(2, 0) - probs.select(2, 2);
  } else {
    out.value = torch::tanh(v);
  }
  return out;
}

std::pair<torch::Tensor, torch::Tensor> PolicyValueNetImpl::forward(const torch::Tensor& x) {
  NetOutput out = heads(x);
  return {out.policy, out.value};
}

std::int64_t PolicyValueNetImpl::parameter_count() const {
  std::int64_t n = 0;
  for (const auto& p : parameters()) n += p.numel();
  return n;
}

torch::Tensor wdl_targets(const torch::Tensor& z) {
  return torch::stack({z.clamp_min(0), 1 - z.abs(), (-z).clamp_min(0)}, 2);
}

PolicyValueNet make_network(const NetConfig& config, const games::GameInfo& info) {
  check_net_config(config, info);
  return PolicyValueNet(config, net_shape(info));
}

void copy_weights(PolicyValueNetImpl& from, PolicyValueNetImpl& to) {
  torch::NoGradGuard no_grad;
  auto src = from.named_parameters(true);
  auto dst = to.named_parameters(true);
  for (auto& item : dst) item.value().copy_(src[item.key()]);
  auto src_buffers = from.named_buffers(true);
  auto dst_buffers = to.named_buffers(true);
  for (auto& item : dst_buffers) item.value().copy_(src_buffers[item.key()]);
}

bool all_finite(const PolicyValueNetImpl& net) {
  torch::NoGradGuard no_grad;
  for (const auto& p : net.parameters(true)) {
    if (!torch::isfinite(p).all().item<bool>()) return false;
  }
  for (const auto& b : net.buffers(true)) {
    if (b.is_floating_point() && !torch::isfinite(b).all().item<bool>()) return false;
  }
  return true;
}

std::uint64_t weights_checksum(const PolicyValueNetImpl& net) {
  torch::NoGradGuard no_grad;
  std::uint64_t hash = util::kFnv1aOffsetBasis;
  auto add = [&hash](const std::string& name, const torch::Tensor& t) {
    hash = util::fnv1a(name, hash);
    const torch::Tensor c = t.contiguous();
    hash = util::fnv1a(c.data_ptr(), c.nbytes(), hash);
  };
  for (const auto& item : net.named_parameters(true)) add(item.key(), item.value());
  for (const auto& item : net.named_buffers(true)) add(item.key(), item.value());
  return hash;
}

NetWeights export_weights(const PolicyValueNetImpl& net) {
  torch::NoGradGuard no_grad;
  NetWeights out;
  auto add = [&](const std::string& name, const torch::Tensor& t) {
    const auto c = t.detach().to(torch::kFloat32).contiguous();
    WeightTensor w;
    w.shape.assign(c.sizes().begin(), c.sizes().end());
    w.values.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    out.emplace(name, std::move(w));
  };
  for (const auto& item : net.named_parameters(true)) add(item.key(), item.value());
  for (const auto& item : net.named_buffers(true))
    if (item.value().is_floating_point()) add(item.key(), item.value());
  return out;
}

void perturb_batch_norms(PolicyValueNetImpl& net) {
  torch::NoGradGuard no_grad;
  for (auto& item : net.named_buffers(true)) {
    if (item.key().ends_with(".running_mean")) item.value().normal_(0.0, 0.3);
    if (item.key().ends_with(".running_var")) item.value().uniform_(0.4, 1.6);
  }
  for (auto& item : net.named_parameters(true)) {
    if (item.key().find("bn") == std::string::npos) continue;
    if (item.key().ends_with(".weight")) item.value().uniform_(0.5, 1.5);
    if (item.key().ends_with(".bias")) item.value().normal_(0.0, 0.3);
  }
}

void import_weights(const NetWeights& weights, PolicyValueNetImpl& net) {
  torch::NoGradGuard no_grad;
  auto set = [&](const std::string& name, torch::Tensor& t) {
    const WeightTensor& w = weight(weights, name, static_cast<std::size_t>(t.numel()));
    t.copy_(torch::from_blob(const_cast<float*>(w.values.data()), t.sizes()));
  };
  for (auto& item : net.named_parameters(true)) set(item.key(), item.value());
  for (auto& item : net.named_buffers(true))
    if (item.value().is_floating_point()) set(item.key(), item.value());
}

}  // namespace pz::nn
