// The optimisers on plain float arrays (optim/plain_optimizer.h): each update rule against
// its formula worked by hand, param-group rules, schedulers driving the groups, the state's
// round trip and its errors, and gradient clipping. Their agreement with torch::optim is
// checked where LibTorch is (tests/optim/torch_optim_test.cpp).
#include "optim/plain_optimizer.h"

#include <gtest/gtest.h>

#include <cmath>

#include "optim/scheduler_factory.h"
#include "util/error.h"

namespace pz::optim {
namespace {

using nlohmann::json;

std::vector<PlainParameter> two_params() { return {{"fc.weight", 2, 2}, {"fc.bias", 1, 1}}; }

struct Values {
  std::vector<float> weight{1.0f, -2.0f}, bias{0.5f};
  std::vector<float*> pointers() { return {weight.data(), bias.data()}; }
};

TEST(PlainOptimizer, SgdWithMomentumNesterovAndWeightDecayFollowsItsFormula) {
  PlainOptimizer sgd(parse_optimizer_config({{"type", "sgd"}, {"lr", 0.1}, {"momentum", 0.9}, {"nesterov", true},
                                             {"weight_decay", 0.01}}),
                     two_params());
  Values v;
  const std::vector<float> gw{0.5f, 1.0f}, gb{-1.0f};
  double p = 1.0, buf = 0;
  for (int step = 0; step < 3; ++step) {
    sgd.step(v.pointers(), {gw.data(), gb.data()});
    const double d = 0.5 + 0.01 * p;
    buf = step == 0 ? d : 0.9 * buf + d;
    p -= 0.1 * (d + 0.9 * buf);
    EXPECT_NEAR(v.weight[0], p, 1e-6) << "step " << step;
  }
  EXPECT_EQ(sgd.state().count("fc.weight.momentum_buffer"), 1u);
}

TEST(PlainOptimizer, AdamAndAdamWDifferOnlyInHowTheyDecay) {
  for (const std::string type : {"adam", "adamw"}) {
    PlainOptimizer adam(parse_optimizer_config({{"type", type}, {"lr", 0.01}, {"weight_decay", 0.1}}), two_params());
    Values v;
    const std::vector<float> gw{0.5f, 1.0f}, gb{-1.0f};
    double p = 1.0, m = 0, s = 0;
    for (int t = 1; t <= 3; ++t) {
      adam.step(v.pointers(), {gw.data(), gb.data()});
      double g = 0.5;
      if (type == "adam") g += 0.1 * p;
      else p *= 1 - 0.01 * 0.1;
      m = 0.9 * m + 0.1 * g;
      s = 0.999 * s + 0.001 * g * g;
      p -= 0.01 / (1 - std::pow(0.9, t)) * m / (std::sqrt(s) / std::sqrt(1 - std::pow(0.999, t)) + 1e-8);
      EXPECT_NEAR(v.weight[0], p, 1e-6) << type << " step " << t;
    }
    EXPECT_EQ(adam.state().at("fc.bias.step"), std::vector<float>{3.0f});
  }
}

TEST(PlainOptimizer, GroupRulesGiveBiasesTheirOwnOptions) {
  PlainOptimizer sgd(parse_optimizer_config({{"type", "sgd"}, {"lr", 1.0}, {"weight_decay", 0.5},
                                             {"param_groups", json::array({{{"max_ndim", 1}, {"weight_decay", 0.0}}})}}),
                     two_params());
  ASSERT_EQ(sgd.size(), 2u);
  Values v;
  const std::vector<float> zero{0.0f, 0.0f};
  sgd.step(v.pointers(), {zero.data(), zero.data()});
  EXPECT_FLOAT_EQ(v.weight[0], 0.5f);  // decayed: 1 − 1·0.5·1
  EXPECT_FLOAT_EQ(v.bias[0], 0.5f);    // its group has no decay
}

TEST(PlainOptimizer, SchedulersSetItsGroupsLr) {
  auto sgd = std::make_shared<PlainOptimizer>(parse_optimizer_config({{"type", "sgd"}, {"lr", 0.1}}), two_params());
  auto scheduler = build_scheduler({{"type", "poly"}, {"total_iters", 4}, {"power", 1.0}}, sgd);
  EXPECT_DOUBLE_EQ(sgd->lr(0), 0.1);
  scheduler->step();
  EXPECT_NEAR(sgd->lr(0), 0.075, 1e-12);
  EXPECT_EQ(sgd->momentum_kind(), MomentumKind::kMomentum);
}

TEST(PlainOptimizer, StateRoundTripsAndContinuesTheSameSteps) {
  const OptimizerConfig config = parse_optimizer_config({{"type", "adam"}, {"lr", 0.01}, {"amsgrad", true}});
  PlainOptimizer a(config, two_params());
  Values va;
  const std::vector<float> g1{0.5f, -1.0f}, g2{2.0f, 0.25f}, gb{1.0f};
  a.step(va.pointers(), {g1.data(), gb.data()});
  PlainOptimizer b(config, two_params());
  b.load_state(a.state());
  Values vb = va;
  a.step(va.pointers(), {g2.data(), gb.data()});
  b.step(vb.pointers(), {g2.data(), gb.data()});
  EXPECT_EQ(va.weight, vb.weight);
  EXPECT_EQ(va.bias, vb.bias);
  EXPECT_EQ(a.state(), b.state());
}

TEST(PlainOptimizer, StateForAnotherNetworkIsRefusedByName) {
  PlainOptimizer sgd(parse_optimizer_config({{"type", "sgd"}, {"lr", 0.1}, {"momentum", 0.9}}), two_params());
  try {
    sgd.load_state({{"conv.weight.momentum_buffer", {1, 2}}});
    FAIL() << "an unknown parameter was accepted";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("conv.weight.momentum_buffer"), std::string::npos) << e.what();
  }
  EXPECT_THROW(sgd.load_state({{"fc.weight.momentum_buffer", {1, 2, 3}}}), util::UsageError);
  EXPECT_THROW(sgd.load_state({{"fc.weight.velocity", {1, 2}}}), util::UsageError);
  EXPECT_THROW(PlainOptimizer(parse_optimizer_config({{"type", "sgd"}, {"lr", 0.1}}), {}), util::UsageError);
}

TEST(PlainOptimizer, AdamStateWithOneMomentOnlyIsRefused) {
  PlainOptimizer adam(parse_optimizer_config({{"type", "adam"}, {"lr", 0.1}}), two_params());
  try {
    adam.load_state({{"fc.weight.exp_avg", {1, 2}}, {"fc.weight.step", {3}}});
    FAIL() << "a first moment without its second was accepted";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("fc.weight.exp_avg_sq"), std::string::npos) << e.what();
  }
}

TEST(PlainOptimizer, ClippingScalesToTheMaximumNormAndReportsTheNormBefore) {
  std::vector<float> a{3.0f}, b{4.0f};
  EXPECT_NEAR(clip_gradient_norm({a.data(), b.data()}, {1, 1}, 1.0), 5.0, 1e-12);
  EXPECT_NEAR(a[0], 0.6f, 1e-6);
  EXPECT_NEAR(b[0], 0.8f, 1e-6);
  EXPECT_NEAR(clip_gradient_norm({a.data(), b.data()}, {1, 1}, 10.0), 1.0, 1e-6);
  EXPECT_NEAR(a[0], 0.6f, 1e-6);  // under the maximum: untouched
  EXPECT_NEAR(gradient_norm({a.data(), b.data()}, {1, 1}, INFINITY), 0.8, 1e-6);
  std::vector<float> nan{NAN};
  EXPECT_TRUE(std::isnan(gradient_norm({nan.data(), b.data()}, {1, 1})));
}

}  // namespace
}  // namespace pz::optim
