// The poly learner's network pass: the training network of network.h (its parameters and
// batch-norm buffers, by their module names) run through the kernels polyc generates
// (nn/poly/layer_kernels.h). Each layer is a torch::autograd::Function whose forward and
// backward call the generated kernels, so LibTorch's autograd, the optimisers, gradient
// clipping, the data-parallel all-reduce and optim/'s schedules work unchanged: the learner
// (learner.h, `learner.backend: "poly"`) swaps net->heads() for PolyTrainingNet::heads().
//
// Between layers the activations are channels-last tensors [N, H·W, C]; the input is
// transposed once, and a flattening head transposes back to torch's [N, C·H·W] order, so
// the weights mean exactly what they mean to the torch network (checkpoints, exported
// weights and the inference backends are unaffected).
//
// Fused where it saves a pass over an activation (the report lists them): the residual add
// and the ReLU into the batch norm's forward, and in its backward the ReLU's mask (the
// residual's gradient comes out of the same sweep); the ReLU into the linear layers and the
// pooled bias planes; the log-softmax into the loss's cross-entropies; and, when the
// learner asks for it (LearnerConfig::fusion_batch), where polyc's footprints say it moves
// less, the batch norm's backward in one sweep and writing the convolution's gradient
// padded (nn/poly/training_plan.h).
//
// Training mode only: the batch statistics normalise and the running statistics move,
// as torch.nn.BatchNorm2d's in train() (momentum 0.1, ε 1e-5, num_batches_tracked + 1).
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>

#include "nn/network.h"
#include "nn/poly/layer_kernels.h"

namespace pz::nn {

class PolyTrainingNet {
 public:
  // Builds (or finds in the JIT's cache) the kernels of every layer of the network `config`
  // describes for `shape`, the backward fusions weighed for steps of `batch` positions
  // (plan_training_network). Throws std::runtime_error when they fail to compile.
  PolyTrainingNet(const NetConfig& config, const NetShape& shape, int batch, const std::string& cache_dir = "");

  // network.h's heads() on the generated kernels: the same outputs and, through autograd, the
  // same gradients (to rounding) for `net`, which must have this config and shape.
  NetOutput heads(PolicyValueNetImpl& net, const torch::Tensor& observations) const;
  // The learner's loss terms (learner.h) on generated kernels, log-softmax and cross-entropy
  // fused: the policy cross-entropy −Σ π log softmax(logits) averaged over the rows whose
  // mask is 1; the value loss, the squared error for a scalar head and for "wdl" the
  // cross-entropy against wdl_targets(z), each averaged over N × value outputs.
  torch::Tensor policy_loss(const torch::Tensor& logits, const torch::Tensor& targets, const torch::Tensor& mask) const;
  torch::Tensor value_loss(const NetOutput& out, const torch::Tensor& z) const;

  const PolyLayerKernels& kernels() const { return *kernels_; }
  // The layer shapes (with the fusions named in the header) the kernels were built for.
  const LayerShapes& shapes() const { return shapes_; }

 private:
  NetConfig config_;
  NetShape shape_;
  LayerShapes shapes_;
  std::shared_ptr<const PolyLayerKernels> kernels_;
};

}  // namespace pz::nn
