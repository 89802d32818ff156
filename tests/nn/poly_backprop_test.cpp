// The learner's pass without LibTorch (nn/poly/backprop.h): the network's slots as network.h
// names them, PyTorch's default initialisation, gradients that are the loss's slope (central
// differences along the gradient itself), errors for weights or batches that do not fit, and
// plain SGD lowering the loss of a batch. Its agreement with LibTorch's autograd is checked
// where LibTorch is (tests/nn/poly_training_test.cpp).
#include "nn/poly/backprop.h"

#include <gtest/gtest.h>

#include <cmath>

#include "games/registry.h"
#include "optim/plain_optimizer.h"
#include "tests/nn/random_batch.h"

namespace pz::nn {
namespace {

NetConfig small_resnet() {
  NetConfig c;
  c.blocks = 1;
  c.channels = 8;
  return c;
}

// KataGo's shape with every head: a global pooling block, win/draw/loss value, ownership, score.
NetConfig pooled_with_every_head() {
  NetConfig c;
  c.type = "pooled";
  c.blocks = 2;
  c.channels = 8;
  c.global_channels = 4;
  c.policy_channels = 4;
  c.value_channels = 4;
  c.value_hidden = 16;
  c.value_head = "wdl";
  c.ownership = c.score = true;
  return c;
}

TEST(PolyBackprop, SlotsAreTheTorchModulesParametersAndBuffers) {
  const auto game = games::make_game("connect4");
  const NetShape shape = net_shape(game->info());
  const PolyBackprop backprop(small_resnet(), shape);
  std::map<std::string, WeightSlot> by_name;
  for (const WeightSlot& s : backprop.slots()) by_name[s.name] = s;
  EXPECT_EQ(by_name.at("stem_conv.weight").shape, (std::vector<std::int64_t>{8, shape.input.channels, 3, 3}));
  EXPECT_EQ(by_name.count("stem_conv.bias"), 0u) << "a convolution before a batch norm has no bias";
  EXPECT_FALSE(by_name.at("tower.0.bn2.running_var").trainable);
  EXPECT_TRUE(by_name.at("tower.0.bn2.weight").trainable);
  EXPECT_EQ(by_name.at("value_fc2.weight").shape, (std::vector<std::int64_t>{1, 64}));
  const NetWeights w = backprop.initial_weights(1);
  EXPECT_EQ(w.size(), backprop.slots().size());
  EXPECT_EQ(w.at("tower.0.bn1.weight").values, std::vector<float>(8, 1.0f));
  EXPECT_EQ(w.at("tower.0.bn1.running_var").values, std::vector<float>(8, 1.0f));
  const float bound = 1.0f / std::sqrt(static_cast<float>(8 * 9));
  float largest = 0;
  for (float v : w.at("tower.0.conv1.weight").values) largest = std::max(largest, std::fabs(v));
  EXPECT_LE(largest, bound);
  EXPECT_GT(largest, 0.8f * bound);
  EXPECT_NE(backprop.initial_weights(2).at("stem_conv.weight").values, w.at("stem_conv.weight").values);
}

// (L(w + h·g) − L(w − h·g)) / 2h = |g|² to first order, g the computed gradient: every
// parameter's gradient enters, so a wrong sign or a missing term anywhere shows.
void expect_gradient_is_the_slope(const std::string& game_name, const NetConfig& config) {
  const auto game = games::make_game(game_name);
  const NetShape shape = net_shape(game->info());
  const PolyBackprop backprop(config, shape);
  NetWeights weights = backprop.initial_weights(3), gradients;
  const Batch batch = random_batch(shape, 6, 11);
  const LossWeights loss_weights;
  const LossValues at = backprop.run(weights, batch, loss_weights, gradients);
  EXPECT_TRUE(std::isfinite(at.total));
  if (config.auxiliary()) {
    EXPECT_GT(at.ownership, 0);
    EXPECT_GT(at.score, 0);
  }
  double squared = 0;
  for (const auto& [name, g] : gradients)
    for (float v : g.values) squared += static_cast<double>(v) * v;
  ASSERT_GT(squared, 0);
  const double h = 1e-3 / std::sqrt(squared);
  auto loss_moved = [&](double sign) {
    NetWeights moved = weights, unused;
    for (const auto& [name, g] : gradients)
      for (std::size_t i = 0; i < g.values.size(); ++i) moved.at(name).values[i] += static_cast<float>(sign * h * g.values[i]);
    return backprop.run(moved, batch, loss_weights, unused).total;
  };
  const double slope = (loss_moved(1) - loss_moved(-1)) / (2 * h);
  EXPECT_NEAR(slope / squared, 1.0, 0.02) << game_name << " " << config.to_json().dump();
}

TEST(PolyBackprop, GradientIsTheLossSlopeOnAResnet) { expect_gradient_is_the_slope("tictactoe", small_resnet()); }

TEST(PolyBackprop, GradientIsTheLossSlopeWithEveryHead) { expect_gradient_is_the_slope("go:size=5", pooled_with_every_head()); }

TEST(PolyBackprop, RunningStatisticsMoveAndMismatchesAreRefused) {
  const auto game = games::make_game("tictactoe");
  const NetShape shape = net_shape(game->info());
  const PolyBackprop backprop(small_resnet(), shape);
  NetWeights weights = backprop.initial_weights(1), gradients;
  const Batch batch = random_batch(shape, 4, 5);
  backprop.run(weights, batch, {}, gradients);
  EXPECT_NE(weights.at("stem_bn.running_mean").values, std::vector<float>(8, 0.0f));
  EXPECT_EQ(gradients.count("stem_bn.running_mean"), 0u);
  EXPECT_EQ(gradients.at("stem_conv.weight").values.size(), weights.at("stem_conv.weight").values.size());

  NetWeights missing = weights;
  missing.erase("value_fc1.bias");
  EXPECT_THROW(backprop.run(missing, batch, {}, gradients), std::invalid_argument);
  Batch short_batch = batch;
  short_batch.observations.pop_back();
  EXPECT_THROW(backprop.run(weights, short_batch, {}, gradients), std::invalid_argument);
  const auto go = games::make_game("go:size=5");
  const PolyBackprop with_heads(pooled_with_every_head(), net_shape(go->info()));
  NetWeights go_weights = with_heads.initial_weights(1);
  Batch no_targets = random_batch(net_shape(go->info()), 4, 5);
  no_targets.auxiliary_mask.clear();
  EXPECT_THROW(with_heads.run(go_weights, no_targets, {}, gradients), std::invalid_argument);
}

TEST(PolyBackprop, PlainSgdLowersTheLossOfABatch) {
  const auto game = games::make_game("connect4");
  const NetShape shape = net_shape(game->info());
  const PolyBackprop backprop(small_resnet(), shape);
  NetWeights weights = backprop.initial_weights(7), gradients;
  std::vector<optim::PlainParameter> params;
  for (const WeightSlot& s : backprop.slots())
    if (s.trainable) params.push_back({s.name, static_cast<std::int64_t>(s.shape.size()), s.size()});
  optim::PlainOptimizer sgd(optim::parse_optimizer_config({{"type", "sgd"}, {"lr", 0.05}, {"momentum", 0.9}}), params);
  const Batch batch = random_batch(shape, 16, 9);
  double first = 0, last = 0;
  for (int step = 0; step < 30; ++step) {
    last = backprop.run(weights, batch, {}, gradients).total;
    if (step == 0) first = last;
    std::vector<float*> values;
    std::vector<const float*> grads;
    for (const optim::PlainParameter& p : params) {
      values.push_back(weights.at(p.name).values.data());
      grads.push_back(gradients.at(p.name).values.data());
    }
    sgd.step(values, grads);
  }
  EXPECT_LT(last, 0.8 * first) << "first " << first << ", last " << last;
}

}  // namespace
}  // namespace pz::nn
