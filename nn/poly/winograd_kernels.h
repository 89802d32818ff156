// The poly learner's 3×3 convolutions (stride 1, zero border 1, no bias) as Winograd
// F(m×m, 3×3) (nn/poly/winograd.h; Lavin & Gray, "Fast Algorithms for Convolutional Neural
// Networks", CVPR 2016), forward and both gradients, each stage a loop nest that polyc
// optimises like the direct kernels of layer_kernels.h. With g a filter, d an input tile of
// α × α (α = m + 2), Y = Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A gives its m × m outputs, so:
//
//   forward       U = G g Gᵀ per (in, out) channel pair; V = Bᵀ d B per tile and input
//                 channel; M = Σ_c V·U per tile and output channel (α² matrix products);
//                 Y = Aᵀ M A, written where it falls on the board
//   input         the forward of dy with the filters rotated by 180° and their channel roles
//   gradient      swapped (as the direct input gradient)
//   weight        dM = A dY Aᵀ per output tile (dY zero off the board), dU = Σ_{n,tiles} V·dM
//   gradient      per (a, b), dg = Gᵀ dU G
//
// Tiles cover ceil(H/m) × ceil(W/m); input tile (th, tw) reads padded rows th·m … th·m + m + 1,
// so the padded copy has TH·m + 2 rows and TW·m + 2 columns, zero outside the board.
// Layout as layer_kernels.h: activations [N][H·W][C]; the transformed weights u and du
// [α][α][C][O] (output channels innermost, the products' vector loop), ut [α][α][O][C].
// Every function takes the batch N first; `work` holds the stages' intermediate arrays
// (winograd_work_floats), which the caller keeps small by calling a chunk of positions at a
// time (winograd_chunk): the stages then pass their data through L2, not memory.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "polyhedral/codegen/kernel_writer.h"

namespace pz::nn {

struct WinogradConvShape {
  int in_channels = 0, out_channels = 0, height = 0, width = 0, tile = 0;  // tile m in {2, 3, 4}
};

// G (α × 3) in float, row-major: the filter transform's only run-time argument (Bᵀ and Aᵀ are
// constants inside the kernels).
std::vector<float> winograd_filter_transform(int tile);

struct WinogradConvKernels {
  // w [O][C][3][3], g → u [α][α][C][O], ut [α][α][O][C] (w rotated by 180°, C and O swapped);
  // called with N = 1
  void (*transform_weights)(int, const float* w, const float* g, float* work, float* u, float* ut);
  // x [N][H·W][C], u → y [N][H·W][O]
  void (*forward)(int, const float* x, const float* u, float* work, float* y);
  // dy [N][H·W][O], ut → dx [N][H·W][C]
  void (*input_gradient)(int, const float* dy, const float* ut, float* work, float* dx);
  // x, dy, previous [α][α][C][O] → du = previous + the sum over these N positions (du and
  // previous apart: a caller summing chunks alternates two arrays)
  void (*weight_gradient)(int, const float* x, const float* dy, float* work, const float* previous, float* du);
  // du, g → dw [O][C][3][3] (overwritten); called with N = 1
  void (*finish_weight_gradient)(int, const float* du, const float* g, float* work, float* dw);
  std::vector<float> g;  // winograd_filter_transform(tile)
};

// The functions' names: NAME_transform_weights, NAME_forward, NAME_input_gradient,
// NAME_weight_gradient, NAME_finish_weight_gradient.
std::vector<poly::KernelWriter> winograd_conv_kernels(const WinogradConvShape& s, const std::string& name);

// Floats of u, ut or du; of the work array for calls of up to n positions (the largest of
// the four functions' needs).
std::size_t winograd_weight_floats(const WinogradConvShape& s);
std::size_t winograd_work_floats(const WinogradConvShape& s, int n);

// Positions per call that keep one call's arrays (its inputs, outputs and work) within
// `bytes` (half of L2, say); at least 1, at most `n`.
int winograd_chunk(const WinogradConvShape& s, long bytes, int n);

}  // namespace pz::nn
