// The learner without LibTorch: learner.h's step — the same loss, clipping, optimiser,
// schedule, divergence checks and StepStats — on the kernels polyc generates (the forward
// and backward pass of nn/poly/backprop.h) and the optimisers of optim/plain_optimizer.h, whose
// update and clipping loops are polyc's kernels too (nn/poly/update_kernels.h), over
// network.h's weights by name (NetWeights), so that a build without LibTorch trains and what
// it trains is an ordinary model file.
//
// A step, in order: the forward and backward pass (moving the batch-norm running statistics),
// the total gradient norm (clipped when the optimiser config has clip_grad_norm), the checks
// that the loss and the norm are finite (a failure restores the running statistics and throws
// TrainingDiverged, the weights untouched), the optimiser step, the check that the weights
// are finite, then the scheduler's step: step t trains with lr(t) (optim/'s PyTorch
// semantics).
//
// State (save_state/load_state): one safetensors file (safetensors.h) holding the optimiser's
// buffers under plain_optimizer.h's names ("tower.0.conv1.weight.momentum_buffer") and, in
// its metadata key "polyzero_learner", JSON text with the step counter, the scheduler's state
// (its config included) and the optimiser config. The weights go to a model file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "games/game.h"
#include "nn/learner_config.h"
#include "nn/poly/backprop.h"
#include "nn/replay_buffer.h"
#include "nn/training_learner.h"
#include "nn/weights.h"
#include "optim/lr_scheduler.h"
#include "optim/plain_optimizer.h"

namespace pz::nn {

// The trainable slots as the optimiser's parameters, in order.
std::vector<optim::PlainParameter> trainable_parameters(const std::vector<WeightSlot>& slots);

class PolyLearner final : public TrainingLearner {
 public:
  // `seed` draws the initial weights (PyTorch's default initialisation, nn/poly/backprop.h).
  // Throws util::UsageError for a config it cannot take (network, optimiser, schedule) and
  // std::runtime_error when the kernels fail to compile.
  PolyLearner(const games::GameInfo& info, const LearnerConfig& config, std::uint64_t seed,
              const std::string& cache_dir = "");
  ~PolyLearner() override;

  StepStats train_step(const Batch& batch) override;

  std::int64_t step() const override { return step_; }
  double lr() const override;  // the first group's

  // The parameters and batch-norm statistics under network.h's names.
  const NetWeights& weights() const { return weights_; }
  NetWeights current_weights() const override { return weights_; }
  // Throws util::UsageError naming the first tensor that is missing or has another size.
  void set_weights(const NetWeights& weights) override;
  std::uint64_t weights_hash() const override;

  std::string state_file_name() const override { return "learner.safetensors"; }
  void save_state(const std::string& path) const override;
  // Throws util::UsageError when the file is unreadable, made for another optimiser config,
  // or its buffers do not fit the network.
  void load_state(const std::string& path) override;

  // One learner per run: a group is a util::UsageError.
  void set_group(DataParallelGroup* group) override;
  void broadcast_from_root() override {}

 private:
  double clip_or_measure_gradients();
  bool weights_finite() const;

  LearnerConfig config_;
  optim::OptimizerConfig optimizer_config_;
  PolyBackprop backprop_;
  NetWeights weights_, gradients_;
  std::vector<std::string> trainable_;  // the optimiser's parameters, in order
  std::shared_ptr<const optim::UpdateKernels> update_kernels_;  // the optimiser's and clipping's loops
  std::shared_ptr<optim::PlainOptimizer> optimizer_;
  std::unique_ptr<optim::LRScheduler> scheduler_;
  std::int64_t step_ = 0;
};

}  // namespace pz::nn
