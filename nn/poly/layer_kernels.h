// The training kernels of the policy-value networks: for every layer kind the networks use,
// the forward pass in training mode and the gradients with respect to its inputs and
// weights, each a polyhedral program written in its plain mathematical form with
// polyhedral/'s ScopBuilder (KernelWriter) and optimised by polyc. The convolutions' and
// linear layers' contractions, forward and backward, are reduction chains that polyc
// register-blocks (register_blocking.h); a convolution's weight gradient is its own loop
// nest (a reduction over the batch and the board), scheduled by polyc like any other.
//
// Layout: activations are channels-last, [N][H·W][C] (nn/poly/training.h converts the
// network's NCHW input once and back before a flattening head); weights and their
// gradients keep torch's layouts ([out][in][kh][kw], [out][in]), so that LibTorch's
// optimisers see ordinary parameters. Each kernel packs the weights it reads into the
// order its vector loop wants (output channels innermost) into a workspace first.
//
// Every function takes the batch N first and raw float pointers; workspaces are the
// caller's (sizes below), and every output is overwritten, never accumulated. The layer
// shapes are compiled in; N is a runtime argument. Kernels run on the calling thread.
//
// Formulas (d· is the loss's gradient):
//   conv      y[n][h][w][o] = bias[o] + Σ_{p,q,c} xp[n][h+p][w+q][c] · W[o][c][p][q], xp the
//             input with a zero border of k/2;  dx = the same convolution of dy's padded
//             copy with W rotated by 180° and its channel roles swapped;
//             dW[o][c][p][q] = Σ_{n,h,w} xp[n][h+p][w+q][c] · dy[n][h][w][o];  dbias = Σ dy
//   batch norm (training: Ioffe & Szegedy 2015) μ, σ² over N·H·W per channel (σ² biased),
//             y = γ (x − μ)/√(σ² + ε) + β [+ residual], [ReLU]; the running statistics move
//             by momentum 0.1 (σ² unbiased, as torch.nn.BatchNorm2d); backward: g = dy
//             masked by y > 0 (the ReLU), the residual's gradient g, dβ = Σ g,
//             dγ = Σ g·x̂, dx = γ/√(σ²+ε) · (g − dβ/M − x̂ dγ/M), M = N·H·W
//   linear    y = x Wᵀ + bias [ReLU];  dx = g W, dW = gᵀ x, dbias = Σ_n g
//   pool      network.h's global pooling: per channel mean, mean · (√(H·W) − 14)/10, max;
//             the max's gradient is shared equally by the positions that attain it
//             (as torch's amax)
//   planes    y[n][s][c] = x[n][s][c] + p[n][c] [ReLU];  dx = dy masked, dp = Σ_s dx
//   transpose [N][A][B] → [N][B][A] (its gradient: the transpose back)
//   tanh      y = tanh x;  dx = dy (1 − y²)
//   losses    cross-entropy against soft targets t through the log-softmax of rows of L
//             (policy; win/draw/loss): loss = scale Σ_n w[n] Σ_r Σ_l t (lse − x), lse =
//             max + log Σ exp(x − max);  dx = dloss · scale · w[n] (softmax(x) Σ_l t − t);
//             squared error (scalar value): loss = scale Σ (v − z)²;  dv = 2 dloss · scale (v − z)
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "nn/poly/winograd_kernels.h"
#include "polyhedral/codegen/kernel_writer.h"

namespace pz::poly {
class JitModule;
}

namespace pz::nn {

struct ConvShape {
  int in_channels = 0, out_channels = 0, height = 0, width = 0, kernel = 3;  // kernel 1 or 3
  bool bias = false;
  // 3×3: the output gradient arrives with its zero border (written so by the batch norm
  // after the convolution: BatchNormShape::gradient_pad), so the gradient kernels read it
  // as it is instead of padding a copy.
  bool padded_gradient = false;
  // > 0: a 3×3 convolution without bias or padded gradient run as Winograd F(m×m, 3×3) with
  // this tile m (winograd_kernels.h; ConvKernels::winograd instead of the direct kernels).
  int winograd = 0;
  int pad() const { return kernel / 2; }
  WinogradConvShape winograd_shape() const { return {in_channels, out_channels, height, width, winograd}; }
  auto key() const { return std::tie(in_channels, out_channels, height, width, kernel, bias, padded_gradient, winograd); }
  bool operator<(const ConvShape& o) const { return key() < o.key(); }
};
struct BatchNormShape {
  int channels = 0, plane = 0;  // plane: H·W
  bool residual = false, relu = false;
  // The backward's ReLU mask and both channel sums (dβ, dγ) in one sweep over the
  // activations instead of three (choose_batch_norm_backward decides).
  bool one_sweep_backward = false;
  // > 0: the input's gradient dx is written with a zero border of this many cells, as the
  // 3×3 convolution before the batch norm reads its output gradient (`width`: the board's,
  // plane = height · width); choose_conv_batch_norm_backward decides.
  int width = 0, gradient_pad = 0;
  auto key() const { return std::tie(channels, plane, residual, relu, one_sweep_backward, width, gradient_pad); }
  bool operator<(const BatchNormShape& o) const { return key() < o.key(); }
};
struct LinearShape {
  int inputs = 0, outputs = 0;
  bool relu = false;
  auto key() const { return std::tie(inputs, outputs, relu); }
  bool operator<(const LinearShape& o) const { return key() < o.key(); }
};
struct PlaneShape {  // pooling and per-channel planes: [N][plane][channels]
  int channels = 0, height = 0, width = 0;
  bool relu = false;  // planes: ReLU after the sum (pooling: always false)
  int plane() const { return height * width; }
  auto key() const { return std::tie(channels, height, width, relu); }
  bool operator<(const PlaneShape& o) const { return key() < o.key(); }
};
struct MatrixShape {  // transpose: [N][rows][cols]; cross-entropy: rows of cols; tanh, squared error: rows × cols values
  int rows = 0, cols = 0;
  auto key() const { return std::tie(rows, cols); }
  bool operator<(const MatrixShape& o) const { return key() < o.key(); }
};

// Batch-norm hyper-parameters: torch.nn.BatchNorm2d's defaults, which network.h uses.
inline constexpr float kBatchNormMomentum = 0.1f;
inline constexpr float kBatchNormEpsilon = 1e-5f;

// The layers of one network, as nn/poly/training.h collects them.
struct LayerShapes {
  std::vector<ConvShape> convs;
  std::vector<BatchNormShape> batch_norms;
  std::vector<LinearShape> linears;
  std::vector<PlaneShape> pools, planes;
  std::vector<MatrixShape> transposes, tanhs, cross_entropies, squared_errors;
  // Convolutions whose batch norm writes their output gradient padded (both shapes as
  // planned, also listed above).
  std::vector<std::pair<ConvShape, BatchNormShape>> conv_batch_norms;
};

// Workspace sizes in floats, for n positions.
std::size_t conv_padded_floats(const ConvShape& s, int n);   // xp / dy's padded copy (0 for 1×1)
std::size_t conv_weight_floats(const ConvShape& s);          // one packed weight copy

struct ConvKernels {
  // x [N][H·W][C], w [O][C][k][k], bias [O] (ignored without bias), wt [k·k·C·O],
  // xp [conv_padded_floats] (3×3: written, kept for weight_gradient) → y [N][H·W][O]
  void (*forward)(int, const float* x, const float* w, const float* bias, float* wt, float* xp, float* y);
  // dy [N][H·W][O] (padded_gradient: [N][H+2][W+2][O]), w → dx [N][H·W][C]; wd [k·k·O·C]
  // and dyp [padded, O channels] workspaces (dyp unused with padded_gradient)
  void (*input_gradient)(int, const float* dy, const float* w, float* wd, float* dyp, float* dx);
  // xp (3×3: the forward's; 1×1: x), dy (as input_gradient's) → dw [O][C][k][k], dbias [O]
  // (ignored without bias);
  // dwt [k·k·C·O] workspace
  void (*weight_gradient)(int, const float* xp, const float* dy, float* dwt, float* dw, float* dbias);
  // x [N][H·W][C] → xp (3×3 only; null for 1×1): the forward's padded copy again, for a
  // caller that does not keep it until the weight gradient
  void (*pad)(int, const float* x, float* xp);
  // ConvShape::winograd > 0: these instead of the four above (which are then null)
  WinogradConvKernels winograd{};
};
struct BatchNormKernels {
  // x, residual (ignored without) [N][plane][C], γ, β [C]; running mean/var [C] moved in place
  // → y, mean [C], var [C] (biased), invstd [C]
  void (*forward)(int, const float* x, const float* residual, const float* gamma, const float* beta,
                  float* running_mean, float* running_var, float* mean, float* var, float* invstd, float* y);
  // dy, y (the output, for the ReLU mask), x, mean, invstd, γ → g [N][plane][C] (the
  // residual's gradient: dy masked), dx (with gradient_pad: [N][H+2p][W+2p][C]), dγ, dβ
  void (*backward)(int, const float* dy, const float* y, const float* x, const float* mean, const float* invstd,
                   const float* gamma, float* g, float* dx, float* dgamma, float* dbeta);
};
struct LinearKernels {
  // x [N][I], w [O][I], bias [O], wt [I·O] workspace → y [N][O]
  void (*forward)(int, const float* x, const float* w, const float* bias, float* wt, float* y);
  // dy, y (ReLU mask), x, w → g [N][O] (dy masked), dx [N][I], dw [O][I], dbias [O]
  void (*backward)(int, const float* dy, const float* y, const float* x, const float* w, float* g, float* dx, float* dw,
                   float* dbias);
};
struct PoolKernels {
  // x [N][plane][C] → y [N][3C]
  void (*forward)(int, const float* x, float* y);
  // x, y, dy [N][3C] → dx [N][plane][C]; ties [N][C] workspace (positions at the max)
  void (*backward)(int, const float* x, const float* y, const float* dy, float* ties, float* dx);
};
struct PlaneKernels {
  void (*forward)(int, const float* x, const float* planes, float* y);  // y = x + planes[n][c] [ReLU]
  // dy, y (ReLU mask) → dx (dy masked), dplanes [N][C] (Σ of dx over the plane)
  void (*backward)(int, const float* dy, const float* y, float* dx, float* dplanes);
};
struct MatrixKernels {
  // work: [N][rows][2] floats (unused by these two)
  void (*forward)(int, const float* x, float* work, float* y);
  // dy, y (the forward's output) → dx (transpose: the transpose back, from dy alone)
  void (*backward)(int, const float* dy, const float* y, float* work, float* dx);
};
struct CrossEntropyKernels {
  // x, t [N][rows][cols], w [N], scale [1] → work [N][rows][2] (kept for backward), loss [1]
  void (*forward)(int, const float* x, const float* t, const float* w, const float* scale, float* work, float* loss);
  // … work, dloss [1] → tsum [N][rows] workspace, dx
  void (*backward)(int, const float* x, const float* t, const float* w, const float* scale, const float* work,
                   const float* dloss, float* tsum, float* dx);
};
struct SquaredErrorKernels {
  void (*forward)(int, const float* v, const float* z, const float* scale, float* loss);
  void (*backward)(int, const float* v, const float* z, const float* scale, const float* dloss, float* dv);
};

class PolyLayerKernels {
 public:
  // Generates every layer's kernels and compiles them as one translation unit through the
  // JIT (cached on disk: `cache_dir`, or poly::default_cache_dir() when empty; the generated
  // source too, JitCache::generated_source, since polyc takes seconds over it). Throws
  // std::runtime_error when the C compiler fails.
  explicit PolyLayerKernels(const LayerShapes& shapes, const std::string& cache_dir = "");
  ~PolyLayerKernels();

  // Throws std::out_of_range for a shape the kernels were not built for.
  const ConvKernels& conv(const ConvShape& s) const { return convs_.at(s); }
  const BatchNormKernels& batch_norm(const BatchNormShape& s) const { return batch_norms_.at(s); }
  const LinearKernels& linear(const LinearShape& s) const { return linears_.at(s); }
  const PoolKernels& pool(const PlaneShape& s) const { return pools_.at(s); }
  const PlaneKernels& planes(const PlaneShape& s) const { return planes_.at(s); }
  const MatrixKernels& transpose(const MatrixShape& s) const { return transposes_.at(s); }
  const MatrixKernels& tanh(const MatrixShape& s) const { return tanhs_.at(s); }
  const CrossEntropyKernels& cross_entropy(const MatrixShape& s) const { return cross_entropies_.at(s); }
  const SquaredErrorKernels& squared_error(const MatrixShape& s) const { return squared_errors_.at(s); }

 private:
  std::shared_ptr<poly::JitModule> module_;
  std::map<ConvShape, ConvKernels> convs_;
  std::map<BatchNormShape, BatchNormKernels> batch_norms_;
  std::map<LinearShape, LinearKernels> linears_;
  std::map<PlaneShape, PoolKernels> pools_;
  std::map<PlaneShape, PlaneKernels> planes_;
  std::map<MatrixShape, MatrixKernels> transposes_, tanhs_;
  std::map<MatrixShape, CrossEntropyKernels> cross_entropies_;
  std::map<MatrixShape, SquaredErrorKernels> squared_errors_;
};

// The generated functions' names: NAME_forward, NAME_backward (NAME_input_gradient and
// NAME_weight_gradient for a convolution). `what`: "pool", "planes"; "transpose", "tanh",
// "cross_entropy", "squared_error".
std::string kernel_name(const ConvShape& s);
std::string kernel_name(const BatchNormShape& s);
std::string kernel_name(const LinearShape& s);
std::string kernel_name(const std::string& what, const PlaneShape& s);
std::string kernel_name(const std::string& what, const MatrixShape& s);

// A fusion of the backward pass decided from footprints: the bytes polyc's model
// (polyhedral/analysis/footprint.h) says the layer's kernels move between memory and the caches,
// unfused and fused, at a concrete batch: each loop nest's live-in reads and live-out
// writes, summed over the nests, or, when everything the nests touch fits in L2 together
// (this machine's, cache_info.h), each array once. The fused form is kept only when it
// moves less. The figures are kept in the kernel cache's directory per executable
// (JitCache::generated_source): weighing takes polyc seconds.
struct FusionChoice {
  std::string kernel;  // the unfused kernels' name (kernel_name)
  std::string fusion;  // what the fused form does in one sweep
  int batch = 0;
  double unfused_bytes = 0, fused_bytes = 0;
  bool fused() const { return fused_bytes < unfused_bytes; }
};

// Batch norm's backward: the ReLU mask, dβ = Σ g and dγ = Σ g·x̂ as three sweeps over the
// activations, or as one (`s` with one_sweep_backward); decided for `batch` positions.
FusionChoice choose_batch_norm_backward(BatchNormShape s, int batch);

// A 3×3 convolution followed by its batch norm: the batch norm's backward writes dx, which
// is the convolution's output gradient, into a plain tensor that the convolution's input
// gradient copies into a zero-bordered one, or straight into the bordered one, which both
// of the convolution's gradient kernels then read (`conv` and `norm` as the other choices
// left them); decided for `batch` positions.
FusionChoice choose_conv_batch_norm_backward(ConvShape conv, BatchNormShape norm, int batch);

// polyc's reports of every generated function for a batch of `batch` positions, with
// footprints and data movement (polyhedral/analysis/footprint.h's model): for `polyc --report-net`.
std::vector<poly::KernelReport> analyse_layer_kernels(const LayerShapes& shapes, int batch);

// The C translation unit for `shapes` (what PolyLayerKernels compiles), its arrays of
// `element` type: "float", or "double" for finite-difference checks of the gradients (the
// functions' signatures are the same with double pointers).
std::string layer_kernels_source(const LayerShapes& shapes, std::vector<poly::KernelReport>* reports = nullptr,
                                 const std::string& element = "float");

// layer_kernels_source compiled through the JIT and loaded (its source cached as
// PolyLayerKernels says). Throws std::runtime_error when the C compiler fails.
std::shared_ptr<poly::JitModule> compile_layer_kernels(const LayerShapes& shapes, const std::string& element,
                                                       const std::string& cache_dir = "");

// Any `kernels` as one C translation unit (reports as layer_kernels_source's).
std::string kernels_source(const std::vector<poly::KernelWriter>& kernels, std::vector<poly::KernelReport>* reports,
                           const std::string& element = "float");

// Any `kernels` as one C translation unit, compiled and loaded the same way; `what` names them
// in the cache's key and in the error.
std::shared_ptr<poly::JitModule> compile_kernels(const std::vector<poly::KernelWriter>& kernels, const std::string& what,
                                                 const std::string& cache_dir = "", const std::string& element = "float");

}  // namespace pz::nn
