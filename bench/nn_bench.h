// `polyzero bench nn`: forward passes of one network on the torch and poly backends (one
// thread unless told otherwise), in the same run: interleaved rounds per batch size, each backend's best round,
// GFLOP/s over the whole network (multiply-add = 2, padded 3×3 taps counted, as every
// backend computes them), and that rate's share of one core's fp32 FMA peak, itself
// measured in the same run (12 independent 512-bit FMA chains, before and after the rows).
#pragma once

#include <string>
#include <vector>

#include "nn/net_config.h"

namespace pz::bench {

struct NnBenchRow {
  int batch = 0;
  double torch_ms = 0, poly_ms = 0;  // per forward pass, best round
  double torch_gflops = 0, poly_gflops = 0;
  double ratio() const { return torch_ms / poly_ms; }  // poly's speed-up over torch
};

struct NnBenchResult {
  std::string game, network;
  int threads = 1;
  double flops_per_position = 0;
  double peak_gflops = 0;  // one core, measured in this run
  std::vector<NnBenchRow> rows;
};

// `seconds` per (backend, batch) in total, split over `rounds` interleaved rounds; each
// backend with `threads` intra-op threads.
NnBenchResult measure_networks(const std::string& game_spec, const nn::NetConfig& network, const std::vector<int>& batches,
                               double seconds, int rounds, int threads = 1);

// One core's fp32 FMA rate in GFLOP/s over about `seconds` (a kernel built by the JIT for
// this CPU; 0 when it cannot be built).
double measure_fma_peak(double seconds);

}  // namespace pz::bench
