// The node kinds the board games lack: chance (expectation over outcomes), simultaneous
// moves (decoupled selection) and single-player scores (min/max normalisation).
#include <gtest/gtest.h>

#include "mcts/move_choice.h"
#include "mcts/search.h"
#include "test_games.h"

namespace pz::mcts {
namespace {

TEST(ChanceNodes, AverageOutcomesByProbability) {
  auto game = testing::dice_game();
  UniformEvaluator evaluator;
  SearchConfig c;
  c.simulations = 4000;
  c.solver = false;
  Search search(*game, c, 17);
  search.set_root(*game->new_initial_state());
  const SearchReport report = search.run(evaluator);
  ASSERT_EQ(report.children.size(), 2u);
  const ChildReport& stand = report.children[0];
  const ChildReport& roll = report.children[1];
  EXPECT_NEAR(stand.q, 0.2, 1e-9);
  // 0.1·(-1) + 0.2·0 + 0.7·0.6 = 0.32, estimated from the sampled outcomes.
  EXPECT_NEAR(roll.q, 0.32, 0.04);
  EXPECT_GT(roll.visits, stand.visits);
  EXPECT_EQ(testing::check_tree(*search.root_node()), "");

  // The outcomes were sampled in proportion to their probabilities.
  const Node* chance = search.root_node()->children + 1;
  ASSERT_EQ(chance->kind, NodeKind::kChance);
  const double n = chance->visits.load();
  EXPECT_NEAR(chance->children[0].visits.load() / n, 0.1, 0.03);
  EXPECT_NEAR(chance->children[2].visits.load() / n, 0.7, 0.03);
}

TEST(ChanceNodes, SolverTakesTheExactExpectation) {
  auto game = testing::dice_game();
  UniformEvaluator evaluator;
  SearchConfig c;
  c.simulations = 2000;
  c.stop_when_proven = true;
  Search search(*game, c, 17);
  search.set_root(*game->new_initial_state());
  const SearchReport report = search.run(evaluator);
  EXPECT_TRUE(report.root_proven);
  EXPECT_NEAR(report.root_proven_value, 0.32, 1e-6);
  EXPECT_TRUE(report.children[1].proven);
  EXPECT_LT(report.simulations, 2000);  // stopped once proven
}

TEST(SimultaneousNodes, DecoupledSelectionFindsTheEquilibrium) {
  auto game = testing::matrix_game();
  UniformEvaluator evaluator;
  SearchConfig c;
  c.simulations = 3000;
  Search search(*game, c, 23);
  search.set_root(*game->new_initial_state());
  search.run(evaluator);
  const SearchReport row = search.report(0), column = search.report(1);
  ASSERT_EQ(row.children.size(), 2u);
  ASSERT_EQ(column.children.size(), 2u);
  EXPECT_GT(row.children[0].visits, 4 * row.children[1].visits);
  EXPECT_GT(column.children[0].visits, 4 * column.children[1].visits);
  EXPECT_NEAR(row.children[0].q, 0.5, 0.15);
  EXPECT_EQ(testing::check_tree(*search.root_node()), "");
  util::Rng rng(1);
  EXPECT_EQ(choose_move(row, MoveSelection{}, 0, rng), 0);
  EXPECT_EQ(choose_move(column, MoveSelection{}, 0, rng), 0);
}

TEST(SinglePlayer, MinMaxNormalisationFindsTheDeepReward) {
  auto game = testing::treasure_game();
  RolloutEvaluator evaluator(1, 3);
  SearchConfig c;
  c.simulations = 1500;
  c.solver = false;
  Search search(*game, c, 29);
  search.set_root(*game->new_initial_state());
  const SearchReport report = search.run(evaluator);
  EXPECT_EQ(report.value_low, 0);       // the worst score seen...
  EXPECT_GE(report.value_high, 150);    // ...and the best, not the declared bound of 200
  util::Rng rng(1);
  EXPECT_EQ(choose_move(report, MoveSelection{}, 0, rng), 0) << report.to_string(*game->new_initial_state());
}

}  // namespace
}  // namespace pz::mcts
