#include "nn/network.h"

#include <torch/torch.h>

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

PolicyValueNetImpl::PolicyValueNetImpl(const NetConfig& config, const NetShape& shape) : config_(config), shape_(shape) {
  const int c = config.channels;
  const int hw = shape.input.plane_size();
  stem_conv_ = register_module("stem_conv", conv(shape.input.channels, c, 3, false));
  stem_bn_ = register_module("stem_bn", torch::nn::BatchNorm2d(c));
  tower_ = register_module("tower", torch::nn::Sequential());
  for (int b = 0; b < config.blocks; ++b) tower_->push_back(ResidualBlock(c));
  policy_conv_ = register_module("policy_conv", conv(c, config.policy_channels, 1, false));
  policy_bn_ = register_module("policy_bn", torch::nn::BatchNorm2d(config.policy_channels));
  if (shape.spatial_policy) {
    policy_out_conv_ = register_module("policy_out", conv(config.policy_channels, shape.policy.channels, 1, true));
  } else {
    policy_fc_ = register_module("policy_fc", torch::nn::Linear(config.policy_channels * hw, shape.policy.size()));
  }
  value_conv_ = register_module("value_conv", conv(c, config.value_channels, 1, false));
  value_bn_ = register_module("value_bn", torch::nn::BatchNorm2d(config.value_channels));
  value_fc1_ = register_module("value_fc1", torch::nn::Linear(config.value_channels * hw, config.value_hidden));
  value_fc2_ = register_module("value_fc2", torch::nn::Linear(config.value_hidden, shape.value_outputs));
}

std::pair<torch::Tensor, torch::Tensor> PolicyValueNetImpl::forward(const torch::Tensor& x) {
  auto h = torch::relu(stem_bn_(stem_conv_(x)));
  if (config_.blocks > 0) h = tower_->forward(h);
  auto p = torch::relu(policy_bn_(policy_conv_(h)));
  torch::Tensor logits = shape_.spatial_policy ? policy_out_conv_(p).flatten(1) : policy_fc_(p.flatten(1));
  auto v = torch::relu(value_bn_(value_conv_(h))).flatten(1);
  v = torch::tanh(value_fc2_(torch::relu(value_fc1_(v))));
  return {logits, v};
}

std::int64_t PolicyValueNetImpl::parameter_count() const {
  std::int64_t n = 0;
  for (const auto& p : parameters()) n += p.numel();
  return n;
}

PolicyValueNet make_network(const NetConfig& config, const games::GameInfo& info) {
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

}  // namespace pz::nn
