#include "bench/recsys_bench.h"

#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

#include "bench/nn_bench.h"
#include "bench/text.h"
#include "recsys/feature_crossing.h"
#include "util/error.h"

namespace pz::bench {

namespace {

using Clock = std::chrono::steady_clock;

// Best time of `run` in ms over about `seconds` (at least one call).
double best_ms(const std::function<void()>& run, double seconds) {
  double best = 1e30;
  const auto start = Clock::now();
  do {
    const auto t = Clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t).count());
  } while (std::chrono::duration<double>(Clock::now() - start).count() < seconds);
  return best * 1e3;
}

float* data(torch::Tensor& t) { return t.data_ptr<float>(); }

// One kernel's four timed closures over the same inputs.
struct Contestants {
  std::function<void()> poly_forward, poly_step, torch_forward, torch_step;
  double flops_per_example = 0;  // forward + backward
};

Contestants fm(const recsys::FeatureCrossing& k, int batch) {
  const recsys::CrossingShape s = k.shape();
  auto v = std::make_shared<torch::Tensor>(torch::randn({batch, s.features, s.dim}));
  auto y = std::make_shared<torch::Tensor>(torch::empty({batch})), sum = std::make_shared<torch::Tensor>(torch::empty({batch, s.dim}));
  auto dy = std::make_shared<torch::Tensor>(torch::randn({batch})), dv = std::make_shared<torch::Tensor>(torch::empty_like(*v));
  auto torch_fm = [v] {
    const torch::Tensor sums = v->sum(1);
    return 0.5 * (sums * sums - (*v * *v).sum(1)).sum(1);
  };
  Contestants c;
  c.poly_forward = [&k, batch, v, y, sum] { k.fm_forward(batch, data(*v), data(*y), data(*sum)); };
  c.poly_step = [&k, batch, v, y, sum, dy, dv] {
    k.fm_forward(batch, data(*v), data(*y), data(*sum));
    k.fm_backward(batch, data(*v), data(*sum), data(*dy), data(*dv));
  };
  c.torch_forward = [torch_fm] {
    torch::NoGradGuard no_grad;
    torch_fm();
  };
  c.torch_step = [v, dy, torch_fm] {
    v->set_requires_grad(true);
    v->mutable_grad() = torch::Tensor();
    torch_fm().backward(*dy);
    v->set_requires_grad(false);
  };
  return c;
}

Contestants dot(const recsys::FeatureCrossing& k, int batch) {
  const recsys::CrossingShape s = k.shape();
  auto x = std::make_shared<torch::Tensor>(torch::randn({batch, s.features, s.dim}));
  auto z = std::make_shared<torch::Tensor>(torch::empty({batch, s.features, s.features}));
  auto dz = std::make_shared<torch::Tensor>(torch::randn({batch, s.features, s.features}));
  auto dx = std::make_shared<torch::Tensor>(torch::empty_like(*x));
  // DLRM's form: the batched Gram matrix, then the strictly lower triangle gathered.
  const torch::Tensor rows_cols = torch::tril_indices(s.features, s.features, -1);
  auto torch_dot = [x, rows_cols] {
    const torch::Tensor gram = torch::bmm(*x, x->transpose(1, 2));
    return gram.index({torch::indexing::Slice(), rows_cols[0], rows_cols[1]});
  };
  auto dz_pairs = std::make_shared<torch::Tensor>(torch::randn({batch, rows_cols.size(1)}));
  Contestants c;
  c.poly_forward = [&k, batch, x, z] { k.dot_forward(batch, data(*x), data(*z)); };
  c.poly_step = [&k, batch, x, z, dz, dx] {
    k.dot_forward(batch, data(*x), data(*z));
    k.dot_backward(batch, data(*x), data(*dz), data(*dx));
  };
  c.torch_forward = [torch_dot] {
    torch::NoGradGuard no_grad;
    torch_dot();
  };
  c.torch_step = [x, dz_pairs, torch_dot] {
    x->set_requires_grad(true);
    x->mutable_grad() = torch::Tensor();
    torch_dot().backward(*dz_pairs);
    x->set_requires_grad(false);
  };
  return c;
}

Contestants cross(const recsys::FeatureCrossing& k, int batch) {
  const int width = k.shape().cross_width();
  auto t = [](std::vector<int64_t> sizes) { return std::make_shared<torch::Tensor>(torch::randn(sizes)); };
  auto x0 = t({batch, width}), x = t({batch, width}), w = t({width, width}), bias = t({width}), dy = t({batch, width});
  auto u = t({batch, width}), y = t({batch, width}), du = t({batch, width}), dx0 = t({batch, width}), dx = t({batch, width});
  auto dw = t({width, width}), dbias = t({width});
  auto torch_cross = [x0, x, w, bias] { return *x0 * torch::nn::functional::linear(*x, *w, *bias) + *x; };
  Contestants c;
  c.poly_forward = [&k, batch, x0, x, w, bias, u, y] { k.cross_forward(batch, data(*x0), data(*x), data(*w), data(*bias), data(*u), data(*y)); };
  c.poly_step = [&k, batch, x0, x, w, bias, u, y, dy, du, dx0, dx, dw, dbias] {
    k.cross_forward(batch, data(*x0), data(*x), data(*w), data(*bias), data(*u), data(*y));
    k.cross_backward(batch, data(*x0), data(*x), data(*w), data(*u), data(*dy), data(*du), data(*dx0), data(*dx), data(*dw),
                     data(*dbias));
  };
  c.torch_forward = [torch_cross] {
    torch::NoGradGuard no_grad;
    torch_cross();
  };
  c.torch_step = [x0, x, w, bias, dy, torch_cross] {
    for (auto* p : {x0.get(), x.get(), w.get(), bias.get()}) p->set_requires_grad(true), p->mutable_grad() = torch::Tensor();
    torch_cross().backward(*dy);
    for (auto* p : {x0.get(), x.get(), w.get(), bias.get()}) p->set_requires_grad(false);
  };
  return c;
}

double flops_of_step(const recsys::FeatureCrossing& k, const std::string& kernel) {
  double total = 0;
  for (const auto& r : k.reports())
    if (r.name.rfind("pz_" + kernel + "_", 0) == 0) total += r.flops_per_example;
  return total;
}

}  // namespace

std::vector<RecsysBenchRow> measure_recsys(const RecsysBenchOptions& o) {
  if (o.batch < 1 || o.features < 1 || o.dims.empty()) throw util::UsageError("bench recsys: --batch, --features and --dims must be positive");
  for (const auto& name : o.kernels)
    if (name != "fm" && name != "dot" && name != "cross")
      throw util::UsageError("bench recsys: unknown kernel '" + name + "' (valid: fm, dot, cross)");
  torch::set_num_threads(1);
  torch::manual_seed(1);
  std::vector<RecsysBenchRow> rows;
  for (const int dim : o.dims) {
    if (dim < 1) throw util::UsageError("bench recsys: --dims must be positive");
    const recsys::FeatureCrossing kernels(recsys::CrossingShape{o.features, dim});
    for (const auto& name : o.kernels) {
      const Contestants c = name == "fm" ? fm(kernels, o.batch) : name == "dot" ? dot(kernels, o.batch) : cross(kernels, o.batch);
      RecsysBenchRow row{name, dim, 1e30, 1e30, 1e30, 1e30};
      const double slice = o.seconds / std::max(1, o.rounds);
      for (int round = 0; round < std::max(1, o.rounds); ++round) {
        row.poly_forward_ms = std::min(row.poly_forward_ms, best_ms(c.poly_forward, slice));
        row.torch_forward_ms = std::min(row.torch_forward_ms, best_ms(c.torch_forward, slice));
        row.poly_step_ms = std::min(row.poly_step_ms, best_ms(c.poly_step, slice));
        row.torch_step_ms = std::min(row.torch_step_ms, best_ms(c.torch_step, slice));
      }
      const double flops = flops_of_step(kernels, name) * o.batch;
      row.poly_gflops = flops / (row.poly_step_ms * 1e6);
      row.torch_gflops = flops / (row.torch_step_ms * 1e6);
      rows.push_back(row);
    }
  }
  return rows;
}

void run_recsys_bench(const RecsysBenchOptions& o, std::ostream& out) {
  // One core's fp32 FMA peak, before and after (the higher): the ceiling both sides share.
  const double peak_before = measure_fma_peak(0.3);
  const std::vector<RecsysBenchRow> rows = measure_recsys(o);
  const double peak = std::max(peak_before, measure_fma_peak(0.3));
  auto share = [peak](double gflops) { return peak > 0 ? gflops / peak : 0.0; };
  if (o.json) {
    for (const auto& r : rows)
      out << nlohmann::json{{"kernel", r.kernel},           {"batch", o.batch},
                            {"features", o.features},       {"dim", r.dim},
                            {"poly_forward_ms", r.poly_forward_ms}, {"torch_forward_ms", r.torch_forward_ms},
                            {"poly_step_ms", r.poly_step_ms},       {"torch_step_ms", r.torch_step_ms},
                            {"poly_gflops", r.poly_gflops},         {"torch_gflops", r.torch_gflops},
                            {"forward_ratio", r.forward_ratio()},   {"step_ratio", r.step_ratio()},
                            {"peak_gflops", peak},                  {"poly_peak_share", share(r.poly_gflops)},
                            {"torch_peak_share", share(r.torch_gflops)}}
                 .dump()
          << "\n";
    return;
  }
  out << format("feature crossing, batch %d, %d features, one thread; step = forward + backward; ratio = torch / poly\n",
                o.batch, o.features);
  out << format("one core's fp32 FMA peak, measured in this run: %.1f GFLOP/s (%% pk: a step's share of it)\n", peak);
  out << format("%-6s %5s %11s %11s %7s %11s %11s %7s %10s %10s %5s %5s\n", "kernel", "dim", "poly fwd ms", "torch fwd ms",
                "ratio", "poly step", "torch step", "ratio", "poly GF/s", "torch GF/s", "% pk", "% pk");
  for (const auto& r : rows)
    out << format("%-6s %5d %11.3f %11.3f %6.2fx %11.3f %11.3f %6.2fx %10.1f %10.1f %5.0f %5.0f\n", r.kernel.c_str(),
                  r.dim, r.poly_forward_ms, r.torch_forward_ms, r.forward_ratio(), r.poly_step_ms, r.torch_step_ms,
                  r.step_ratio(), r.poly_gflops, r.torch_gflops, 100 * share(r.poly_gflops), 100 * share(r.torch_gflops));
}

}  // namespace pz::bench
