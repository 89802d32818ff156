#include "bench/nn_bench.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>

#include "games/registry.h"
#include "nn/backend.h"
#include "nn/network.h"
#include "nn/poly_backend.h"
#include "nn/poly_network.h"
#include "polyhedral/jit.h"
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
    poly::JitCache cache(nn::default_kernel_cache(), "gcc", "-O2 -march=native -fPIC -shared");
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

NnBenchResult measure_networks(const std::string& game_spec, const nn::NetConfig& network, const std::vector<int>& batches,
                               double seconds, int rounds, int threads) {
  torch::set_num_threads(threads);
  torch::manual_seed(1);
  const auto game = games::make_game(game_spec);
  const nn::NetShape shape = nn::net_shape(game->info());
  auto net = nn::make_network(network, game->info());
  net->eval();
  nn::perturb_batch_norms(*net);
  const nn::NetWeights weights = nn::export_weights(*net);
  nn::BackendOptions torch_options, poly_options;
  poly_options.name = "poly";
  torch_options.name = "torch";
  torch_options.threads = poly_options.threads = threads;
  auto torch_backend = nn::make_backend(torch_options, network, shape);
  auto poly_backend = nn::make_backend(poly_options, network, shape);
  torch_backend->load(weights);
  poly_backend->load(weights);
  NnBenchResult r;
  r.game = game->spec().to_string();
  r.network = network.to_json().dump();
  r.threads = threads;
  r.flops_per_position = nn::PolyNetwork(network, shape).flops_per_position();
  const double peak_before = measure_fma_peak(0.3);
  util::Rng rng(5);
  for (int rows : batches) {
    std::vector<float> input(static_cast<std::size_t>(rows) * static_cast<std::size_t>(shape.input.size()));
    for (float& x : input) x = rng.uniform() < 0.5 ? 0.0f : 1.0f;
    std::vector<float> policy(static_cast<std::size_t>(rows) * static_cast<std::size_t>(shape.policy.size()));
    std::vector<float> values(static_cast<std::size_t>(rows) * static_cast<std::size_t>(shape.value_outputs));
    NnBenchRow row;
    row.batch = rows;
    row.torch_ms = row.poly_ms = 1e30;
    const double slice = seconds / std::max(1, rounds);
    for (int round = 0; round < std::max(1, rounds); ++round) {
      row.torch_ms = std::min(row.torch_ms, best_forward_ms(*torch_backend, input, rows, policy, values, slice));
      row.poly_ms = std::min(row.poly_ms, best_forward_ms(*poly_backend, input, rows, policy, values, slice));
    }
    const double flops = r.flops_per_position * rows;
    row.torch_gflops = flops / (row.torch_ms * 1e-3) / 1e9;
    row.poly_gflops = flops / (row.poly_ms * 1e-3) / 1e9;
    r.rows.push_back(row);
  }
  r.peak_gflops = std::max(peak_before, measure_fma_peak(0.3));
  return r;
}

}  // namespace pz::bench
