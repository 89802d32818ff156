#include "mcts/determinization.h"

#include <gtest/gtest.h>

namespace pz::mcts {
namespace {

ChildReport child(games::Action action, int visits, double q, float prior, bool proven = false) {
  ChildReport c;
  c.action = action;
  c.visits = visits;
  c.q = q;
  c.prior = prior;
  c.proven = proven;
  c.pv = {action, static_cast<games::Action>(100 + visits)};
  return c;
}

TEST(Determinization, WorldReportsAddUpByAction) {
  SearchReport a, b;
  a.value_low = b.value_low = 0;
  a.value_high = b.value_high = 10;
  a.simulations = 30;
  b.simulations = 10;
  a.children = {child(1, 20, 4.0, 0.5f, true), child(2, 10, 2.0, 0.5f)};
  b.children = {child(2, 6, 8.0, 0.25f), child(3, 4, 1.0, 0.75f)};
  a.root_proven = true;
  const SearchReport m = merge_world_reports(std::vector<SearchReport>{a, b});
  ASSERT_EQ(m.children.size(), 3u);
  EXPECT_EQ(m.simulations, 40);
  EXPECT_FALSE(m.root_proven);
  EXPECT_EQ(m.children[0].action, 1);
  EXPECT_EQ(m.children[0].visits, 20);
  EXPECT_FALSE(m.children[0].proven) << "a proof in one world is no proof in the game";
  EXPECT_EQ(m.children[1].action, 2);
  EXPECT_EQ(m.children[1].visits, 16);
  EXPECT_DOUBLE_EQ(m.children[1].q, (10 * 2.0 + 6 * 8.0) / 16);
  EXPECT_NEAR(m.children[1].q_normalized, m.children[1].q / 10, 1e-12);
  EXPECT_FLOAT_EQ(m.children[1].prior, 0.375f);
  EXPECT_EQ(m.children[1].pv[1], 110) << "the principal variation of the world that visited it most";
  EXPECT_EQ(m.children[2].action, 3);
  EXPECT_EQ(m.most_visited()->action, 1);
}

}  // namespace
}  // namespace pz::mcts
