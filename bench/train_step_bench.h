// The training step of `polyzero bench nn`: one learner step (forward in training mode,
// backward, gradient clipping, the optimiser's step) of the torch learner and of the poly
// learner (nn/poly/training.h), and of the learner without LibTorch (nn/poly/learner.h), the same network, optimiser and batch, in interleaved
// rounds per batch size, each learner's best round. GFLOP/s count three times the forward
// pass's FLOPs (the forward, the input gradients and the weight gradients; multiply-add = 2).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "nn/net_config.h"

namespace pz::bench {

struct TrainStepRow {
  int batch = 0;
  double torch_ms = 0, poly_ms = 0;  // per step, best round
  double poly_weighed_ms = 0;        // the poly learner with the fusions weighed on footprints (fusion_batch)
  double without_torch_ms = 0;       // the learner without LibTorch (nn/poly/learner.h) on the same kernels
  double torch_gflops = 0, poly_gflops = 0;
  double ratio() const { return torch_ms / poly_ms; }  // the poly learner's speed-up
};

struct TrainStepOptions {
  std::string game = "connect4";
  nn::NetConfig network;
  std::vector<int> batches{128, 256};
  double seconds = 1.0;  // per (learner, batch) in total, split over the rounds
  int rounds = 3;
  int threads = 1;       // LibTorch's intra-op threads (the poly kernels run on the caller)
};

struct TrainStepResult {
  double flops_per_position = 0;  // the forward pass's
  std::vector<TrainStepRow> rows;
};

TrainStepResult measure_training_steps(const TrainStepOptions& options);

// The rows as a table, or one JSON object per row.
void write_training_steps(const TrainStepResult& result, bool json, std::ostream& out);

}  // namespace pz::bench
