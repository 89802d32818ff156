// `polyzero bench recsys`: the feature-crossing kernels of recsys/feature_crossing.h (FM,
// DLRM's dot interaction, DCN-v2's cross layer) against the same computation in LibTorch's
// eager ops with autograd, in the same run, one thread each: the best of interleaved
// rounds for the forward pass alone and for forward + backward, GFLOP/s (multiply-add = 2,
// recsys's count) and poly's speed-up over torch.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace pz::bench {

struct RecsysBenchRow {
  std::string kernel;  // "fm", "dot", "cross"
  int dim = 0;
  double poly_forward_ms = 0, torch_forward_ms = 0;
  double poly_step_ms = 0, torch_step_ms = 0;  // forward + backward
  double poly_gflops = 0, torch_gflops = 0;    // forward + backward
  double forward_ratio() const { return torch_forward_ms / poly_forward_ms; }
  double step_ratio() const { return torch_step_ms / poly_step_ms; }
};

struct RecsysBenchOptions {
  int batch = 2048;
  int features = 26;                 // sparse features (embedding vectors per example)
  std::vector<int> dims{16, 64, 128};  // embedding widths; the cross layer's input is features × dim
  std::vector<std::string> kernels{"fm", "dot", "cross"};
  double seconds = 1.0;  // per (kernel, dim, implementation), split over the rounds
  int rounds = 3;
  bool json = false;
};

std::vector<RecsysBenchRow> measure_recsys(const RecsysBenchOptions& options);

// Measures and writes the table (or one JSON object per row). Throws util::UsageError for
// an unknown kernel name or non-positive sizes.
void run_recsys_bench(const RecsysBenchOptions& options, std::ostream& out);

}  // namespace pz::bench
