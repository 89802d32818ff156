// The policy-value networks (LibTorch's own ops: the `torch` backend). Two types share
// the stem, the value-head options and the module names of the layers they have in common.
//
// "resnet"
//   stem      3×3 conv → BN → ReLU                         (C_in → channels)
//   tower     `blocks` × [3×3 conv → BN → ReLU → 3×3 conv → BN, + skip, ReLU]
//   policy    spatial games (policy planes the board's size): 1×1 conv → BN → ReLU → 1×1
//             conv to the A policy planes, flattened — the logits are the action planes
//             themselves, so a move's logit is computed where it happens on the board;
//             other games (Connect Four's 1×1×7): 1×1 conv → BN → ReLU → linear to A×H×W
//   value     1×1 conv → BN → ReLU → flatten → linear → ReLU → linear
//
// "pooled" (KataGo's fully-convolutional design; no layer's size depends on the board)
//   stem      as above
//   tower     residual blocks; every second one (the 2nd, 4th, …) is a global pooling block:
//             a second 3×3 conv of `global_channels` channels → BN → ReLU is pooled over the
//             board (below) and a linear layer turns it into a per-channel bias added before
//             the block's first ReLU, so local features can depend on the whole board
//   policy    1×1 conv P and 1×1 conv G → BN → ReLU → pooled; spatial games: P plus a bias
//             from G's pooled features → BN → ReLU → 1×1 conv to the action planes; other
//             games (a fixed number of actions whatever the board): linear from G's pooled
//             features to the actions
//   value     1×1 conv → BN → ReLU → pooled → linear → ReLU → linear
//   auxiliary (net_config.h ownership, score) on either type: ownership is a 1×1 conv with bias
//             from the value head's ReLU features to one plane, flattened to H·W logits (the
//             prediction is their tanh); score a linear layer from the value head's hidden
//             ReLU layer to one output, the final margin over the board's cells
//   pooling   per channel: mean, mean × (√(H·W) − 14)/10 (KataGo's term that tells the net
//             the board's size) and max, so [N, C, H, W] → [N, 3C]
//   The same weights therefore run on observations of any height and width: a net built for
//   hex:size=7 evaluates 9×9 positions, its spatial policy growing with the board.
//
// Value outputs (net_config.h value_head): "scalar" → tanh, in [-1, 1]; "wdl" → three
// logits (win, draw, loss) per value output, the value being P(win) − P(loss), also in
// [-1, 1] (encoding.h says what the outputs mean).
//
// forward() returns raw policy logits [N, policy planes × H × W] and values [N, value_outputs];
// heads() also returns the win/draw/loss logits the learner's loss needs.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <utility>

#include "games/game.h"
#include "nn/net_config.h"
#include "nn/weights.h"

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

class GlobalPoolingBlockImpl : public torch::nn::Module {
 public:
  GlobalPoolingBlockImpl(int channels, int global_channels);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr}, global_conv_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr}, global_bn_{nullptr};
  torch::nn::Linear global_fc_{nullptr};
};
TORCH_MODULE(GlobalPoolingBlock);

// [N, C, H, W] → [N, 3C]: per channel the mean, the mean scaled by the board's size and the max.
torch::Tensor global_pool(const torch::Tensor& x);

struct NetOutput {
  torch::Tensor policy;        // logits [N, policy planes × H × W]
  torch::Tensor value;         // [N, value_outputs], in [-1, 1]
  torch::Tensor value_logits;  // "wdl": [N, value_outputs, 3] (win, draw, loss); else undefined
  torch::Tensor ownership;     // config.ownership: logits [N, H × W] (tanh: the prediction); else undefined
  torch::Tensor score;         // config.score: [N, 1], the margin over H × W cells; else undefined
};

// A "wdl" head's targets [N, V, 3] for outcomes z [N, V] in [-1, 1]: z ≥ 0 → (z, 1 − z, 0),
// z < 0 → (0, 1 + z, −z), so that W − L = z (draws, scores and q_mix blends included).
torch::Tensor wdl_targets(const torch::Tensor& z);

class PolicyValueNetImpl : public torch::nn::Module {
 public:
  PolicyValueNetImpl(const NetConfig& config, const NetShape& shape);
  NetOutput heads(const torch::Tensor& x);
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
  torch::nn::Conv2d policy_conv_{nullptr}, policy_out_conv_{nullptr}, policy_global_conv_{nullptr};
  torch::nn::BatchNorm2d policy_bn_{nullptr}, policy_global_bn_{nullptr};
  torch::nn::Linear policy_fc_{nullptr}, policy_global_fc_{nullptr};
  torch::nn::Conv2d value_conv_{nullptr};
  torch::nn::BatchNorm2d value_bn_{nullptr};
  torch::nn::Linear value_fc1_{nullptr}, value_fc2_{nullptr};
  torch::nn::Conv2d ownership_conv_{nullptr};
  torch::nn::Linear score_fc_{nullptr};
};
TORCH_MODULE(PolicyValueNet);

PolicyValueNet make_network(const NetConfig& config, const games::GameInfo& info);

// Copies parameters and batch-norm statistics between networks of the same config (the
// hot swap: the learner's weights into an inference copy).
void copy_weights(PolicyValueNetImpl& from, PolicyValueNetImpl& to);

// True when every parameter and batch-norm buffer is finite (no NaN, no ±inf).
bool all_finite(const PolicyValueNetImpl& net);
// The checksum model files carry: FNV-1a (util/fnv1a.h) over every parameter's and buffer's
// name and raw bytes, in module order. Equal weights give equal checksums on every machine
// with the same byte order.
std::uint64_t weights_checksum(const PolicyValueNetImpl& net);

// Parameters and batch-norm buffers by their module names, as backends load them.
NetWeights export_weights(const PolicyValueNetImpl& net);
// Throws std::runtime_error naming a tensor that is missing or has another size.
void import_weights(const NetWeights& weights, PolicyValueNetImpl& net);

// Draws every batch-norm's running statistics and affine parameters away from the identity
// (LibTorch's global generator). A fresh network's batch-norms are the identity, under which
// benchmarks and tests of other backends would not exercise their folding.
void perturb_batch_norms(PolicyValueNetImpl& net);

}  // namespace pz::nn
