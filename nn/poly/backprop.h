// The learner's forward and backward pass without LibTorch: the training network of
// network.h (the layers walk_training_network names, nn/poly/training_plan.h) run on the
// kernels polyc generates (nn/poly/layer_kernels.h), each layer's forward recording its
// backward on a tape that is replayed in reverse (reverse-mode differentiation, as autograd
// does it), and the loss terms of learner.h on the same kernels or on plain loops.
//
// The weights are network.h's, by name and layout (NetWeights: what checkpoints and the
// inference backends hold), so a network trained here is an ordinary model file, and the
// gradients are those LibTorch's autograd computes for the torch learner (to rounding:
// tests/nn compares the two).
//
// Training mode: batch-norm layers normalise with the batch's statistics and move the running
// statistics (momentum 0.1), as torch.nn.BatchNorm2d in train(). The backward fusions are
// the layer-order ones and the batch norms' one-sweep backward (plan_training_network with
// batch 0).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nn/net_config.h"
#include "nn/poly/buffer_pool.h"
#include "nn/poly/training_plan.h"
#include "nn/replay_buffer.h"
#include "nn/weights.h"

namespace pz::nn {

// The weights of the loss terms (learner.h's LearnerConfig).
struct LossWeights {
  double value = 1.0, ownership = 1.5, score = 0.5;
};

// The loss of one pass and its terms (0 for the auxiliary terms of a network without them).
struct LossValues {
  double total = 0, policy = 0, value = 0, ownership = 0, score = 0;
};

// A parameter's or buffer's name and shape, as network.h's module registers it.
struct WeightSlot {
  std::string name;
  std::vector<std::int64_t> shape;
  bool trainable = true;  // false: a batch-norm running statistic
  std::size_t size() const;
};

// The slots of the network `config` describes for `shape`, from a walk over shapes alone
// (nothing compiled).
std::vector<WeightSlot> network_slots(const NetConfig& config, const NetShape& shape);

class PolyBackprop {
 public:
  // Builds (or finds in the process's or the JIT's cache) the kernels of the network `config`
  // describes for `shape`. Throws std::runtime_error when they fail to compile.
  PolyBackprop(const NetConfig& config, const NetShape& shape, const std::string& cache_dir = "");

  // Every parameter (trainable) and batch-norm buffer of the network, in the order the
  // layers use them.
  const std::vector<WeightSlot>& slots() const { return slots_; }

  // PyTorch's default initialisation of the network's modules, drawn from `seed`: a
  // convolution's or linear layer's weight and bias uniform in ±1/√fan_in (kaiming_uniform_
  // with a = √5), batch norm γ = 1, β = 0, running mean 0 and variance 1.
  NetWeights initial_weights(std::uint64_t seed) const;

  // One pass over `batch` in training mode: returns the loss; writes d loss / d p for every
  // trainable slot into `gradients` (sized and named as the slot; overwritten) and moves the
  // running statistics in `weights`. Throws std::invalid_argument when `weights` lacks a slot
  // or has a wrong size, or when the batch does not fit the network (the observation size,
  // auxiliary targets the network needs).
  LossValues run(NetWeights& weights, const Batch& batch, const LossWeights& loss_weights, NetWeights& gradients) const;

 private:
  NetConfig config_;
  NetShape shape_;
  TrainingKernels kernels_;
  std::vector<WeightSlot> slots_;
  std::shared_ptr<BufferPool> pool_ = std::make_shared<BufferPool>();  // the steps' activations and scratch
};

}  // namespace pz::nn
