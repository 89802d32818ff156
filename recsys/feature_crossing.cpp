#include "recsys/feature_crossing.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "polyhedral/analysis/cache_info.h"
#include "polyhedral/codegen/kernel_writer.h"
#include "polyhedral/frontend/builder.h"
#include "polyhedral/runtime/jit.h"

namespace pz::recsys {

namespace {

// Plain C on the calling thread, vectorised by polyc's `omp simd` marks (as nn's kernels).
constexpr const char* kFlags = "-O3 -march=native -mprefer-vector-width=512 -fopenmp-simd -fno-math-errno -fPIC -shared";

std::string str(long long v) { return std::to_string(v); }

// Floats in one vector register of the widest vectors the flags above allow (AVX-512).
constexpr long long kVectorFloats = 16;

// F rounded up to whole vectors: the padded width of the dot interaction's copies.
long long padded_features(long long features) { return (features + kVectorFloats - 1) / kVectorFloats * kVectorFloats; }

// Examples per call of pz_dot_forward: its copies (xᵀ and the padded Gram rows) and the
// examples' x together in half of this machine's L2, so that each nest reads what the one
// before it wrote from cache.
long long chunk_for(const CrossingShape& s) {
  static const long l2 = poly::CacheInfo::detect().l2;
  const long long floats = static_cast<long long>(s.features) * s.dim +
                           padded_features(s.features) * (static_cast<long long>(s.dim) + s.features);
  return std::max(1LL, l2 / 2 / (4 * floats));
}

// One exported function and the FLOPs it does per example.
struct Kernel {
  Kernel(std::string name, std::vector<poly::KernelArgument> arguments, double flops)
      : writer(std::move(name), std::move(arguments)), flops_per_example(flops) {}
  Kernel& nest(poly::KernelWriter::Nest describe, poly::KernelWriter::Order order = poly::KernelWriter::Order::kScheduled) {
    writer.nest(std::move(describe), order);
    return *this;
  }
  poly::KernelWriter writer;
  double flops_per_example;
};

std::vector<Kernel> kernels(const CrossingShape& shape) {
  const long long F = shape.features, D = shape.dim, K = shape.cross_width();
  const std::string f = str(F), d = str(D), k = str(K);
  const std::string embeddings = "[" + f + "][" + d + "]", pairs = "[" + f + "][" + f + "]", row = "[" + k + "]";
  std::vector<Kernel> out;

  // fm: sum = Σ_f v; y = ½ Σ_d sum² − ½ Σ_f Σ_d v².
  out.emplace_back(Kernel("pz_fm_forward", {{"v", embeddings}, {"y", "", true}, {"sum", "[" + d + "]", true}},
                                static_cast<double>(3 * F * D + 3 * D))
                       .nest([=](poly::ScopBuilder& b) {
                         b.for_("b", "0", "N");
                         b.for_("e", "0", d).stmt("sum[b][e] = 0.0f").end();
                         b.for_("i", "0", f).for_("e", "0", d).stmt("sum[b][e] += v[b][i][e]").end().end();
                         b.stmt("y[b] = 0.0f");
                         b.for_("i", "0", f).for_("e", "0", d).stmt("y[b] -= 0.5f * v[b][i][e] * v[b][i][e]").end().end();
                         b.for_("e", "0", d).stmt("y[b] += 0.5f * sum[b][e] * sum[b][e]").end();
                         b.end();
                       }));
  out.emplace_back(
      Kernel("pz_fm_backward", {{"v", embeddings}, {"sum", "[" + d + "]"}, {"dy", ""}, {"dv", embeddings, true}},
                   static_cast<double>(2 * F * D))
          .nest([=](poly::ScopBuilder& b) {
            b.for_("b", "0", "N").for_("i", "0", f).for_("e", "0", d);
            b.stmt("dv[b][i][e] = dy[b] * (sum[b][e] - v[b][i][e])").end().end().end();
          }));

  // dot: the strictly lower triangle of x xᵀ per example, and its gradient.
  // The Gram matrix by outer products: xᵀ copied with its rows padded with zeros to whole
  // vectors (P columns), so that the register block's vectors run along j with unit stride
  // and no remainder; the block's padded rows go to zp, and their F × F part to z. The
  // caller runs the batch in chunks whose copies stay in L2 (dot_chunk).
  const long long P = padded_features(F);
  const std::string p = str(P), padded = "[" + d + "][" + p + "]";
  Kernel dot_forward("pz_dot_forward", {{"x", embeddings}, {"xt", padded, true}, {"zp", "[" + f + "][" + p + "]", true}, {"z", pairs, true}},
                     static_cast<double>(2 * F * F * D));
  if (P > F)
    dot_forward.nest([=](poly::ScopBuilder& b) {
      b.for_("b", "0", "N").for_("e", "0", d).for_("j", f, p).stmt("xt[b][e][j] = 0.0f").end().end().end();
    });
  // Rows of x read with unit stride (the stores, one column of xt, stay in L1).
  dot_forward
      .nest([=](poly::ScopBuilder& b) {
        b.for_("b", "0", "N").for_("i", "0", f).for_("e", "0", d).stmt("xt[b][e][i] = x[b][i][e]").end().end().end();
      }, poly::KernelWriter::Order::kAsWritten)
      .nest([=](poly::ScopBuilder& b) {
        b.for_("b", "0", "N").for_("i", "0", f).for_("j", "0", p).stmt("zp[b][i][j] = 0.0f");
        b.for_("e", "0", d).stmt("zp[b][i][j] += x[b][i][e] * xt[b][e][j]").end();
        b.end().end().end();
      })
      .nest([=](poly::ScopBuilder& b) {
        b.for_("b", "0", "N").for_("i", "0", f).for_("j", "0", f).stmt("z[b][i][j] = zp[b][i][j]").end().end().end();
      });
  out.push_back(std::move(dot_forward));
  out.emplace_back(Kernel("pz_dot_backward", {{"x", embeddings}, {"dz", pairs}, {"s", pairs, true}, {"dx", embeddings, true}},
                                static_cast<double>(2 * F * (F - 1) * D))
                       // dz symmetrised (zero diagonal), so that dx = S x is one contraction.
                       .nest([=](poly::ScopBuilder& b) {
                         b.for_("b", "0", "N").for_("i", "0", f).for_("j", "0", f);
                         b.stmt("s[b][i][j] = j < i ? dz[b][i][j] : (j > i ? dz[b][j][i] : 0.0f)").end().end().end();
                       })
                       .nest([=](poly::ScopBuilder& b) {
                         b.for_("b", "0", "N").for_("i", "0", f).for_("e", "0", d).stmt("dx[b][i][e] = 0.0f");
                         b.for_("j", "0", f).stmt("dx[b][i][e] += s[b][i][j] * x[b][j][e]").end();
                         b.end().end().end();
                       }));

  // cross: u = W x + bias, y = x0 ⊙ u + x, and the gradients.
  out.emplace_back(Kernel("pz_cross_forward",
                                {{"x0", row}, {"x", row}, {"w", row}, {"bias", ""}, {"wt", row, true}, {"u", row, true}, {"y", row, true}},
                                static_cast<double>(2 * K * K + 3 * K))
                       // Wᵀ, so that the product's vector runs along the output with unit stride.
                       .nest([=](poly::ScopBuilder& b) {
                         b.for_("i", "0", k).for_("j", "0", k).stmt("wt[j][i] = w[i][j]").end().end();
                       })
                       // y keeps a sweep of its own: fused into the packed product's micro-tiles
                       // (as matmul_packing.h does when they share a nest) it made the forward
                       // slower at width 16 (docs/BENCHMARKS.md).
                       .nest([=](poly::ScopBuilder& b) {
                         b.for_("b", "0", "N").for_("i", "0", k).stmt("u[b][i] = bias[i]");
                         b.for_("j", "0", k).stmt("u[b][i] += x[b][j] * wt[j][i]").end().end().end();
                       })
                       .nest([=](poly::ScopBuilder& b) {
                         b.for_("b", "0", "N").for_("i", "0", k).stmt("y[b][i] = x0[b][i] * u[b][i] + x[b][i]").end().end();
                       }));
  out.emplace_back(Kernel("pz_cross_backward",
                                {{"x0", row},
                                 {"x", row},
                                 {"w", row},
                                 {"u", row},
                                 {"dy", row},
                                 {"du", row, true},
                                 {"dx0", row, true},
                                 {"dx", row, true},
                                 {"dw", row, true},
                                 {"dbias", "", true}},
                                static_cast<double>(4 * K * K + 4 * K))
                       // du, dx0 and dbias in one sweep over dy (isl would split it again).
                       .nest(
                           [=](poly::ScopBuilder& b) {
                             b.for_("i", "0", k).stmt("dbias[i] = 0.0f").end();
                             b.for_("b", "0", "N").for_("i", "0", k);
                             b.stmt("du[b][i] = dy[b][i] * x0[b][i]").stmt("dx0[b][i] = dy[b][i] * u[b][i]");
                             b.stmt("dbias[i] += du[b][i]").end().end();
                           },
                           poly::KernelWriter::Order::kAsWritten)
                       .nest([=](poly::ScopBuilder& b) {
                         b.for_("b", "0", "N").for_("j", "0", k).stmt("dx[b][j] = dy[b][j]");
                         b.for_("i", "0", k).stmt("dx[b][j] += w[i][j] * du[b][i]").end().end().end();
                       })
                       .nest([=](poly::ScopBuilder& b) {
                         b.for_("i", "0", k).for_("j", "0", k).stmt("dw[i][j] = 0.0f");
                         b.for_("b", "0", "N").stmt("dw[i][j] += du[b][i] * x[b][j]").end().end().end();
                       }));
  return out;
}

}  // namespace

std::string feature_crossing_source(const CrossingShape& shape, std::vector<CrossingKernelReport>* reports) {
  if (shape.features < 1 || shape.dim < 1) {
    throw std::invalid_argument("feature crossing: features and dim must be positive (got " + str(shape.features) + " and " +
                                str(shape.dim) + ")");
  }
  std::string code = "/* Generated by polyzero's recsys/: feature-crossing kernels for " + str(shape.features) +
                     " features of width " + str(shape.dim) + ", each loop nest optimised by polyc. */\n\n";
  if (reports) reports->clear();
  poly::KernelWriterOptions options;
  options.pack_contractions = true;
  for (const Kernel& kernel : kernels(shape)) {
    poly::KernelReport written;
    code += kernel.writer.source(written, options);
    if (reports) reports->push_back({written.name, written.schedule, kernel.flops_per_example});
  }
  return code;
}

struct FeatureCrossing::Functions {
  void (*fm_forward)(int, const float*, float*, float*);
  void (*fm_backward)(int, const float*, const float*, const float*, float*);
  void (*dot_forward)(int, const float*, float*, float*, float*);
  void (*dot_backward)(int, const float*, const float*, float*, float*);
  void (*cross_forward)(int, const float*, const float*, const float*, const float*, float*, float*, float*);
  void (*cross_backward)(int, const float*, const float*, const float*, const float*, const float*, float*, float*,
                         float*, float*, float*);
};

FeatureCrossing::FeatureCrossing(const CrossingShape& shape, const std::string& cache_dir)
    : shape_(shape), fn_(std::make_unique<Functions>()) {
  const std::string source = feature_crossing_source(shape, &reports_);
  poly::JitCache cache(cache_dir.empty() ? poly::default_cache_dir() : cache_dir, "gcc", kFlags);
  try {
    module_ = cache.load(source);
  } catch (const std::exception& e) {
    throw std::runtime_error("feature crossing kernels (" + str(shape.features) + " features x " + str(shape.dim) +
                             ") failed to compile: " + e.what());
  }
  fn_->fm_forward = module_->function<void(int, const float*, float*, float*)>("pz_fm_forward");
  fn_->fm_backward = module_->function<void(int, const float*, const float*, const float*, float*)>("pz_fm_backward");
  fn_->dot_forward = module_->function<void(int, const float*, float*, float*, float*)>("pz_dot_forward");
  fn_->dot_backward = module_->function<void(int, const float*, const float*, float*, float*)>("pz_dot_backward");
  fn_->cross_forward = module_->function<void(int, const float*, const float*, const float*, const float*, float*, float*, float*)>(
      "pz_cross_forward");
  fn_->cross_backward = module_->function<void(int, const float*, const float*, const float*, const float*, const float*,
                                               float*, float*, float*, float*, float*)>("pz_cross_backward");
}

FeatureCrossing::~FeatureCrossing() = default;

void FeatureCrossing::fm_forward(int batch, const float* v, float* y, float* sum) const { fn_->fm_forward(batch, v, y, sum); }
void FeatureCrossing::fm_backward(int batch, const float* v, const float* sum, const float* dy, float* dv) const {
  fn_->fm_backward(batch, v, sum, dy, dv);
}
namespace {

// A workspace of `n` floats for the calling thread, kept between calls: the transposes and
// the symmetrised dz are rewritten by every call, and a fresh allocation of Wᵀ (44 MB at 26
// features of width 128) would be mapped anew and page-faulted in on each call. So one
// object serves several threads; each keeps its largest workspace until it exits.
float* thread_workspace(std::size_t n) {
  static thread_local std::vector<float> workspace;
  if (workspace.size() < n) workspace.resize(n);
  return workspace.data();
}

}  // namespace

int FeatureCrossing::dot_chunk() const { return static_cast<int>(std::min<long long>(chunk_for(shape_), 1 << 30)); }
void FeatureCrossing::dot_forward(int batch, const float* x, float* z) const {
  const long long chunk = chunk_for(shape_), f = shape_.features, d = shape_.dim, p = padded_features(f);
  float* xt = thread_workspace(static_cast<std::size_t>(std::min<long long>(chunk, batch) * p * (d + f)));
  float* zp = xt + std::min<long long>(chunk, batch) * p * d;
  for (long long b = 0; b < batch; b += chunk) {
    const int n = static_cast<int>(std::min<long long>(chunk, batch - b));
    fn_->dot_forward(n, x + b * f * d, xt, zp, z + b * f * f);
  }
}
void FeatureCrossing::dot_backward(int batch, const float* x, const float* dz, float* dx) const {
  fn_->dot_backward(batch, x, dz, thread_workspace(static_cast<std::size_t>(batch) * shape_.features * shape_.features), dx);
}
void FeatureCrossing::cross_forward(int batch, const float* x0, const float* x, const float* w, const float* bias, float* u,
                                    float* y) const {
  const std::size_t k = static_cast<std::size_t>(shape_.cross_width());
  fn_->cross_forward(batch, x0, x, w, bias, thread_workspace(k * k), u, y);
}
void FeatureCrossing::cross_backward(int batch, const float* x0, const float* x, const float* w, const float* u,
                                     const float* dy, float* du, float* dx0, float* dx, float* dw, float* dbias) const {
  fn_->cross_backward(batch, x0, x, w, u, dy, du, dx0, dx, dw, dbias);
}

}  // namespace pz::recsys
