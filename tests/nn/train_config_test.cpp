#include "nn/train_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "nn/run_dir.h"
#include "util/error.h"

namespace pz::nn {
namespace {

TEST(TrainConfig, DefaultsParseAndPolyIsSizedToTheRun) {
  auto j = default_train_config();
  j["learner"]["steps"] = 1200;
  const TrainConfig c = parse_train_config(j);
  EXPECT_EQ(c.steps, 1200);
  EXPECT_EQ(c.scheduler["type"], "poly");
  EXPECT_EQ(c.scheduler["total_iters"], 1000);  // 1200 steps − 200 warmup
  EXPECT_EQ(c.resolved["learner"]["scheduler"]["total_iters"], 1000);
  EXPECT_EQ(c.selfplay.full_simulations, 100);
}

TEST(TrainConfig, ErrorsNameTheField) {
  auto j = default_train_config();
  j["selfplay"]["simulatons"] = 10;
  try {
    parse_train_config(j);
    FAIL();
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("simulatons"), std::string::npos) << e.what();
  }
  j = default_train_config();
  j["learner"]["batch_size"] = 0;
  EXPECT_THROW(parse_train_config(j), util::UsageError);
  j = default_train_config();
  j["network"]["blocks"] = "four";
  EXPECT_THROW(parse_train_config(j), util::UsageError);
  for (int threads : {0, 65}) {
    j = default_train_config();
    j["selfplay"]["backend_threads"] = threads;
    try {
      parse_train_config(j);
      ADD_FAILURE() << "accepted backend_threads " << threads;
    } catch (const util::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("backend_threads"), std::string::npos) << e.what();
    }
  }
  j = default_train_config();
  j["selfplay"]["backend_threads"] = 2;
  EXPECT_EQ(parse_train_config(j).backend_threads, 2);
}

// Wrong types inside the scheduler are kept as given for the scheduler factory to name
// (`train` checks the schedule before it starts); sizing the poly schedule to the run never
// reads them as numbers.
TEST(TrainConfig, SchedulerFieldsOfTheWrongTypeReachTheFactoryAsGiven) {
  for (const auto& [pointer, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"/learner/scheduler/warmup/steps", "q"},
           {"/learner/scheduler/warmup", "linear"},
           {"/learner/scheduler/type", 7}}) {
    auto j = default_train_config();
    j[nlohmann::json::json_pointer(pointer)] = value;
    const TrainConfig c = parse_train_config(j);
    EXPECT_EQ(c.scheduler[nlohmann::json::json_pointer(pointer.substr(std::string("/learner/scheduler").size()))], value);
  }
  auto j = default_train_config();
  j["learner"]["steps"] = 1000;
  j["learner"]["scheduler"]["warmup"]["steps"] = -9000000000000000000LL;  // clamped: no overflow
  EXPECT_EQ(parse_train_config(j).scheduler["total_iters"], 1000);
  j["learner"]["scheduler"]["warmup"]["steps"] = 200;
  EXPECT_EQ(parse_train_config(j).scheduler["total_iters"], 800);
}

// The message must name the field a user has to fix.
void expect_error_naming(const nlohmann::json& config, const std::string& field) {
  try {
    parse_train_config(config);
    ADD_FAILURE() << "accepted " << config.dump();
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(TrainConfig, NetworkTypesAndValueHeads) {
  auto j = default_train_config();
  EXPECT_EQ(parse_train_config(j).network.value_head, "scalar");
  EXPECT_FALSE(parse_train_config(j).network.to_json().contains("global_channels"));
  j["network"].merge_patch({{"type", "pooled"}, {"global_channels", 8}, {"value_head", "wdl"}});
  const NetConfig pooled = parse_train_config(j).network;
  EXPECT_TRUE(pooled.pooled());
  EXPECT_TRUE(pooled.wdl());
  EXPECT_EQ(pooled.global_channels, 8);
  EXPECT_EQ(parse_net_config(pooled.to_json()), pooled);
  EXPECT_FALSE(parse_train_config(j).synchronous);

  j["network"]["type"] = "resnet";  // global pooling branches belong to the pooled type
  expect_error_naming(j, "network.global_channels");
  j = default_train_config();
  j["network"]["value_head"] = "softmax";
  expect_error_naming(j, "network.value_head");
  j = default_train_config();
  j["network"]["type"] = "transformer";
  expect_error_naming(j, "network.type");
  j = default_train_config();
  j["network"].merge_patch({{"type", "pooled"}, {"global_channels", 0}});
  expect_error_naming(j, "network.global_channels");
  j = default_train_config();
  j["selfplay"]["synchronous"] = "yes";
  expect_error_naming(j, "selfplay.synchronous");
}

TEST(TrainConfig, OverridesSetNestedFields) {
  auto j = default_train_config();
  apply_override(j, "learner.batch_size=64");
  apply_override(j, "eval.opponents=[\"random\"]");
  apply_override(j, "game=tictactoe");
  EXPECT_EQ(j["learner"]["batch_size"], 64);
  EXPECT_EQ(j["eval"]["opponents"].size(), 1u);
  EXPECT_EQ(j["game"], "tictactoe");
  EXPECT_THROW(apply_override(j, "no_equals_sign"), util::UsageError);
}

TEST(RunDir, TruncatesMetricsAfterTheCheckpointAndDropsATornLine) {
  const auto root = std::filesystem::temp_directory_path() / ("pz_rundir_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  RunDir run(root.string());
  run.create_new();
  {
    std::ofstream f(run.config_path());
    f << "{}";
    std::ofstream m(run.metrics_path());
    m << R"({"kind":"train","step":10})" << "\n" << R"({"kind":"train","step":20})" << "\n"
      << R"({"kind":"eval","step":30})" << "\n" << R"({"kind":"tra)";
  }
  EXPECT_THROW(run.create_new(), util::UsageError);
  run.truncate_metrics_after(20);
  std::ifstream in(run.metrics_path());
  std::string a, b, c;
  std::getline(in, a);
  std::getline(in, b);
  EXPECT_FALSE(static_cast<bool>(std::getline(in, c)));
  EXPECT_EQ(b, R"({"kind":"train","step":20})");

  for (int s : {100, 200, 300}) std::filesystem::create_directories(run.checkpoint_dir(s));
  std::filesystem::create_directories(run.checkpoints_dir() + "/.tmp-step-400");
  run.open_existing();  // removes the torn write
  EXPECT_EQ(run.checkpoint_steps(), (std::vector<std::int64_t>{100, 200, 300}));
  run.prune_checkpoints(2);
  EXPECT_EQ(run.checkpoint_steps(), (std::vector<std::int64_t>{200, 300}));
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace pz::nn
