#include <gtest/gtest.h>

#include "games/registry.h"
#include "mcts/move_choice.h"
#include "mcts/search.h"
#include "test_games.h"

namespace pz::mcts {
namespace {

using testing::play;

TEST(Solver, ProvesAWinInOne) {
  auto game = games::make_game("tictactoe");
  auto state = play(*game, "1 4 2 5");
  UniformEvaluator evaluator;
  SearchConfig c;
  c.simulations = 1000;
  Search search(*game, c, 1);
  search.set_root(*state);
  const SearchReport report = search.run(evaluator);
  EXPECT_TRUE(report.root_proven);
  EXPECT_EQ(report.root_proven_value, 1.0);
  EXPECT_LT(report.simulations, 50);  // the win is found and proven almost at once
  for (const auto& child : report.children) {
    if (child.action == 2) {
      EXPECT_TRUE(child.proven);
      EXPECT_EQ(child.proven_value, 1.0);
    }
  }
}

TEST(Solver, ProvesALossAndStillResists) {
  // O to move against three open X lines (1-5-9, 4-5-6, 1-4-7): every move loses.
  auto game = games::make_game("tictactoe");
  auto state = play(*game, "1 2 5 3 4");
  UniformEvaluator evaluator;
  SearchConfig c;
  c.simulations = 3000;
  Search search(*game, c, 1);
  search.set_root(*state);
  const SearchReport report = search.run(evaluator);
  EXPECT_TRUE(report.root_proven) << report.to_string(*state);
  EXPECT_EQ(report.root_proven_value, -1.0);
  for (const auto& child : report.children) {
    EXPECT_TRUE(child.proven);
    EXPECT_EQ(child.proven_value, -1.0);
  }
  util::Rng rng(1);
  EXPECT_NO_THROW(choose_move(report, MoveSelection{}, state->move_number(), rng));
}

TEST(Solver, ProvesADrawnEndgame) {
  auto game = games::make_game("tictactoe");
  auto state = play(*game, "5 1 9 3 2 8");  // X: 5 9 2, O: 1 3 8; X to move; best play draws
  UniformEvaluator evaluator;
  SearchConfig c;
  c.simulations = 5000;
  Search search(*game, c, 1);
  search.set_root(*state);
  const SearchReport report = search.run(evaluator);
  EXPECT_TRUE(report.root_proven) << report.to_string(*state);
  EXPECT_EQ(report.root_proven_value, 0.0);
}

TEST(Solver, NeverPlaysAProvenLoss) {
  // O to move must block at 3; every other move is a proven loss.
  auto game = games::make_game("tictactoe");
  auto state = play(*game, "1 5 2");
  UniformEvaluator evaluator;
  SearchConfig c;
  c.simulations = 1000;
  Search search(*game, c, 3);
  search.set_root(*state);
  const SearchReport report = search.run(evaluator);
  int proven_losses = 0;
  for (const auto& child : report.children) proven_losses += child.proven && child.proven_value == -1.0;
  EXPECT_GE(proven_losses, 5);
  util::Rng rng(1);
  MoveSelection hot;
  hot.temperature.initial = hot.temperature.final = 1.0;  // even when sampling
  for (int i = 0; i < 20; ++i) EXPECT_EQ(choose_move(report, hot, 3, rng), 2);
}

}  // namespace
}  // namespace pz::mcts
