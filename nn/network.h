// The residual policy-value network (LibTorch's own ops: the `torch` backend).
//
//   stem      3×3 conv → BN → ReLU                         (C_in → channels)
//   tower     `blocks` × [3×3 conv → BN → ReLU → 3×3 conv → BN, + skip, ReLU]
//   policy    spatial games (policy planes the board's size): 1×1 conv → BN → ReLU → 1×1
//             conv to the A policy planes, flattened — the logits are the action planes
//             themselves, so a move's logit is computed where it happens on the board;
//             other games (Connect Four's 1×1×7): 1×1 conv → BN → ReLU → linear to A×H×W
//   value     1×1 conv → BN → ReLU → linear → ReLU → linear → tanh, in [-1, 1]
//             (encoding.h says what the outputs mean)
//
// forward() returns raw policy logits [N, policy_shape.size()] and values [N, value_outputs].
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <utility>

#include "games/game.h"
#include "nn/net_config.h"

namespace pz::nn {

class ResidualBlockImpl : public torch::nn::Module {
 public:
  explicit ResidualBlockImpl(int channels);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
};
TORCH_MODULE(ResidualBlock);

class PolicyValueNetImpl : public torch::nn::Module {
 public:
  PolicyValueNetImpl(const NetConfig& config, const NetShape& shape);
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x);
  const NetConfig& config() const { return config_; }
  const NetShape& shape() const { return shape_; }
  std::int64_t parameter_count() const;

 private:
  NetConfig config_;
  NetShape shape_;
  torch::nn::Conv2d stem_conv_{nullptr};
  torch::nn::BatchNorm2d stem_bn_{nullptr};
  torch::nn::Sequential tower_{nullptr};
  torch::nn::Conv2d policy_conv_{nullptr}, policy_out_conv_{nullptr};
  torch::nn::BatchNorm2d policy_bn_{nullptr};
  torch::nn::Linear policy_fc_{nullptr};
  torch::nn::Conv2d value_conv_{nullptr};
  torch::nn::BatchNorm2d value_bn_{nullptr};
  torch::nn::Linear value_fc1_{nullptr}, value_fc2_{nullptr};
};
TORCH_MODULE(PolicyValueNet);

PolicyValueNet make_network(const NetConfig& config, const games::GameInfo& info);

// Copies parameters and batch-norm statistics between networks of the same config (the
// hot swap: the learner's weights into an inference copy).
void copy_weights(PolicyValueNetImpl& from, PolicyValueNetImpl& to);

}  // namespace pz::nn
