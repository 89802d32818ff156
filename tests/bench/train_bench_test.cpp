#include "bench/train_bench.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "nn/train_config.h"

namespace pz::bench {
namespace {

// A network with KataGo's auxiliary heads (ownership, score) needs their targets in every
// learner batch: the benchmark's buffer keeps them as the trainer's does.
TEST(TrainBench, MeasuresANetworkWithAuxiliaryHeads) {
  auto j = nn::default_train_config();
  j["game"] = "go:size=5";
  j["network"] = {{"type", "pooled"}, {"blocks", 1},          {"channels", 8},         {"global_channels", 4},
                  {"ownership", true}, {"score", true}};
  j["selfplay"]["threads"] = 1;
  j["selfplay"]["games_per_thread"] = 4;
  j["selfplay"]["simulations"] = 8;
  j["selfplay"]["backend"] = "torch";
  j["learner"]["backend"] = "torch";
  j["learner"]["batch_size"] = 16;
  const nn::TrainConfig config = nn::parse_train_config(j);
  ASSERT_TRUE(config.network.auxiliary());
  const TrainBenchResult r = measure_training(config, 1.0);
  EXPECT_GT(r.positions, 0);
  EXPECT_GT(r.net_evaluations, 0);
  EXPECT_GE(r.learner_steps, 3);
  EXPECT_GT(r.learner_samples_per_second(), 0);
}

}  // namespace
}  // namespace pz::bench
