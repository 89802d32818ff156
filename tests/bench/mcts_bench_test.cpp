#include "bench/mcts_bench.h"

#include <gtest/gtest.h>

#include "games/registry.h"

namespace pz::bench {
namespace {

TEST(MctsBench, MeasuresEveryLayoutAndTheReferenceInTheSameRun) {
  const auto game = games::make_game("tictactoe");
  const MctsBenchResult r = measure_mcts(*game, 2, 0.1, 200, 1, 1);
  // uniform and rollout × (1 thread, 2 on one tree, 2 on separate trees), then the reference.
  ASSERT_EQ(r.rows.size(), 7U);
  for (const auto& row : r.rows) EXPECT_GT(row.simulations, 0) << row.search << " " << row.evaluator;
  EXPECT_EQ(r.rows.back().search, "mctsbot-design");
  EXPECT_EQ(r.rows.back().evaluator, "rollout");
  EXPECT_GT(r.rollout_vs_reference, 0);
  EXPECT_GT(r.uniform.shared_tree, 0);
  EXPECT_GT(r.rollout.separate_trees, 0);
}

TEST(MctsBench, LeavesTheReferenceOutForSimultaneousGames) {
  const auto game = games::make_game("tron");
  const MctsBenchResult r = measure_mcts(*game, 1, 0.1, 50, 1, 1);
  ASSERT_EQ(r.rows.size(), 2U);
  for (const auto& row : r.rows) EXPECT_EQ(row.search, "polyzero");
  EXPECT_EQ(r.rollout_vs_reference, 0);
}

}  // namespace
}  // namespace pz::bench
