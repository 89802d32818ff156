// `polyzero bench nn`: forward passes of one network on the torch and poly backends (one
// thread unless told otherwise), in the same run: interleaved rounds per batch size, each backend's best round,
// GFLOP/s over the whole network (multiply-add = 2, padded 3×3 taps counted, as every
// backend computes them), and that rate's share of one core's fp32 FMA peak, itself
// measured in the same run (12 independent 512-bit FMA chains, before and after the rows).
// Where the poly backend runs Winograd convolutions (nn/poly/winograd.h) the FLOPs are still
// the direct convolution's: its rate is effective and may exceed the peak.
// Each row also times the poly backend with Winograd off (its direct convolutions), so one
// run shows what the Winograd stages buy.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "nn/net_config.h"

namespace pz::bench {

struct NnBenchRow {
  int batch = 0;
  double torch_ms = 0, poly_ms = 0;  // per forward pass, best round
  double torch_gflops = 0, poly_gflops = 0;
  double direct_ms = 0, direct_gflops = 0;  // poly with winograd "off" (0: not measured)
  double ratio() const { return torch_ms / poly_ms; }  // poly's speed-up over torch
};

struct NnBenchResult {
  std::string game, network;
  int threads = 1;
  double flops_per_position = 0;
  double peak_gflops = 0;  // one core, measured in this run
  std::vector<NnBenchRow> rows;
};

struct NnBenchOptions {
  std::string game = "connect4";
  nn::NetConfig network;
  std::vector<int> batches{1, 2, 8, 32, 128};
  double seconds = 1.0;  // per (backend, batch) in total, split over the rounds
  int rounds = 5;        // interleaved
  int threads = 1;       // intra-op threads of each backend
  bool direct = true;    // also time poly with its direct convolutions
  bool json = false;     // one JSON object per row, then a summary, instead of a table
};

NnBenchResult measure_networks(const NnBenchOptions& options);

// `polyzero bench nn`: measures and writes the table (or JSON).
void run_nn_bench(const NnBenchOptions& options, std::ostream& out);

// One core's fp32 FMA rate in GFLOP/s over about `seconds` (a kernel built by the JIT for
// this CPU; 0 when it cannot be built).
double measure_fma_peak(double seconds);

}  // namespace pz::bench
