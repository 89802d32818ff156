// The learner: owns the training network, its optimiser and LR schedule, and takes one
// optimiser step per minibatch.
//
// Loss = policy cross-entropy (−Σ π log softmax(logits), over rows with a policy target)
//      + value_weight · value loss (MSE for a scalar head; for a win/draw/loss head the
//        cross-entropy against the outcome, learner.cpp)
//      + ownership_weight · ownership loss + score_weight · score loss, for a network with the
//        auxiliary heads (net_config.h), over the rows that have their targets (KataGo's forms:
//        the ownership's per-cell binary cross-entropy between (1 + tanh(logit))/2 and
//        (1 + target)/2, averaged over cells; the score's squared error),
//      plus weight decay through the optimiser's weight_decay (L2 for SGD, decoupled for AdamW). Gradients are clipped by total norm when the
// optimiser config has clip_grad_norm. The step counter and schedule follow optim/'s
// PyTorch semantics: step t trains with lr(t), then the scheduler steps.
//
// Divergence: every step checks that the loss and the total gradient norm are finite before
// the optimiser steps, and that the weights are finite after it; otherwise it throws
// TrainingDiverged. A check that fails before the step leaves the weights as the previous
// step left them.
//
// State (save_state/load_state): the optimiser's buffers, the scheduler's JSON state (its
// config included), the step counter and LibTorch's CPU generator, in one LibTorch archive.
// Weights go to a model checkpoint (checkpoint.h), so a training checkpoint's model file is
// also an ordinary model file.
//
// Data-parallel (set_group, data_parallel.h): after backward, one all-reduce averages over
// the ranks the gradients, the floating-point buffers (batch-norm running statistics: each
// rank's forward pass moved them with its own batch) and the loss terms; every rank then
// checks, clips and steps on the same numbers, so all stay identical, and a divergence is
// found at the same step on all of them. The step is thus the step on the mean of the ranks'
// batch losses; a batch-norm layer normalises each rank's batch with that batch's own
// statistics (as DistributedDataParallel without SyncBatchNorm does). Without a group
// nothing of this runs.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "games/game.h"
#include "nn/data_parallel.h"
#include "nn/learner_config.h"
#include "nn/training_learner.h"
#include "nn/net_config.h"
#include "nn/network.h"
#include "nn/replay_buffer.h"
#include "optim/lr_scheduler.h"
#include "optim/optimizer_config.h"

namespace torch::optim {
class Optimizer;
}

namespace pz::nn {

class PolyTrainingNet;

class Learner final : public TrainingLearner {
 public:
  // `game` must outlive the learner. `seed` initialises the weights.
  Learner(const games::Game& game, const LearnerConfig& config, std::uint64_t seed);
  ~Learner() override;

  StepStats train_step(const Batch& batch) override;

  // Data-parallel training in `group` (null: this process alone); the group must outlive
  // the learner's steps. Collective from here on: every rank steps together.
  void set_group(DataParallelGroup* group) override { group_ = group; }
  // Makes this rank's parameters, buffers and optimiser state rank 0's (collective): at the
  // start and after a resume, so that all ranks start identical.
  void broadcast_from_root() override;
  // FNV-1a over the parameters' and buffers' bytes, in order: equal on ranks whose weights
  // are equal (a check, printed and kept in checkpoints).
  std::uint64_t weights_hash() const override;

  PolicyValueNetImpl& network() { return *net_; }
  PolicyValueNet network_handle() const { return net_; }
  std::int64_t step() const override { return step_; }
  double lr() const override;  // the lr the next step trains with

  NetWeights current_weights() const override;
  void set_weights(const NetWeights& weights) override;
  std::string state_file_name() const override { return "learner.pt"; }
  void save_state(const std::string& path) const override;
  // Throws util::UsageError when the file is unreadable or made for another optimiser.
  void load_state(const std::string& path) override;

 private:
  const games::Game& game_;
  LearnerConfig config_;
  optim::OptimizerConfig optimizer_config_;
  PolicyValueNet net_{nullptr};
  std::unique_ptr<PolyTrainingNet> poly_;  // set when config_.backend is "poly"
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<optim::LRScheduler> scheduler_;
  std::int64_t step_ = 0;
  DataParallelGroup* group_ = nullptr;

  // The group's mean of the gradients, floating buffers and loss terms (in place).
  struct LossTerms {
    torch::Tensor policy, value, ownership, score;  // the auxiliary terms are zeros without their heads
    torch::Tensor total(const LearnerConfig& c) const {
      return policy + c.value_weight * value + c.ownership_weight * ownership + c.score_weight * score;
    }
  };
  void average_over_group(torch::Tensor& loss, LossTerms& terms);
  NetOutput heads(const torch::Tensor& observations);
  // The policy and value loss terms (the header's formulas), on LibTorch's ops or the poly kernels.
  LossTerms losses(const NetOutput& out, const Batch& batch, const torch::Tensor& pi, const torch::Tensor& mask,
                   const torch::Tensor& z) const;
  void restore_buffers(const std::vector<torch::Tensor>& saved);
  double gradient_norm() const;
  bool weights_finite() const;
};

// Makes make_training_learner (training_learner.h) build this Learner: what a program with
// LibTorch that trains calls once at start (polyzero's main does).
void register_torch_learner();

}  // namespace pz::nn
