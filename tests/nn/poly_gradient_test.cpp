// Finite-difference checks of the poly learner's gradient kernels (nn/poly/layer_kernels.h),
// generated with double arrays: for every layer kind, on tiny shapes with odd sizes, the
// backward kernels' gradients of L = Σ r ⊙ forward(inputs) (r random) against central
// differences (L(v + h) − L(v − h)) / 2h of the forward kernels, for every element of every
// differentiated input. In double precision the difference's error is about 1e-10, so a
// wrong term in a gradient formula cannot hide in float rounding. LibTorch is not used: the
// float kernels are compared with LibTorch's autograd in poly_training_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "nn/poly/layer_kernels.h"
#include "nn/poly/winograd.h"
#include "polyhedral/runtime/jit.h"

namespace pz::nn {
namespace {

using Vec = std::vector<double>;
using Inputs = std::vector<Vec>;

constexpr int kBatch = 2;
constexpr double kStep = 1e-5;       // h of the central difference
constexpr double kTolerance = 1e-6;  // largest error relative to the largest gradient

Vec random_vector(std::size_t n, std::mt19937& rng, double lo = -1, double hi = 1) {
  std::uniform_real_distribution<double> u(lo, hi);
  Vec v(n);
  for (double& x : v) x = u(rng);
  return v;
}

// A layer under test: its differentiated inputs, the forward pass (every output the loss
// reads, concatenated) and the backward pass given the outputs' gradient (one gradient per
// input, in order).
struct LayerUnderTest {
  std::string name;
  Inputs inputs;
  std::function<Vec(const Inputs&)> forward;
  std::function<Inputs(const Inputs&, const Vec& dout)> backward;
};

double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// The largest error of the backward's gradients against the central differences, relative
// to the largest gradient of the same input, and where it is.
struct GradientCheck {
  double error = 0;
  std::string where;
};

GradientCheck check_gradients(const LayerUnderTest& layer, unsigned seed) {
  std::mt19937 rng(seed);
  const Vec r = random_vector(layer.forward(layer.inputs).size(), rng);
  const Inputs grads = layer.backward(layer.inputs, r);
  GradientCheck worst;
  if (grads.size() != layer.inputs.size()) return {1e300, layer.name + ": the backward gives the wrong number of gradients"};
  for (std::size_t i = 0; i < layer.inputs.size(); ++i) {
    if (grads[i].size() != layer.inputs[i].size()) return {1e300, layer.name + ": a gradient of the wrong size"};
    Inputs in = layer.inputs;
    double largest = 0, error = 0;
    std::size_t element = 0;
    for (std::size_t j = 0; j < in[i].size(); ++j) {
      const double v = in[i][j];
      in[i][j] = v + kStep;
      const double up = dot(r, layer.forward(in));
      in[i][j] = v - kStep;
      const double down = dot(r, layer.forward(in));
      in[i][j] = v;
      const double difference = (up - down) / (2 * kStep);
      largest = std::max(largest, std::abs(difference));
      if (std::abs(difference - grads[i][j]) > error) error = std::abs(difference - grads[i][j]), element = j;
    }
    const double relative = error / std::max(largest, 1e-3);
    if (relative >= worst.error) {
      worst = {relative, layer.name + ", input " + std::to_string(i) + ", element " + std::to_string(element) + ": off by " +
                             std::to_string(error) + " (largest gradient " + std::to_string(largest) + ")"};
    }
  }
  return worst;
}

void expect_gradients_match_differences(const LayerUnderTest& layer, unsigned seed) {
  const GradientCheck check = check_gradients(layer, seed);
  EXPECT_LE(check.error, kTolerance) << check.where;
}

// ---- the double kernels ----------------------------------------------------------------------

const ConvShape kConv3{3, 5, 3, 4, 3, false};
const ConvShape kConv1{4, 3, 2, 3, 1, true};
const BatchNormShape kNormResidualRelu{3, 5, true, true};
const BatchNormShape kNorm{4, 3, false, false};
const BatchNormShape kNormOneSweep{3, 5, true, true, true};
// A 3×3 convolution whose batch norm writes its output gradient with the zero border.
const ConvShape kConvPadded{3, 5, 3, 4, 3, false, true};
const BatchNormShape kNormPadded{5, 12, false, true, true, 4, 1};
// Winograd F(m×m, 3×3) for each tile, on boards m divides and does not, one whose tiles
// cover it exactly (the weight gradient then reads dy in place), and the direct convolutions
// of the same shapes.
const ConvShape kWinograd2{3, 5, 5, 7, 3, false, false, 2}, kWinograd3{4, 3, 6, 4, 3, false, false, 3},
    kWinograd4{3, 2, 5, 6, 3, false, false, 4}, kWinogradWhole{3, 4, 4, 6, 3, false, false, 2};
ConvShape direct(ConvShape s) {
  s.winograd = 0;
  return s;
}
const LinearShape kLinearRelu{7, 5, true};
const LinearShape kLinear{6, 3, false};
const PlaneShape kPool{3, 3, 3, false};
const PlaneShape kPlanesRelu{3, 2, 3, true};
const MatrixShape kTranspose{3, 5}, kTanh{1, 5}, kPolicyLoss{1, 7}, kWdlLoss{2, 3}, kSquaredError{1, 2};

class PolyGradientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    LayerShapes shapes;
    shapes.convs = {kConv3, kConv1, kConvPadded};
    for (const ConvShape& s : {kWinograd2, kWinograd3, kWinograd4, kWinogradWhole}) shapes.convs.insert(shapes.convs.end(), {s, direct(s)});
    shapes.batch_norms = {kNormResidualRelu, kNorm, kNormOneSweep, kNormPadded};
    shapes.linears = {kLinearRelu, kLinear};
    shapes.pools = {kPool};
    shapes.planes = {kPlanesRelu};
    shapes.transposes = {kTranspose};
    shapes.tanhs = {kTanh};
    shapes.cross_entropies = {kPolicyLoss, kWdlLoss};
    shapes.squared_errors = {kSquaredError};
    const std::string dir = (std::filesystem::temp_directory_path() / "pz_poly_gradient_test_kernels").string();
    module_ = compile_layer_kernels(shapes, "double", dir);
  }
  static void TearDownTestSuite() { module_.reset(); }

  template <class... Args>
  static auto* fn(const std::string& name) {
    return module_->function<void(int, Args...)>(name);
  }
  static std::shared_ptr<poly::JitModule> module_;
};
std::shared_ptr<poly::JitModule> PolyGradientTest::module_;

using In = const double*;
using Out = double*;

std::size_t size(std::initializer_list<int> dims) {
  std::size_t n = 1;
  for (int d : dims) n *= static_cast<std::size_t>(d);
  return n;
}

LayerUnderTest conv_layer(const ConvShape& s, std::mt19937& rng,
                          void (*forward)(int, In, In, In, Out, Out, Out), void (*input_gradient)(int, In, In, Out, Out, Out),
                          void (*weight_gradient)(int, In, In, Out, Out, Out)) {
  const int k = s.kernel, C = s.in_channels, O = s.out_channels, plane = s.height * s.width;
  const std::size_t padded = std::max<std::size_t>(conv_padded_floats(s, kBatch), 1);
  const std::size_t weights = conv_weight_floats(s), out = size({kBatch, plane, O});
  LayerUnderTest layer{kernel_name(s), {random_vector(size({kBatch, plane, C}), rng), random_vector(size({O, C, k, k}), rng)}, {}, {}};
  if (s.bias) layer.inputs.push_back(random_vector(static_cast<std::size_t>(O), rng));
  auto run = [=](const Inputs& in, Vec& xp) {
    Vec wt(weights), y(out), no_bias(static_cast<std::size_t>(O));
    forward(kBatch, in[0].data(), in[1].data(), s.bias ? in[2].data() : no_bias.data(), wt.data(), xp.data(), y.data());
    return y;
  };
  layer.forward = [=](const Inputs& in) {
    Vec xp(padded);
    return run(in, xp);
  };
  layer.backward = [=](const Inputs& in, const Vec& dy) {
    Vec xp(padded), wd(weights), dyp(std::max<std::size_t>(conv_padded_floats(s, kBatch), 1)), dwt(weights);
    run(in, xp);
    Inputs grads{Vec(in[0].size()), Vec(in[1].size())};
    Vec dbias(static_cast<std::size_t>(O));
    input_gradient(kBatch, dy.data(), in[1].data(), wd.data(), dyp.data(), grads[0].data());
    weight_gradient(kBatch, s.pad() > 0 ? xp.data() : in[0].data(), dy.data(), dwt.data(), grads[1].data(), dbias.data());
    if (s.bias) grads.push_back(dbias);
    return grads;
  };
  return layer;
}

TEST_F(PolyGradientTest, Convolutions) {
  std::mt19937 rng(1);
  for (const ConvShape& s : {kConv3, kConv1}) {
    const std::string n = kernel_name(s);
    expect_gradients_match_differences(
        conv_layer(s, rng, fn<In, In, In, Out, Out, Out>(n + "_forward"), fn<In, In, Out, Out, Out>(n + "_input_gradient"),
                   fn<In, In, Out, Out, Out>(n + "_weight_gradient")),
        2);
  }
}

// The Winograd kernels of `s` as one layer: the filters transformed, then the forward; the
// input gradient and the weight gradient, finished into the filters' layout.
LayerUnderTest winograd_layer(const ConvShape& s, std::mt19937& rng, const std::string& n,
                              void (*transform)(int, In, In, Out, Out, Out), void (*forward)(int, In, In, Out, Out),
                              void (*input_gradient)(int, In, In, Out, Out),
                              void (*weight_gradient)(int, In, In, Out, In, Out), void (*finish)(int, In, In, Out, Out)) {
  const WinogradConvShape w = s.winograd_shape();
  const WinogradMatrices m = winograd_matrices(s.winograd);
  const std::size_t weights = winograd_weight_floats(w), work = winograd_work_floats(w, kBatch);
  const std::size_t in_size = size({kBatch, s.height * s.width, s.in_channels});
  const std::size_t out_size = size({kBatch, s.height * s.width, s.out_channels});
  LayerUnderTest layer{n, {random_vector(in_size, rng), random_vector(size({s.out_channels, s.in_channels, 3, 3}), rng)}, {}, {}};
  layer.forward = [=](const Inputs& in) {
    Vec u(weights), ut(weights), scratch(work), y(out_size);
    transform(1, in[1].data(), m.g.data(), scratch.data(), u.data(), ut.data());
    forward(kBatch, in[0].data(), u.data(), scratch.data(), y.data());
    return y;
  };
  layer.backward = [=](const Inputs& in, const Vec& dy) {
    Vec u(weights), ut(weights), zero(weights), du(weights), scratch(work);
    Inputs grads{Vec(in[0].size()), Vec(in[1].size())};
    transform(1, in[1].data(), m.g.data(), scratch.data(), u.data(), ut.data());
    input_gradient(kBatch, dy.data(), ut.data(), scratch.data(), grads[0].data());
    // The batch's sum in two calls, the second adding to the first's.
    Vec half(weights);
    weight_gradient(1, in[0].data(), dy.data(), scratch.data(), zero.data(), half.data());
    const std::size_t in_row = in[0].size() / kBatch, out_row = dy.size() / kBatch;
    weight_gradient(kBatch - 1, in[0].data() + in_row, dy.data() + out_row, scratch.data(), half.data(),
                    du.data());
    finish(1, du.data(), m.g.data(), scratch.data(), grads[1].data());
    return grads;
  };
  return layer;
}

TEST_F(PolyGradientTest, WinogradConvolutions) {
  std::mt19937 rng(5);
  for (const ConvShape& s : {kWinograd2, kWinograd3, kWinograd4, kWinogradWhole}) {
    const std::string n = kernel_name(s), d = kernel_name(direct(s));
    const LayerUnderTest winograd = winograd_layer(
        s, rng, n, fn<In, In, Out, Out, Out>(n + "_transform_weights"), fn<In, In, Out, Out>(n + "_forward"),
        fn<In, In, Out, Out>(n + "_input_gradient"), fn<In, In, Out, In, Out>(n + "_weight_gradient"),
        fn<In, In, Out, Out>(n + "_finish_weight_gradient"));
    expect_gradients_match_differences(winograd, 6);
    // The same convolution as the direct kernels compute, outputs and gradients, to rounding.
    const LayerUnderTest plain = conv_layer(direct(s), rng, fn<In, In, In, Out, Out, Out>(d + "_forward"),
                                            fn<In, In, Out, Out, Out>(d + "_input_gradient"),
                                            fn<In, In, Out, Out, Out>(d + "_weight_gradient"));
    const Vec y = winograd.forward(winograd.inputs), y_direct = plain.forward(winograd.inputs);
    ASSERT_EQ(y.size(), y_direct.size());
    for (std::size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], y_direct[i], 1e-12) << n << ", output " << i;
    const Vec dy = random_vector(y.size(), rng);
    const Inputs g = winograd.backward(winograd.inputs, dy), g_direct = plain.backward(winograd.inputs, dy);
    for (std::size_t i = 0; i < g.size(); ++i)
      for (std::size_t j = 0; j < g[i].size(); ++j) EXPECT_NEAR(g[i][j], g_direct[i][j], 1e-12) << n << ", gradient " << i;
  }
}

TEST_F(PolyGradientTest, BatchNormsInTrainingMode) {
  std::mt19937 rng(3);
  for (const BatchNormShape& s : {kNormResidualRelu, kNorm, kNormOneSweep}) {
    const std::string n = kernel_name(s);
    auto* forward = fn<In, In, In, In, Out, Out, Out, Out, Out, Out>(n + "_forward");
    auto* backward = fn<In, In, In, In, In, In, Out, Out, Out, Out>(n + "_backward");
    const std::size_t act = size({kBatch, s.plane, s.channels}), c = static_cast<std::size_t>(s.channels);
    // x, γ, β, and the residual when the layer has one; x away from 0 on a shifted scale.
    LayerUnderTest layer{n, {random_vector(act, rng, -2, 3), random_vector(c, rng, 0.5, 1.5), random_vector(c, rng)}, {}, {}};
    if (s.residual) layer.inputs.push_back(random_vector(act, rng));
    struct Pass {
      Vec y, mean, var, invstd;
    };
    auto run = [=](const Inputs& in) {
      Pass p{Vec(act), Vec(c), Vec(c), Vec(c)};
      Vec running_mean(c, 0.0), running_var(c, 1.0), none(act);
      forward(kBatch, in[0].data(), s.residual ? in[3].data() : none.data(), in[1].data(), in[2].data(), running_mean.data(),
              running_var.data(), p.mean.data(), p.var.data(), p.invstd.data(), p.y.data());
      return p;
    };
    layer.forward = [=](const Inputs& in) { return run(in).y; };
    layer.backward = [=](const Inputs& in, const Vec& dy) {
      const Pass p = run(in);
      Vec g(act), dx(act), dgamma(c), dbeta(c);
      backward(kBatch, dy.data(), p.y.data(), in[0].data(), p.mean.data(), p.invstd.data(), in[1].data(), g.data(), dx.data(),
               dgamma.data(), dbeta.data());
      Inputs grads{dx, dgamma, dbeta};
      if (s.residual) grads.push_back(g);
      return grads;
    };
    expect_gradients_match_differences(layer, 4);
  }
}

// Convolution then batch norm, the batch norm's dx written padded and read so by both of
// the convolution's gradient kernels.
TEST_F(PolyGradientTest, ConvolutionWithItsBatchNormWritingThePaddedGradient) {
  std::mt19937 rng(17);
  const ConvShape& c = kConvPadded;
  const BatchNormShape& s = kNormPadded;
  const std::string cn = kernel_name(c), bn = kernel_name(s);
  auto* conv_forward = fn<In, In, In, Out, Out, Out>(cn + "_forward");
  auto* input_gradient = fn<In, In, Out, Out, Out>(cn + "_input_gradient");
  auto* weight_gradient = fn<In, In, Out, Out, Out>(cn + "_weight_gradient");
  auto* norm_forward = fn<In, In, In, In, Out, Out, Out, Out, Out, Out>(bn + "_forward");
  auto* norm_backward = fn<In, In, In, In, In, In, Out, Out, Out, Out>(bn + "_backward");
  const std::size_t plane = static_cast<std::size_t>(c.height * c.width), ch = static_cast<std::size_t>(c.out_channels);
  const std::size_t in = kBatch * plane * static_cast<std::size_t>(c.in_channels), act = kBatch * plane * ch;
  const std::size_t weights = conv_weight_floats(c), padded = conv_padded_floats(c, kBatch);
  LayerUnderTest layer{cn + " + " + bn, {random_vector(in, rng), random_vector(weights, rng), random_vector(ch, rng, 0.5, 1.5),
                                         random_vector(ch, rng)}, {}, {}};
  struct Pass {
    Vec xp, z, y, mean, var, invstd;
  };
  auto run = [=](const Inputs& v) {
    Pass p{Vec(padded), Vec(act), Vec(act), Vec(ch), Vec(ch), Vec(ch)};
    Vec wt(weights), running_mean(ch, 0.0), running_var(ch, 1.0), none(act);
    conv_forward(kBatch, v[0].data(), v[1].data(), nullptr, wt.data(), p.xp.data(), p.z.data());
    norm_forward(kBatch, p.z.data(), none.data(), v[2].data(), v[3].data(), running_mean.data(), running_var.data(),
                 p.mean.data(), p.var.data(), p.invstd.data(), p.y.data());
    return p;
  };
  layer.forward = [=](const Inputs& v) { return run(v).y; };
  layer.backward = [=](const Inputs& v, const Vec& dy) {
    const Pass p = run(v);
    Vec g(act), dzp(padded, 7.0), dgamma(ch), dbeta(ch), wd(weights), dwt(weights), dx(in), dw(weights);
    norm_backward(kBatch, dy.data(), p.y.data(), p.z.data(), p.mean.data(), p.invstd.data(), v[2].data(), g.data(), dzp.data(),
                  dgamma.data(), dbeta.data());
    input_gradient(kBatch, dzp.data(), v[1].data(), wd.data(), nullptr, dx.data());
    weight_gradient(kBatch, p.xp.data(), dzp.data(), dwt.data(), dw.data(), nullptr);
    return Inputs{dx, dw, dgamma, dbeta};
  };
  expect_gradients_match_differences(layer, 18);
}

TEST_F(PolyGradientTest, LinearLayers) {
  std::mt19937 rng(5);
  for (const LinearShape& s : {kLinearRelu, kLinear}) {
    const std::string n = kernel_name(s);
    auto* forward = fn<In, In, In, Out, Out>(n + "_forward");
    auto* backward = fn<In, In, In, In, Out, Out, Out, Out>(n + "_backward");
    const std::size_t in_size = size({kBatch, s.inputs}), out = size({kBatch, s.outputs}), w = size({s.outputs, s.inputs});
    LayerUnderTest layer{n, {random_vector(in_size, rng), random_vector(w, rng), random_vector(static_cast<std::size_t>(s.outputs), rng)}, {}, {}};
    auto run = [=](const Inputs& in) {
      Vec wt(w), y(out);
      forward(kBatch, in[0].data(), in[1].data(), in[2].data(), wt.data(), y.data());
      return y;
    };
    layer.forward = run;
    layer.backward = [=](const Inputs& in, const Vec& dy) {
      const Vec y = run(in);
      Vec g(out), dx(in_size), dw(w), dbias(static_cast<std::size_t>(s.outputs));
      backward(kBatch, dy.data(), y.data(), in[0].data(), in[1].data(), g.data(), dx.data(), dw.data(), dbias.data());
      return Inputs{dx, dw, dbias};
    };
    expect_gradients_match_differences(layer, 6);
  }
}

TEST_F(PolyGradientTest, GlobalPooling) {
  std::mt19937 rng(7);
  const std::string n = kernel_name("pool", kPool);
  auto* forward = fn<In, Out>(n + "_forward");
  auto* backward = fn<In, In, In, Out, Out>(n + "_backward");
  const std::size_t act = size({kBatch, kPool.plane(), kPool.channels}), out = size({kBatch, 3 * kPool.channels});
  LayerUnderTest layer{n, {random_vector(act, rng)}, {}, {}};
  layer.forward = [=](const Inputs& in) {
    Vec y(out);
    forward(kBatch, in[0].data(), y.data());
    return y;
  };
  layer.backward = [=, f = layer.forward](const Inputs& in, const Vec& dy) {
    const Vec y = f(in);
    Vec ties(size({kBatch, kPool.channels})), dx(act);
    backward(kBatch, in[0].data(), y.data(), dy.data(), ties.data(), dx.data());
    return Inputs{dx};
  };
  expect_gradients_match_differences(layer, 8);
}

TEST_F(PolyGradientTest, BiasPlanes) {
  std::mt19937 rng(9);
  const std::string n = kernel_name("planes", kPlanesRelu);
  auto* forward = fn<In, In, Out>(n + "_forward");
  auto* backward = fn<In, In, Out, Out>(n + "_backward");
  const std::size_t act = size({kBatch, kPlanesRelu.plane(), kPlanesRelu.channels}), per = size({kBatch, kPlanesRelu.channels});
  LayerUnderTest layer{n, {random_vector(act, rng), random_vector(per, rng)}, {}, {}};
  layer.forward = [=](const Inputs& in) {
    Vec y(act);
    forward(kBatch, in[0].data(), in[1].data(), y.data());
    return y;
  };
  layer.backward = [=, f = layer.forward](const Inputs& in, const Vec& dy) {
    const Vec y = f(in);
    Vec dx(act), dp(per);
    backward(kBatch, dy.data(), y.data(), dx.data(), dp.data());
    return Inputs{dx, dp};
  };
  expect_gradients_match_differences(layer, 10);
}

TEST_F(PolyGradientTest, TransposeAndTanh) {
  std::mt19937 rng(11);
  for (const auto& [what, s] : {std::pair{std::string("transpose"), kTranspose}, std::pair{std::string("tanh"), kTanh}}) {
    const std::string n = kernel_name(what, s);
    auto* forward = fn<In, Out, Out>(n + "_forward");
    auto* backward = fn<In, In, Out, Out>(n + "_backward");
    const std::size_t m = size({kBatch, s.rows, s.cols}), work = size({kBatch, s.rows, 2});
    LayerUnderTest layer{n, {random_vector(m, rng, -2, 2)}, {}, {}};
    layer.forward = [=](const Inputs& in) {
      Vec w(work), y(m);
      forward(kBatch, in[0].data(), w.data(), y.data());
      return y;
    };
    layer.backward = [=, f = layer.forward](const Inputs& in, const Vec& dy) {
      const Vec y = f(in);
      Vec w(work), dx(m);
      backward(kBatch, dy.data(), y.data(), w.data(), dx.data());
      return Inputs{dx};
    };
    expect_gradients_match_differences(layer, 12);
  }
}

// The policy's masked cross-entropy and the win/draw/loss one: targets of any sum, a row of
// weight 0 (an illegal-move mask's empty row) and one of weight 1.
TEST_F(PolyGradientTest, CrossEntropies) {
  std::mt19937 rng(13);
  for (const MatrixShape& s : {kPolicyLoss, kWdlLoss}) {
    const std::string n = kernel_name("cross_entropy", s);
    auto* forward = fn<In, In, In, In, Out, Out>(n + "_forward");
    auto* backward = fn<In, In, In, In, In, In, Out, Out>(n + "_backward");
    const std::size_t m = size({kBatch, s.rows, s.cols}), work = size({kBatch, s.rows, 2});
    const Vec t = random_vector(m, rng, 0, 1), w{1.0, 0.5}, scale{0.7};
    LayerUnderTest layer{n, {random_vector(m, rng, -3, 3)}, {}, {}};
    auto run = [=](const Inputs& in, Vec& wk) {
      Vec loss(1);
      forward(kBatch, in[0].data(), t.data(), w.data(), scale.data(), wk.data(), loss.data());
      return loss;
    };
    layer.forward = [=](const Inputs& in) {
      Vec wk(work);
      return run(in, wk);
    };
    layer.backward = [=](const Inputs& in, const Vec& dloss) {
      Vec wk(work), tsum(size({kBatch, s.rows})), dx(m);
      run(in, wk);
      backward(kBatch, in[0].data(), t.data(), w.data(), scale.data(), wk.data(), dloss.data(), tsum.data(), dx.data());
      return Inputs{dx};
    };
    expect_gradients_match_differences(layer, 14);
  }
}

TEST_F(PolyGradientTest, SquaredError) {
  std::mt19937 rng(15);
  const std::string n = kernel_name("squared_error", kSquaredError);
  auto* forward = fn<In, In, In, Out>(n + "_forward");
  auto* backward = fn<In, In, In, In, Out>(n + "_backward");
  const std::size_t m = size({kBatch, kSquaredError.cols});
  const Vec z = random_vector(m, rng), scale{0.25};
  LayerUnderTest layer{n, {random_vector(m, rng)}, {}, {}};
  layer.forward = [=](const Inputs& in) {
    Vec loss(1);
    forward(kBatch, in[0].data(), z.data(), scale.data(), loss.data());
    return loss;
  };
  layer.backward = [=](const Inputs& in, const Vec& dloss) {
    Vec dv(m);
    backward(kBatch, in[0].data(), z.data(), scale.data(), dloss.data(), dv.data());
    return Inputs{dv};
  };
  expect_gradients_match_differences(layer, 16);
}

// The batch norm's backward in one sweep where polyc's model says it moves less: at a
// batch whose activations overflow the caches, not at one that fits in L1.
TEST(BatchNormBackwardFusion, IsChosenWhereItMovesLess) {
  const BatchNormShape s{32, 42, true, true};
  const FusionChoice large = choose_batch_norm_backward(s, 256);
  EXPECT_TRUE(large.fused()) << large.unfused_bytes << " -> " << large.fused_bytes;
  EXPECT_LT(large.fused_bytes, 0.9 * large.unfused_bytes);
  const FusionChoice small = choose_batch_norm_backward(s, 1);
  EXPECT_FALSE(small.fused()) << small.unfused_bytes << " -> " << small.fused_bytes;
  EXPECT_EQ(large.kernel, kernel_name(s));
}

// A batch norm writing the 3×3 convolution's gradient padded saves the copy at any batch
// where the model sees traffic; a 1×1 convolution has nothing to save.
TEST(ConvBatchNormBackwardFusion, SavesThePaddedCopy) {
  const ConvShape conv{32, 32, 6, 7, 3, false};
  const BatchNormShape norm{32, 42, false, true};
  const FusionChoice large = choose_conv_batch_norm_backward(conv, norm, 256);
  EXPECT_TRUE(large.fused()) << large.unfused_bytes << " -> " << large.fused_bytes;
  EXPECT_FALSE(choose_conv_batch_norm_backward({32, 4, 6, 7, 1, false}, {4, 42, false, true}, 256).fused());
}

// The check itself: a gradient with one wrong term is caught.
TEST_F(PolyGradientTest, AWrongGradientIsCaught) {
  LayerUnderTest square{"x²", {{0.3, -1.2, 2.0}}, {}, {}};
  square.forward = [](const Inputs& in) {
    Vec y;
    for (double v : in[0]) y.push_back(v * v);
    return y;
  };
  square.backward = [](const Inputs& in, const Vec& dy) {
    Vec dx;
    for (std::size_t i = 0; i < in[0].size(); ++i) dx.push_back(dy[i] * in[0][i]);  // 2x is right
    return Inputs{dx};
  };
  EXPECT_GT(check_gradients(square, 1).error, 0.1);
  square.backward = [](const Inputs& in, const Vec& dy) {
    Vec dx;
    for (std::size_t i = 0; i < in[0].size(); ++i) dx.push_back(2 * dy[i] * in[0][i]);
    return Inputs{dx};
  };
  EXPECT_LE(check_gradients(square, 1).error, kTolerance);
}

}  // namespace
}  // namespace pz::nn
