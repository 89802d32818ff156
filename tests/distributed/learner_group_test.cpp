// Which rank, of how many, meeting where (distributed/learner_group.h): flags over RANK/WORLD_SIZE
// over SLURM_*, and the clear errors for bad values. No LibTorch, no network.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "distributed/learner_group.h"
#include "util/error.h"

namespace pz::distributed {
namespace {

struct Env {
  std::map<std::string, std::string> vars;
  std::function<const char*(const char*)> getter() const {
    return [this](const char* name) -> const char* {
      const auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

std::string error_of(const LearnerGroupFlags& flags, const Env& env) {
  try {
    resolve_learner_group(flags, env.getter());
  } catch (const util::UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(LearnerGroupTest, AloneByDefault) {
  const auto s = resolve_learner_group({}, Env{}.getter());
  EXPECT_EQ(s.rank, 0);
  EXPECT_EQ(s.world_size, 1);
  EXPECT_EQ(s.describe(), "rank 0 of 1");
}

TEST(LearnerGroupTest, TorchrunEnvironment) {
  const Env env{{{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "10.0.0.5"}, {"MASTER_PORT", "29500"}}};
  const auto s = resolve_learner_group({}, env.getter());
  EXPECT_EQ(s.rank, 1);
  EXPECT_EQ(s.world_size, 2);
  EXPECT_EQ(s.master_host, "10.0.0.5");
  EXPECT_EQ(s.master_port, 29500);
}

TEST(LearnerGroupTest, SlurmEnvironmentAndPrecedence) {
  Env env{{{"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "4"}, {"MASTER_ADDR", "node1"}, {"MASTER_PORT", "12345"}}};
  auto s = resolve_learner_group({}, env.getter());
  EXPECT_EQ(s.rank, 3);
  EXPECT_EQ(s.world_size, 4);
  env.vars["RANK"] = "2";  // torchrun's variables over Slurm's
  env.vars["WORLD_SIZE"] = "3";
  s = resolve_learner_group({}, env.getter());
  EXPECT_EQ(s.rank, 2);
  EXPECT_EQ(s.world_size, 3);
  LearnerGroupFlags flags;  // flags over both
  flags.rank = 0;
  flags.world_size = 2;
  flags.master = "127.0.0.1:29600";
  s = resolve_learner_group(flags, env.getter());
  EXPECT_EQ(s.rank, 0);
  EXPECT_EQ(s.world_size, 2);
  EXPECT_EQ(s.master_host, "127.0.0.1");
  EXPECT_EQ(s.master_port, 29600);
}

TEST(LearnerGroupTest, BadValuesAreClearErrors) {
  LearnerGroupFlags flags;
  flags.world_size = 2;
  flags.rank = 2;
  flags.master = "h:1";
  EXPECT_NE(error_of(flags, {}).find("--rank 2 is not a rank of --world-size 2"), std::string::npos) << error_of(flags, {});
  flags.rank = -1;
  EXPECT_NE(error_of(flags, {}).find("ranks are 0 to 1"), std::string::npos);
  flags.rank = 0;
  flags.world_size = 0;
  EXPECT_NE(error_of(flags, {}).find("at least 1"), std::string::npos);
  EXPECT_NE(error_of({}, Env{{{"WORLD_SIZE", "two"}}}).find("WORLD_SIZE='two'"), std::string::npos);
  EXPECT_NE(error_of({}, Env{{{"WORLD_SIZE", "2"}, {"RANK", "1x"}}}).find("RANK='1x'"), std::string::npos);
  EXPECT_NE(error_of({}, Env{{{"WORLD_SIZE", "2"}}}).find("--master HOST:PORT"), std::string::npos);
  flags = {};
  flags.world_size = 2;
  flags.master = "127.0.0.1";
  EXPECT_NE(error_of(flags, {}).find("expected HOST:PORT"), std::string::npos);
  flags.master = "127.0.0.1:99999";
  EXPECT_NE(error_of(flags, {}).find("a TCP port from 1 to 65535"), std::string::npos);
  EXPECT_NE(error_of({}, Env{{{"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "0"}}}).find("MASTER_PORT='0'"),
            std::string::npos);
}

}  // namespace
}  // namespace pz::distributed
