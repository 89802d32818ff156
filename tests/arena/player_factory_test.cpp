#include "arena/player_factory.h"

#include <gtest/gtest.h>

#include "games/registry.h"
#include "util/error.h"

namespace pz::arena {
namespace {

TEST(PlayerFactory, MakesHumanAndRandom) {
  auto game = games::make_game("connect4");
  auto human = make_player("human", *game, 1);
  EXPECT_TRUE(human->is_human());
  auto random = make_player("random:seed=5", *game, 1);
  EXPECT_FALSE(random->is_human());
  EXPECT_EQ(random->name(), "random:seed=5");
}

TEST(PlayerFactory, RandomPlayerPlaysLegalMovesReproducibly) {
  auto game = games::make_game("othello");
  auto a = make_player("random", *game, 9);
  auto b = make_player("random", *game, 9);
  auto state = game->new_initial_state();
  while (!state->is_terminal()) {
    const auto mover = state->current_player();
    const auto action = a->choose_action(*state, mover);
    EXPECT_EQ(action, b->choose_action(*state, mover));
    ASSERT_TRUE(state->is_legal(action));
    state->apply_action(action);
  }
}

TEST(PlayerFactory, UnknownPlayerOrOptionIsExplained) {
  auto game = games::make_game("connect4");
  try {
    make_player("alphago", *game, 1);
    FAIL();
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("known players: human, random, uct, mcts"), std::string::npos);
  }
  EXPECT_THROW(make_player("random:sims=3", *game, 1), util::UsageError);
  EXPECT_THROW(make_player("random:seed=x", *game, 1), util::UsageError);
}

}  // namespace
}  // namespace pz::arena
