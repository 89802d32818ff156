// The poly learner's network as a sequence of layers: network.h's heads() written once, over
// an abstract set of layer operations, and walked twice: with shapes alone to plan the
// kernels (which shapes to generate, which fusions, what each layer's kernels move: torch-
// free, for `polyc --report-net`), and with tensors to run them (nn/poly/training.h).
//
// The walk's fusions are fixed by the layer order network.h has: a batch norm takes the
// residual add and the ReLU that follow it; a linear layer and the pooled bias planes take
// their ReLU; in the backward pass each of these applies the ReLU's mask in the same sweep
// (nn/poly/layer_kernels.h). Where a fusion's gain depends on the data the kernels move, the
// plan weighs it with polyc's footprints (FusionChoice): a batch norm's backward sweeps, and
// whether a batch norm writes the gradient of the 3×3 convolution before it padded.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nn/net_config.h"
#include "nn/poly/layer_kernels.h"
#include "nn/poly/winograd.h"

namespace pz::nn {

// An activation's shape: channels-last [N, H·W, C] on a board, or [N, C] (height = width = 0).
// `layer`: the plan's layer that produced it (plan_training_network's walk; -1: the input).
struct ActShape {
  int channels = 0, height = 0, width = 0;
  int layer = -1;
  bool spatial() const { return height > 0; }
  int plane() const { return height * width; }
};

// The operations the walk needs, on activations of type Act (an ActShape, or one with its
// tensor). `module` is the torch module whose parameters the layer uses.
template <class Act>
class TrainingLayerOps {
 public:
  virtual ~TrainingLayerOps() = default;
  virtual Act conv(const std::string& module, const Act& x, int out_channels, int kernel, bool bias) = 0;
  virtual Act batch_norm(const std::string& module, const Act& x, const Act* residual, bool relu) = 0;
  // A convolution without bias and the batch norm of its output: by default the two layers;
  // an implementation may fuse their backward passes.
  virtual Act conv_batch_norm(const std::string& conv_module, const std::string& norm_module, const Act& x, int out_channels,
                              int kernel, const Act* residual, bool relu) {
    return batch_norm(norm_module, conv(conv_module, x, out_channels, kernel, false), residual, relu);
  }
  virtual Act planes(const Act& x, const Act& p, bool relu) = 0;
  virtual Act pool(const Act& x) = 0;
  virtual Act flatten(const Act& x) = 0;  // torch's flatten(1) of the NCHW tensor: [N, C·H·W]
  virtual Act linear(const std::string& module, const Act& x, int outputs, bool relu) = 0;
  virtual Act tanh(const Act& x) = 0;
};

template <class Act>
struct TrainingHeads {
  Act policy, value, value_logits;  // value_logits: a "wdl" head's [N, 3·outputs]; value: else
  Act ownership, score;             // the auxiliary heads' outputs (network.h), when configured
};

// network.h's heads(): the same layers, in the same order, with the same module names.
template <class Act>
TrainingHeads<Act> walk_training_network(TrainingLayerOps<Act>& ops, const NetConfig& config, const NetShape& shape,
                                         const Act& input) {
  auto conv_bn = [&ops](const std::string& conv, const std::string& bn, const Act& x, int channels, int kernel, bool relu,
                        const Act* residual = nullptr) { return ops.conv_batch_norm(conv, bn, x, channels, kernel, residual, relu); };
  const int c = config.channels, pc = config.policy_channels, vc = config.value_channels;
  const bool pooled = config.pooled();
  Act h = conv_bn("stem_conv", "stem_bn", input, c, 3, true);
  for (int b = 0; b < config.blocks; ++b) {
    const std::string m = "tower." + std::to_string(b) + ".";
    Act y;
    if (pooled && b % 2 == 1) {
      const Act g = ops.pool(conv_bn(m + "global_conv", m + "global_bn", h, config.global_channels, 3, true));
      const Act bias = ops.linear(m + "global_fc", g, c, false);
      y = ops.planes(conv_bn(m + "conv1", m + "bn1", h, c, 3, false), bias, true);
    } else {
      y = conv_bn(m + "conv1", m + "bn1", h, c, 3, true);
    }
    h = conv_bn(m + "conv2", m + "bn2", y, c, 3, true, &h);
  }
  TrainingHeads<Act> out;
  const int actions = shape.policy.size();
  if (pooled) {
    const Act g = ops.pool(conv_bn("policy_global_conv", "policy_global_bn", h, pc, 1, true));
    if (shape.spatial_policy) {
      const Act bias = ops.linear("policy_global_fc", g, pc, false);
      const Act p = ops.batch_norm("policy_bn", ops.planes(ops.conv("policy_conv", h, pc, 1, false), bias, false), nullptr, true);
      out.policy = ops.flatten(ops.conv("policy_out", p, shape.policy.channels, 1, true));
    } else {
      out.policy = ops.linear("policy_fc", g, actions, false);
    }
  } else {
    const Act p = conv_bn("policy_conv", "policy_bn", h, pc, 1, true);
    out.policy = shape.spatial_policy ? ops.flatten(ops.conv("policy_out", p, shape.policy.channels, 1, true))
                                      : ops.linear("policy_fc", ops.flatten(p), actions, false);
  }
  const Act features = conv_bn("value_conv", "value_bn", h, vc, 1, true);
  if (config.ownership) out.ownership = ops.flatten(ops.conv("ownership_conv", features, 1, 1, true));
  const Act hidden = ops.linear("value_fc1", pooled ? ops.pool(features) : ops.flatten(features), config.value_hidden, true);
  if (config.score) out.score = ops.linear("score_fc", hidden, 1, false);
  const Act v = ops.linear("value_fc2", hidden, config.wdl() ? 3 * shape.value_outputs : shape.value_outputs, false);
  if (config.wdl()) out.value_logits = v;
  else out.value = ops.tanh(v);
  return out;
}

// A buffer of a layer's kernels besides its output and the gradients it passes on (what
// nn/poly/training.h allocates): packed weights, padded copies, statistics, row workspaces.
// Its size is per_position · N + fixed floats.
struct LayerWorkspace {
  enum class Use {
    kForward,   // written and read by the forward kernel alone
    kBackward,  // by the gradient kernels alone
    kKept,      // written by the forward kernel, read by the gradient kernels
  };
  std::string name;
  std::size_t per_position = 0, fixed = 0;
  Use use = Use::kForward;
};

// One layer of the step, in forward order, and the generated functions it calls.
struct TrainingLayer {
  std::string module;  // "tower.0.conv1"; "" for the layout changes and the heads' activations
  std::string kind;    // "conv3x3", "batch-norm", "linear", "pool", "planes", "transpose", "tanh", "loss"
  std::string fused;   // what the layer's kernels take over from the next layers ("residual add, ReLU")
  std::vector<std::string> functions;  // forward first, then the gradients
  std::size_t output_floats = 0;       // per position
  std::vector<int> inputs;             // the layers whose outputs it reads (-1: the network's input)
  // What autograd keeps for the gradient kernels: the first input (a batch norm's residual
  // is not kept; a 3×3 convolution keeps its padded copy instead, a workspace) and the output.
  bool keeps_input = false, keeps_output = false;
  std::vector<LayerWorkspace> workspaces;
  bool has_backward() const { return functions.size() > 1; }
};

struct TrainingPlan {
  LayerShapes shapes;
  std::vector<TrainingLayer> layers;
  std::vector<FusionChoice> fusions;  // the backward fusions weighed from footprints, one per shape
};

// The layers of `config`'s network for `shape`: the input's transpose to channels-last, the
// walk, and the loss terms (the policy's cross-entropy; the value's squared error or
// cross-entropy). The backward fusions that depend on the data moved (FusionChoice) are
// weighed for steps of `batch` positions (0: none is weighed, and only the batch norms'
// one-sweep backward, which moves no more data at any batch, is taken); the kernels serve
// any batch. 3×3 convolutions run as Winograd where `winograd` says
// (training_winograd_tile); only the learner without LibTorch (backprop.h) calls those.
TrainingPlan plan_training_network(const NetConfig& config, const NetShape& shape, int batch, int winograd = 0);

// Winograd for the training convolutions: 0 (off), a tile m in {2, 3, 4} for every 3×3
// convolution that can (no bias, no padded gradient), or kTrainingWinogradAuto: the tile
// nn/poly/winograd.h's cost model chooses for the shape, if any.
inline constexpr int kTrainingWinogradAuto = kWinogradAuto;
int training_winograd_tile(const ConvShape& s, int mode);
// The mode PZ_POLY_WINOGRAD asks for (auto, off, 2, 3 or 4; unset: auto), as the poly
// inference backend reads it. Throws util::UsageError for another value.
int training_winograd_mode();

// The plan's form of batch norm `s` (its one-sweep backward choice), matching `s` but for the
// fusions; `s` itself when the plan has none such.
BatchNormShape planned_batch_norm(const LayerShapes& planned, const BatchNormShape& s);
// The plan's form of convolution `s` (its Winograd tile), matching `s` but for the tile; `s`
// direct when the plan has none such.
ConvShape planned_conv(const LayerShapes& planned, ConvShape s);
// The batch norm the plan fused with 3×3 convolution `c` (padded_gradient), matching `n` but
// for the fusions; null when the plan kept the two apart.
const BatchNormShape* planned_conv_batch_norm(const LayerShapes& planned, const ConvShape& c, const BatchNormShape& n);

// The kernels of `config`'s network for `shape`, planned for steps of `batch` positions
// (plan_training_network), compiled once per process for each network, batch and cache
// directory (polyc and the C compiler take seconds; a test or a bench builds several
// learners). Throws std::runtime_error when they fail to compile.
struct TrainingKernels {
  LayerShapes shapes;
  std::shared_ptr<const PolyLayerKernels> kernels;
};
TrainingKernels training_kernels(const NetConfig& config, const NetShape& shape, int batch, const std::string& cache_dir = "",
                                 int winograd = 0);

}  // namespace pz::nn
