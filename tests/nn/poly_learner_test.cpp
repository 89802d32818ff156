// The learner without LibTorch (nn/poly/learner.h): it lowers a batch's loss, follows its
// schedule, clips, refuses a step whose loss is not finite without touching the weights, and
// its saved state continues a run exactly. Its steps against the LibTorch learner's are in
// tests/nn/poly_training_test.cpp.
#include "nn/poly/learner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "games/registry.h"
#include "optim/scheduler_factory.h"
#include "tests/nn/random_batch.h"
#include "util/error.h"

namespace pz::nn {
namespace {

LearnerConfig small_config() {
  LearnerConfig c;
  c.network.blocks = 1;
  c.network.channels = 8;
  c.optimizer = {{"type", "sgd"}, {"lr", 0.05}, {"momentum", 0.9}, {"nesterov", true}, {"weight_decay", 1e-4}};
  c.scheduler = {{"type", "poly"}, {"total_iters", 20}, {"power", 1.0},
                 {"warmup", {{"type", "linear"}, {"steps", 4}, {"start_factor", 0.1}}}};
  return c;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("pz_poly_learner_" + name)).string();
}

TEST(PolyLearner, LowersTheLossOfABatch) {
  const auto game = games::make_game("tictactoe");
  LearnerConfig c = small_config();
  c.scheduler = {{"type", "constant"}, {"factor", 1.0}, {"total_iters", 1}};
  PolyLearner learner(game->info(), c, 3);
  const Batch batch = random_batch(net_shape(game->info()), 16, 5);
  const double first = learner.train_step(batch).loss;
  double last = first;
  for (int i = 0; i < 30; ++i) last = learner.train_step(batch).loss;
  EXPECT_LT(last, 0.8 * first);
  EXPECT_EQ(learner.step(), 31);
}

TEST(PolyLearner, TrainsEachStepWithItsScheduledLr) {
  const auto game = games::make_game("tictactoe");
  const LearnerConfig c = small_config();
  PolyLearner learner(game->info(), c, 3);
  const auto table = optim::lr_table(c.scheduler, {0.05}, 10);
  const Batch batch = random_batch(net_shape(game->info()), 8, 5);
  for (int t = 0; t < 10; ++t) {
    EXPECT_DOUBLE_EQ(learner.lr(), table[static_cast<std::size_t>(t)][0]) << "step " << t;
    const StepStats s = learner.train_step(batch);
    EXPECT_DOUBLE_EQ(s.lr, table[static_cast<std::size_t>(t)][0]);
    EXPECT_EQ(s.step, t + 1);
    EXPECT_GT(s.grad_norm, 0);
  }
}

TEST(PolyLearner, ClipsTheGradientNorm) {
  const auto game = games::make_game("tictactoe");
  LearnerConfig c = small_config();
  c.optimizer = {{"type", "sgd"}, {"lr", 1.0}, {"clip_grad_norm", 1e-3}};
  c.scheduler = {{"type", "constant"}, {"factor", 1.0}, {"total_iters", 1}};
  PolyLearner learner(game->info(), c, 3);
  const NetWeights before = learner.weights();
  const StepStats s = learner.train_step(random_batch(net_shape(game->info()), 8, 5));
  EXPECT_GT(s.grad_norm, 1e-2) << "the norm before clipping is reported";
  double moved = 0;  // the step's 2-norm: lr × the clipped norm
  for (const auto& [name, tensor] : learner.weights()) {
    if (name.find("running_") != std::string::npos) continue;
    for (std::size_t i = 0; i < tensor.values.size(); ++i) {
      const double d = tensor.values[i] - before.at(name).values[i];
      moved += d * d;
    }
  }
  EXPECT_NEAR(std::sqrt(moved), 1e-3, 1e-5);
}

// A NaN in the input reaches the gradients (ReLU passes it as 0 to the loss, not to the
// weight gradients): the step is refused before the optimiser moves anything.
TEST(PolyLearner, ANonFiniteStepLeavesEveryWeightAsItWas) {
  const auto game = games::make_game("tictactoe");
  PolyLearner learner(game->info(), small_config(), 3);
  const NetShape shape = net_shape(game->info());
  learner.train_step(random_batch(shape, 8, 5));
  const NetWeights before = learner.weights();
  Batch bad = random_batch(shape, 8, 6);
  bad.observations[3] = std::numeric_limits<float>::quiet_NaN();
  try {
    learner.train_step(bad);
    FAIL() << "a NaN loss was not refused";
  } catch (const TrainingDiverged& e) {
    EXPECT_EQ(e.step(), 2);
    EXPECT_NE(std::string(e.what()).find("is nan"), std::string::npos) << e.what();
  }
  EXPECT_EQ(learner.step(), 1);
  for (const auto& [name, tensor] : before) EXPECT_EQ(learner.weights().at(name).values, tensor.values) << name;
}

// The step reuses its buffers (nn/poly/buffer_pool.h) without clearing them: after a step
// of the same batch size whose every activation was NaN, each step is the one a learner that
// never saw the refused batches takes, on a residual network and on a pooled one with every
// head (global pooling, win/draw/loss, ownership, score).
TEST(PolyLearner, AStepAfterARefusedOneIsTheStepItWouldHaveBeen) {
  LearnerConfig pooled = small_config();
  pooled.network.type = "pooled";
  pooled.network.global_channels = 4;
  pooled.network.value_head = "wdl";
  pooled.network.ownership = pooled.network.score = true;
  for (const auto& [spec, config] : {std::pair{"tictactoe", small_config()}, std::pair{"go:size=5", pooled}}) {
    const auto game = games::make_game(spec);
    const NetShape shape = net_shape(game->info());
    PolyLearner refused(game->info(), config, 3), clean(game->info(), config, 3);
    std::uint64_t seed = 10;
    for (int n : {8, 5, 5, 8}) {
      Batch bad = random_batch(shape, n, ++seed);
      bad.observations[3] = std::numeric_limits<float>::quiet_NaN();
      EXPECT_THROW(refused.train_step(bad), TrainingDiverged) << spec;
      const Batch batch = random_batch(shape, n, ++seed);
      const StepStats a = refused.train_step(batch), b = clean.train_step(batch);
      EXPECT_EQ(a.loss, b.loss) << spec << ", batch of " << n;
      EXPECT_EQ(a.grad_norm, b.grad_norm) << spec << ", batch of " << n;
    }
    for (const auto& [name, tensor] : clean.weights()) EXPECT_EQ(refused.weights().at(name).values, tensor.values) << name;
  }
}

TEST(PolyLearner, ItsSavedStateContinuesTheRunExactly) {
  for (const char* optimizer : {"sgd", "adamw"}) {
    const auto game = games::make_game("tictactoe");
    const NetShape shape = net_shape(game->info());
    LearnerConfig c = small_config();
    c.optimizer["type"] = optimizer;
    if (c.optimizer["type"] == "adamw") c.optimizer = {{"type", "adamw"}, {"lr", 1e-3}, {"weight_decay", 0.01}};
    PolyLearner a(game->info(), c, 3);
    for (int i = 0; i < 3; ++i) a.train_step(random_batch(shape, 8, 10 + i));
    const std::string path = temp_path(std::string(optimizer) + ".safetensors");
    a.save_state(path);
    PolyLearner b(game->info(), c, 99);
    b.set_weights(a.weights());
    b.load_state(path);
    EXPECT_EQ(b.step(), 3);
    EXPECT_DOUBLE_EQ(b.lr(), a.lr());
    for (int i = 0; i < 2; ++i) {
      const Batch batch = random_batch(shape, 8, 20 + i);
      EXPECT_EQ(a.train_step(batch).loss, b.train_step(batch).loss) << optimizer;
    }
    EXPECT_EQ(a.weights_hash(), b.weights_hash()) << optimizer;
    std::filesystem::remove(path);
  }
}

TEST(PolyLearner, RefusesAStateItCannotContinue) {
  const auto game = games::make_game("tictactoe");
  const LearnerConfig c = small_config();
  PolyLearner a(game->info(), c, 3);
  const std::string path = temp_path("state.safetensors");
  a.save_state(path);
  LearnerConfig other = c;
  other.optimizer["lr"] = 0.5;
  PolyLearner b(game->info(), other, 3);
  EXPECT_THROW(b.load_state(path), util::UsageError);
  {
    std::ofstream(path, std::ios::binary) << "not a learner state";
  }
  EXPECT_THROW(a.load_state(path), util::UsageError);
  std::filesystem::remove(path);
  NetWeights missing = a.weights();
  missing.erase("stem_conv.weight");
  EXPECT_THROW(a.set_weights(missing), util::UsageError);
}

}  // namespace
}  // namespace pz::nn
