// The Winograd training convolutions (nn/poly/winograd_kernels.h) in float, at the sizes
// the learner runs them (64 channels: whole vectors and register blocks, batches split in
// chunks), against the direct kernels of the same shape: outputs, input gradients and
// weight gradients agree to float rounding (measured: 1–3e-6 of the largest value). The double-precision checks of both against
// central differences are in poly_gradient_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "nn/poly/layer_kernels.h"
#include "polyhedral/runtime/jit.h"

namespace pz::nn {
namespace {

using Floats = std::vector<float>;

Floats random_floats(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  Floats v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// The largest difference relative to the largest magnitude of `expected`.
double relative_error(const Floats& got, const Floats& expected) {
  double largest = 0, error = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    largest = std::max(largest, std::abs(static_cast<double>(expected[i])));
    error = std::max(error, std::abs(static_cast<double>(got[i]) - expected[i]));
  }
  return error / std::max(largest, 1e-30);
}

struct Result {
  Floats y, dx, dw;
};

Result run_direct(const ConvKernels& k, const ConvShape& s, int n, const Floats& x, const Floats& w, const Floats& dy) {
  const std::size_t weights = conv_weight_floats(s), padded = conv_padded_floats(s, n);
  Result r{Floats(dy.size()), Floats(x.size()), Floats(w.size())};
  Floats wt(weights), xp(padded), dyp(padded), bias(static_cast<std::size_t>(s.out_channels));
  k.forward(n, x.data(), w.data(), bias.data(), wt.data(), xp.data(), r.y.data());
  k.input_gradient(n, dy.data(), w.data(), wt.data(), dyp.data(), r.dx.data());
  k.weight_gradient(n, xp.data(), dy.data(), wt.data(), r.dw.data(), bias.data());
  return r;
}

// As the learner's tape calls them (backprop.cpp): `chunk` positions a call, the weight
// gradient's sums alternating between two arrays.
Result run_winograd(const WinogradConvKernels& k, const WinogradConvShape& s, int n, int chunk, const Floats& x,
                    const Floats& w, const Floats& dy) {
  const std::size_t weights = winograd_weight_floats(s);
  const std::size_t in_row = x.size() / static_cast<std::size_t>(n), out_row = dy.size() / static_cast<std::size_t>(n);
  Result r{Floats(dy.size()), Floats(x.size()), Floats(w.size())};
  Floats u(weights), ut(weights), work(winograd_work_floats(s, chunk)), sums[2] = {Floats(weights), Floats(weights)};
  k.transform_weights(1, w.data(), k.g.data(), work.data(), u.data(), ut.data());
  int last = 0;
  for (int first = 0; first < n; first += chunk, last = 1 - last) {
    const int m = std::min(chunk, n - first);
    const std::size_t f = static_cast<std::size_t>(first);
    k.forward(m, x.data() + f * in_row, u.data(), work.data(), r.y.data() + f * out_row);
    k.input_gradient(m, dy.data() + f * out_row, ut.data(), work.data(), r.dx.data() + f * in_row);
    k.weight_gradient(m, x.data() + f * in_row, dy.data() + f * out_row, work.data(),
                      sums[last].data(), sums[1 - last].data());
  }
  k.finish_weight_gradient(1, sums[last].data(), k.g.data(), work.data(), r.dw.data());
  return r;
}

TEST(WinogradKernels, AgreeWithTheDirectConvolutionInFloat) {
  // Go 9×9's tower and its pooled block, each tile; Connect Four's board (6×7), which no tile
  // divides.
  const std::vector<ConvShape> shapes{{64, 64, 9, 9, 3, false, false, 3}, {64, 16, 9, 9, 3, false, false, 2},
                                      {12, 32, 6, 7, 3, false, false, 4}};
  LayerShapes all;
  for (ConvShape s : shapes) {
    all.convs.push_back(s);
    s.winograd = 0;
    all.convs.push_back(s);
  }
  const std::string dir = (std::filesystem::temp_directory_path() / "pz_winograd_kernels_test").string();
  const PolyLayerKernels kernels(all, dir);
  std::mt19937 rng(11);
  constexpr int kBatch = 7;
  for (const ConvShape& s : shapes) {
    ConvShape d = s;
    d.winograd = 0;
    const std::size_t plane = static_cast<std::size_t>(s.height * s.width);
    const Floats x = random_floats(kBatch * plane * static_cast<std::size_t>(s.in_channels), rng);
    const Floats w = random_floats(static_cast<std::size_t>(s.out_channels * s.in_channels * 9), rng);
    const Floats dy = random_floats(kBatch * plane * static_cast<std::size_t>(s.out_channels), rng);
    const Result expected = run_direct(kernels.conv(d), d, kBatch, x, w, dy);
    for (int chunk : {kBatch, 3, 1}) {
      const Result got = run_winograd(kernels.conv(s).winograd, s.winograd_shape(), kBatch, chunk, x, w, dy);
      const std::string what = kernel_name(s) + ", chunks of " + std::to_string(chunk);
      EXPECT_LT(relative_error(got.y, expected.y), 1e-5) << what << ": outputs";
      EXPECT_LT(relative_error(got.dx, expected.dx), 1e-5) << what << ": input gradient";
      EXPECT_LT(relative_error(got.dw, expected.dw), 1e-5) << what << ": weight gradient";
    }
  }
}

}  // namespace
}  // namespace pz::nn
