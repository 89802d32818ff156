// What every learner shares, with or without LibTorch: its config, the figures of one step,
// and divergence. The loss and its terms are learner.h's; Learner (learner.h, LibTorch's
// autograd) and PolyLearner (nn/poly/learner.h, the kernels polyc generates) take the same
// config and report the same StepStats.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "nn/net_config.h"

namespace pz::nn {

struct LearnerConfig {
  NetConfig network;
  nlohmann::json optimizer = {{"type", "sgd"}, {"lr", 0.02}, {"momentum", 0.9}, {"weight_decay", 1e-4}};
  nlohmann::json scheduler = {{"type", "constant"}, {"factor", 1.0}, {"total_iters", 1}};
  double value_weight = 1.0;
  double ownership_weight = 1.5, score_weight = 0.5;  // for the auxiliary heads, when the network has them
  // Which learner (training_learner.h): "poly" (the kernels polyc generates, no LibTorch),
  // "torch" (LibTorch's ops), or "auto": poly, and torch with a warning on stderr when the
  // poly kernels cannot be built (no C compiler), as the inference backend's "auto".
  // Learner (learner.h) built directly reads "poly" as LibTorch's autograd and optimisers
  // over the poly kernels (nn/poly/training.h): the reference `bench nn` measures against.
  std::string backend = "torch";
  // The batch the poly learner weighs its footprint-decided backward fusions for
  // (plan_training_network; any batch runs). 0, the default: none weighed, the layer-order
  // fusions only, since the fused kernels do not make the step measurably faster
  // (docs/BENCHMARKS.md, `bench nn`'s "weighed fusions" column).
  int fusion_batch = 0;
};

struct StepStats {
  std::int64_t step = 0;  // the step just taken (1-based)
  double loss = 0, policy_loss = 0, value_loss = 0;
  double ownership_loss = 0, score_loss = 0;  // 0 without the auxiliary heads
  double lr = 0;          // the lr this step trained with
  double grad_norm = 0;   // total 2-norm of the gradients (clip_norm_type when clipping), before clipping
};

// A step whose loss, gradients or resulting weights are not finite (NaN or ±inf).
class TrainingDiverged : public std::runtime_error {
 public:
  TrainingDiverged(std::int64_t step, const std::string& what) : std::runtime_error(what), step_(step) {}
  std::int64_t step() const { return step_; }  // the step that failed (1-based)

 private:
  std::int64_t step_;
};

// Divergence checks, in every learner's order: the loss and the total gradient norm before
// the optimiser steps (a failure leaves the weights as the previous step left them), then the
// weights after it.
bool step_is_finite(const StepStats& stats);
// Why a step failed step_is_finite: the loss or the gradient norm, with the step and lr.
std::string divergence_reason(const StepStats& stats);
// The message for weights that became non-finite in the optimiser step of `stats`.
std::string weights_divergence_reason(const StepStats& stats);

}  // namespace pz::nn
