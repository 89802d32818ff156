#include "bench/mctsbot_reference.h"

#include <gtest/gtest.h>

#include "games/registry.h"

namespace pz::bench {
namespace {

std::unique_ptr<games::State> play(const games::Game& game, std::initializer_list<games::Action> moves) {
  auto state = game.new_initial_state();
  for (games::Action a : moves) state->apply_action(a);
  return state;
}

TEST(MctsBotReference, TakesAnImmediateWinAndStopsOnceTheRootIsSolved) {
  const auto game = games::make_game("connect4");
  // First player has three in column 1 (action 0); dropping a fourth there wins.
  const auto state = play(*game, {0, 1, 0, 1, 0, 1});
  MctsBotReference reference(*game, 5000, 1);
  const int done = reference.search(*state);
  EXPECT_EQ(reference.best_action(), 0);
  // The solver proves the win at the root long before the budget is spent.
  EXPECT_LT(done, 5000);
  EXPECT_GT(done, 1);
}

TEST(MctsBotReference, BlocksTheOnlyDefenceInTicTacToe) {
  const auto game = games::make_game("tictactoe");
  // X on cells 0 and 1 threatens 2; O (to move, with one stone on 4) must block there.
  const auto state = play(*game, {0, 4, 1});
  MctsBotReference reference(*game, 4000, 7);
  reference.search(*state);
  EXPECT_EQ(reference.best_action(), 2);
}

TEST(MctsBotReference, RunsTheWholeBudgetOnAnOpenPosition) {
  const auto game = games::make_game("connect4");
  MctsBotReference reference(*game, 300, 3);
  EXPECT_EQ(reference.search(*game->new_initial_state()), 300);
  const games::Action a = reference.best_action();
  EXPECT_GE(a, 0);
  EXPECT_LT(a, 7);
}

TEST(MctsBotReference, PlaysChanceGames) {
  const auto game = games::make_game("einstein:setup=random");
  auto state = game->new_initial_state();
  MctsBotReference reference(*game, 200, 5);
  // A chance root (the random setup) and the dice below it.
  EXPECT_GT(reference.search(*state), 1);
}

}  // namespace
}  // namespace pz::bench
