// What an untrusted client may ask of a player (arena/untrusted_specs.h).
#include "arena/untrusted_specs.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "util/error.h"

namespace pz::arena {
namespace {

TEST(UntrustedSpecs, KindsThatComputeWithinBoundsPass) {
  const UntrustedSpecs specs;
  EXPECT_EQ(specs.resolve("mcts:sims=400"), "mcts:sims=400");
  EXPECT_EQ(specs.resolve("uct:sims=2000,c=0.7"), "uct:c=0.7,sims=2000");
  EXPECT_EQ(specs.resolve("random"), "random");
  EXPECT_EQ(specs.resolve("human"), "human");
  EXPECT_EQ(specs.resolve("solver:seconds=10"), "solver:seconds=10");
  EXPECT_EQ(specs.resolve("mcts:sims=100000,threads=4,select=lcb"), "mcts:select=lcb,sims=100000,threads=4");
}

TEST(UntrustedSpecs, CommandsFilesAndUnknownKindsAreRefused) {
  const UntrustedSpecs specs(std::map<std::string, std::string>{{"connect4", "/srv/models/c4.pt"}});
  for (const char* spec : {"gtp:cmd=touch /tmp/x", "gtp:cmd=gnugo --mode gtp,log=/tmp/log", "mcts:model=/etc/passwd",
                           "policy:model=../x.pt", "mcts:model=hex", "mcts:log=/tmp/x", "newkind:sims=1",
                           "human:seed=1"}) {
    EXPECT_THROW(specs.resolve(spec), util::UsageError) << spec;
  }
}

TEST(UntrustedSpecs, BudgetsAreBounded) {
  const UntrustedSpecs specs({}, UntrustedBudget{.max_simulations = 1000, .max_seconds = 5, .max_threads = 2});
  for (const char* spec : {"mcts:sims=1001", "mcts:seconds=5.5", "mcts:threads=3", "mcts:nnthreads=8", "uct:sims=1e9",
                           "mcts:sims=400,seconds=inf", "mcts:seconds=nan", "mcts:rollouts=1000", "uct:worlds=4096",
                           "solver:seconds=60", "mcts:c=1e999"}) {
    EXPECT_THROW(specs.resolve(spec), util::UsageError) << spec;
  }
  EXPECT_NO_THROW(specs.resolve("mcts:sims=1000,seconds=5,threads=2"));
}

TEST(UntrustedSpecs, RegisteredModelNamesResolveToTheirCheckpoints) {
  const UntrustedSpecs specs(std::map<std::string, std::string>{{"connect4", "/srv/models/c4.pt"}});
  EXPECT_EQ(specs.resolve("mcts:model=connect4,sims=400"), "mcts:model=/srv/models/c4.pt,sims=400");
  EXPECT_EQ(specs.resolve("policy:model=connect4"), "policy:model=/srv/models/c4.pt");
  try {
    specs.resolve("mcts:model=/srv/models/c4.pt");
    FAIL() << "a path was accepted";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("offered: connect4"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pz::arena
