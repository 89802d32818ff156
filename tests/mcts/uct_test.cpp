#include "mcts/uct.h"

#include <gtest/gtest.h>

#include "games/registry.h"
#include "test_games.h"

namespace pz::mcts {
namespace {

TEST(Uct, FindsTheWinAndTheBlock) {
  auto game = games::make_game("connect4");
  UctSearch uct(*game, UctConfig{2000, 0, 1.0, 1}, 1);
  EXPECT_EQ(uct.choose(*testing::play(*game, "1 2 1 2 1 3"), 0), 0);
  EXPECT_EQ(uct.choose(*testing::play(*game, "1 2 1 2 1"), 1), 0);
  EXPECT_EQ(uct.last_stats().simulations, 2000);
  EXPECT_GT(uct.last_stats().nodes, 100u);
}

TEST(Uct, ChanceAndSimultaneousNodes) {
  auto dice = testing::dice_game();
  UctSearch a(*dice, UctConfig{3000, 0, 1.0, 1}, 2);
  EXPECT_EQ(a.choose(*dice->new_initial_state(), 0), 1);  // rolling is worth 0.32 > 0.2
  auto matrix = testing::matrix_game();
  UctSearch b(*matrix, UctConfig{3000, 0, 1.0, 1}, 3);
  EXPECT_EQ(b.choose(*matrix->new_initial_state(), 0), 0);
  EXPECT_EQ(b.choose(*matrix->new_initial_state(), 1), 0);
}

TEST(Uct, Deterministic) {
  auto game = games::make_game("connect4");
  auto state = game->new_initial_state();
  UctSearch a(*game, UctConfig{500, 0, 1.0, 1}, 9), b(*game, UctConfig{500, 0, 1.0, 1}, 9);
  EXPECT_EQ(a.choose(*state, 0), b.choose(*state, 0));
  EXPECT_EQ(a.last_stats().root_visits, b.last_stats().root_visits);
}

}  // namespace
}  // namespace pz::mcts
