#include "bench/nn_bench.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>

#include "bench/text.h"
#include "games/registry.h"
#include "nn/backend.h"
#include "nn/network.h"
#include "nn/poly/backend.h"
#include "nn/poly/network.h"
#include "polyhedral/runtime/jit.h"
#include "util/rng.h"

namespace pz::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// 12 independent chains of 512-bit FMAs: 2 pipes × 4-cycle latency need at least 8.
constexpr const char* kPeakSource = R"(#include <immintrin.h>
float pz_fma_peak(long iterations) {
  __m512 a[12], x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  for (int k = 0; k < 12; ++k) a[k] = _mm512_set1_ps((float)k);
  __m512 a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4], a5 = a[5];
  __m512 a6 = a[6], a7 = a[7], a8 = a[8], a9 = a[9], a10 = a[10], a11 = a[11];
  for (long i = 0; i < iterations; ++i) {
    a0 = _mm512_fmadd_ps(a0, x, y); a1 = _mm512_fmadd_ps(a1, x, y); a2 = _mm512_fmadd_ps(a2, x, y);
    a3 = _mm512_fmadd_ps(a3, x, y); a4 = _mm512_fmadd_ps(a4, x, y); a5 = _mm512_fmadd_ps(a5, x, y);
    a6 = _mm512_fmadd_ps(a6, x, y); a7 = _mm512_fmadd_ps(a7, x, y); a8 = _mm512_fmadd_ps(a8, x, y);
    a9 = _mm512_fmadd_ps(a9, x, y); a10 = _mm512_fmadd_ps(a10, x, y); a11 = _mm512_fmadd_ps(a11, x, y);
  }
  __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                           _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
  s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
  return _mm512_reduce_add_ps(s);
}
)";

// Best time of one forward pass over `seconds`.
double best_forward_ms(nn::Backend& backend, const std::vector<float>& input, int rows, std::vector<float>& policy,
                       std::vector<float>& values, double seconds) {
  double best = 1e30;
  const auto start = Clock::now();
  do {
    const auto t = Clock::now();
    backend.forward(input.data(), rows, policy.data(), values.data());
    best = std::min(best, seconds_since(t));
  } while (seconds_since(start) < seconds);
  return best * 1e3;
}

}  // namespace

double measure_fma_peak(double seconds) {
  try {
    poly::JitCache cache(poly::default_cache_dir(), "gcc", "-O2 -march=native -fPIC -shared");
    auto module = cache.load(kPeakSource);
    auto* peak = module->function<float(long)>("pz_fma_peak");
    long iterations = 1 << 16;
    double best = 0;
    const auto start = Clock::now();
    volatile float sink = 0;
    while (seconds_since(start) < seconds) {
      const auto t = Clock::now();
      sink = sink + peak(iterations);
      const double s = seconds_since(t);
      best = std::max(best, 12.0 * 16 * 2 * static_cast<double>(iterations) / s / 1e9);
      if (s < 0.005) iterations *= 2;
    }
    return best;
  } catch (const std::exception&) {
    return 0;
  }
}

NnBenchResult measure_networks(const NnBenchOptions& o) {
  const nn::NetConfig& network = o.network;
  const int threads = o.threads, rounds = o.rounds;
  const double seconds = o.seconds;
  torch::set_num_threads(threads);
  torch::manual_seed(1);
  const auto game = games::make_game(o.game);
  const nn::NetShape shape = nn::net_shape(game->info());
  auto net = nn::make_network(network, game->info());
  net->eval();
  nn::perturb_batch_norms(*net);
  const nn::NetWeights weights = nn::export_weights(*net);
  nn::BackendOptions torch_options, poly_options, direct_options;
  poly_options.name = direct_options.name = "poly";
  direct_options.winograd = "off";
  torch_options.name = "torch";
  torch_options.threads = poly_options.threads = direct_options.threads = threads;
  auto torch_backend = nn::make_backend(torch_options, network, shape);
  auto poly_backend = nn::make_backend(poly_options, network, shape);
  torch_backend->load(weights);
  poly_backend->load(weights);
  std::unique_ptr<nn::Backend> direct_backend;
  if (o.direct) {
    direct_backend = nn::make_backend(direct_options, network, shape);
    direct_backend->load(weights);
  }
  NnBenchResult r;
  r.game = game->spec().to_string();
  r.network = network.to_json().dump();
  r.threads = threads;
  r.flops_per_position = nn::PolyNetwork(network, shape).flops_per_position();
  const double peak_before = measure_fma_peak(0.3);
  util::Rng rng(5);
  for (int rows : o.batches) {
    std::vector<float> input(static_cast<std::size_t>(rows) * static_cast<std::size_t>(shape.input.size()));
    for (float& x : input) x = rng.uniform() < 0.5 ? 0.0f : 1.0f;
    std::vector<float> policy(static_cast<std::size_t>(rows) * static_cast<std::size_t>(shape.policy.size()));
    std::vector<float> values(static_cast<std::size_t>(rows) * static_cast<std::size_t>(shape.value_outputs));
    NnBenchRow row;
    row.batch = rows;
    row.torch_ms = row.poly_ms = 1e30;
    if (direct_backend) row.direct_ms = 1e30;
    const double slice = seconds / std::max(1, rounds);
    for (int round = 0; round < std::max(1, rounds); ++round) {
      row.torch_ms = std::min(row.torch_ms, best_forward_ms(*torch_backend, input, rows, policy, values, slice));
      row.poly_ms = std::min(row.poly_ms, best_forward_ms(*poly_backend, input, rows, policy, values, slice));
      if (direct_backend)
        row.direct_ms = std::min(row.direct_ms, best_forward_ms(*direct_backend, input, rows, policy, values, slice));
    }
    const double flops = r.flops_per_position * rows;
    row.torch_gflops = flops / (row.torch_ms * 1e-3) / 1e9;
    row.poly_gflops = flops / (row.poly_ms * 1e-3) / 1e9;
    if (direct_backend) row.direct_gflops = flops / (row.direct_ms * 1e-3) / 1e9;
    r.rows.push_back(row);
  }
  r.peak_gflops = std::max(peak_before, measure_fma_peak(0.3));
  return r;
}

void run_nn_bench(const NnBenchOptions& options, std::ostream& out) {
  const NnBenchResult r = measure_networks(options);
  const double peak = r.peak_gflops > 0 ? r.peak_gflops : 1;
  if (options.json) {
    for (const auto& row : r.rows) {
      nlohmann::json j{{"game", r.game},
                       {"batch", row.batch},
                       {"torch_ms", row.torch_ms},
                       {"poly_ms", row.poly_ms},
                       {"torch_gflops", row.torch_gflops},
                       {"poly_gflops", row.poly_gflops},
                       {"torch_peak_share", row.torch_gflops / peak},
                       {"poly_peak_share", row.poly_gflops / peak},
                       {"poly_over_torch", row.ratio()}};
      if (options.direct) {
        j["poly_direct_ms"] = row.direct_ms;
        j["poly_direct_gflops"] = row.direct_gflops;
        j["poly_over_direct"] = row.direct_ms / row.poly_ms;
      }
      out << j.dump() << std::endl;
    }
    out << nlohmann::json{{"game", r.game}, {"network", nlohmann::json::parse(r.network)},
                          {"flops_per_position", r.flops_per_position}, {"peak_gflops", r.peak_gflops},
                          {"threads", r.threads}}
               .dump()
        << std::endl;
    return;
  }
  out << format("%s, network %s: %.2f MFLOP per position\n", r.game.c_str(), r.network.c_str(), r.flops_per_position / 1e6);
  out << format("one core's fp32 FMA peak, measured in this run: %.0f GFLOP/s; %d thread(s) per backend\n", r.peak_gflops,
                r.threads);
  out << "poly: the default plan (the model's Winograd 3x3 convolutions, or all direct where that ran faster when\n"
         "measured on this machine); GFLOP/s count the direct convolution's FLOPs, so they are effective rates and may\n"
         "exceed the peak\n";
  out << format("%6s  %10s %8s %6s  %10s %8s %6s  %10s", "batch", "torch ms", "GFLOP/s", "peak", "poly ms", "GFLOP/s", "peak",
                "poly/torch");
  out << (options.direct ? format("  %10s %8s  %12s\n", "direct ms", "GFLOP/s", "poly/direct") : "\n");
  for (const auto& row : r.rows) {
    out << format("%6d  %10.3f %8.1f %5.0f%%  %10.3f %8.1f %5.0f%%  %9.2fx", row.batch, row.torch_ms, row.torch_gflops,
                  100 * row.torch_gflops / peak, row.poly_ms, row.poly_gflops, 100 * row.poly_gflops / peak, row.ratio());
    out << (options.direct ? format("  %10.3f %8.1f  %11.2fx\n", row.direct_ms, row.direct_gflops, row.direct_ms / row.poly_ms)
                           : "\n");
  }
}

}  // namespace pz::bench
