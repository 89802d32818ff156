// The optimiser's updates and the clipping as polyc's kernels (nn/poly/update_kernels.h)
// against optim::PlainOptimizer's plain loops, which tests/optim checks against LibTorch.
#include "nn/poly/update_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "optim/optimizer_config.h"
#include "util/rng.h"

namespace pz::nn {
namespace {

using optim::PlainOptimizer;

std::vector<float> random_floats(std::size_t n, util::Rng& rng, double scale) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>((2 * rng.uniform() - 1) * scale);
  return v;
}

void expect_close(const std::vector<float>& a, const std::vector<float>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_NEAR(a[i], b[i], 2e-6 * std::max(1.0f, std::fabs(b[i]))) << what << "[" << i << "]";
  }
}

const optim::UpdateKernels& kernels() {
  static const auto k = compile_update_kernels();
  return *k;
}

// Four steps of `config` on two parameters (sizes that no vector width divides), with and
// without the kernels, from the same values and gradients.
void expect_the_plain_loops_steps(const nlohmann::json& config) {
  const optim::OptimizerConfig c = optim::parse_optimizer_config(config);
  const std::vector<optim::PlainParameter> params = {{"conv.weight", 4, 301}, {"conv.bias", 1, 17}};
  PlainOptimizer plain(c, params), generated(c, params);
  generated.set_update_kernels(&kernels());
  util::Rng rng(7);
  std::vector<std::vector<float>> a, b;
  for (const auto& p : params) a.push_back(random_floats(p.size, rng, 1.0));
  b = a;
  for (int step = 0; step < 4; ++step) {
    std::vector<std::vector<float>> grads;
    for (const auto& p : params) grads.push_back(random_floats(p.size, rng, 0.5));
    std::vector<float*> va = {a[0].data(), a[1].data()}, vb = {b[0].data(), b[1].data()};
    const std::vector<const float*> g = {grads[0].data(), grads[1].data()};
    plain.step(va, g);
    generated.step(vb, g);
    for (std::size_t i = 0; i < params.size(); ++i) expect_close(b[i], a[i], config.dump() + " step " + std::to_string(step));
  }
  const optim::PlainState sa = plain.state(), sb = generated.state();
  ASSERT_EQ(sa.size(), sb.size());
  for (const auto& [name, values] : sa) expect_close(sb.at(name), values, name);
}

TEST(UpdateKernels, SgdStepsAsThePlainLoops) {
  expect_the_plain_loops_steps({{"type", "sgd"}, {"lr", 0.1}});
  expect_the_plain_loops_steps({{"type", "sgd"}, {"lr", 0.1}, {"weight_decay", 1e-2}});
  expect_the_plain_loops_steps({{"type", "sgd"}, {"lr", 0.05}, {"momentum", 0.9}, {"dampening", 0.3}});
  expect_the_plain_loops_steps({{"type", "sgd"}, {"lr", 0.05}, {"momentum", 0.9}, {"nesterov", true}, {"weight_decay", 1e-4}});
}

TEST(UpdateKernels, AdamAndAdamWStepAsThePlainLoops) {
  expect_the_plain_loops_steps({{"type", "adam"}, {"lr", 1e-2}});
  expect_the_plain_loops_steps({{"type", "adam"}, {"lr", 1e-2}, {"weight_decay", 1e-2}, {"amsgrad", true}});
  expect_the_plain_loops_steps({{"type", "adamw"}, {"lr", 1e-2}, {"weight_decay", 0.1}});
  expect_the_plain_loops_steps({{"type", "adamw"}, {"lr", 1e-2}, {"weight_decay", 0.1}, {"amsgrad", true}});
}

TEST(UpdateKernels, ClipTheGlobalNormAsThePlainLoops) {
  util::Rng rng(3);
  std::vector<float> g1 = random_floats(1000, rng, 1.0), g2 = random_floats(7, rng, 1.0);
  std::vector<float> h1 = g1, h2 = g2;
  const std::vector<std::size_t> sizes = {g1.size(), g2.size()};
  const double plain = optim::clip_gradient_norm({g1.data(), g2.data()}, sizes, 1.0);
  const double generated = optim::clip_gradient_norm({h1.data(), h2.data()}, sizes, 1.0, 2.0, &kernels());
  EXPECT_NEAR(generated, plain, 1e-5 * plain);
  EXPECT_GT(plain, 1.0) << "the gradients were clipped";
  expect_close(h1, g1, "g1");
  expect_close(h2, g2, "g2");
  std::vector<float> huge = {3e19f, 4e19f};  // squares past float's range: the norm is still finite
  EXPECT_NEAR(optim::gradient_norm({huge.data()}, {2}, 2.0, &kernels()), 5e19, 1e13);
  std::vector<float> nan = {1.0f, std::nanf("")};
  EXPECT_TRUE(std::isnan(optim::gradient_norm({nan.data()}, {2}, 2.0, &kernels()))) << "a NaN gradient has a NaN norm";
}

}  // namespace
}  // namespace pz::nn
