#include "games/tictactoe.h"

#include <gtest/gtest.h>

#include "games/perft.h"
#include "tests/games/game_properties.h"
#include "util/error.h"

namespace pz::games {
namespace {

std::shared_ptr<const Game> make() { return std::make_shared<TicTacToeGame>(util::Spec{"tictactoe", {}}); }

std::unique_ptr<State> play(const Game& game, const std::vector<std::string>& moves) {
  auto state = game.new_initial_state();
  for (const auto& m : moves) state->apply_checked(*state->parse_action(m));
  return state;
}

TEST(TicTacToe, PerftMatchesTheKnownGameTreeCounts) {
  // 255168 games in total; per depth the counts are the standard ones (e.g. OEIS A008907 totals).
  auto game = make();
  auto root = game->new_initial_state();
  const std::uint64_t expected[] = {1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872};
  for (int d = 0; d <= 9; ++d) EXPECT_EQ(perft(*root, d), expected[d]) << "depth " << d;
}

TEST(TicTacToe, RowWinEndsTheGame) {
  auto game = make();
  auto s = play(*game, {"a1", "a2", "b1", "b2", "c1"});
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(s->returns(), (std::vector<double>{1.0, -1.0}));
}

TEST(TicTacToe, FullBoardWithoutLineIsADraw) {
  auto game = make();
  auto s = play(*game, {"b2", "a1", "c1", "a3", "a2", "c2", "b1", "b3", "c3"});
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(s->returns(), (std::vector<double>{0.0, 0.0}));
}

TEST(TicTacToe, NotationAcceptsCellsAndDigits) {
  auto game = make();
  auto s = game->new_initial_state();
  EXPECT_EQ(s->parse_action("b2"), 4);
  EXPECT_EQ(s->parse_action("C3"), 8);
  EXPECT_EQ(s->parse_action("5"), 4);
  std::string error;
  EXPECT_FALSE(s->parse_action("d1", &error));
  EXPECT_NE(error.find("off the board"), std::string::npos);
}

TEST(TicTacToe, IllegalMoveIsRefused) {
  auto game = make();
  auto s = play(*game, {"b2"});
  EXPECT_THROW(s->apply_checked(4), util::UsageError);
}

TEST(TicTacToe, DeserializeRejectsImpossiblePositions) {
  auto game = make();
  EXPECT_THROW(game->deserialize("xxx......"), util::UsageError);  // too many X
  EXPECT_THROW(game->deserialize("xxxooo..."), util::UsageError);  // both have lines
  EXPECT_THROW(game->deserialize("xx"), util::UsageError);
  auto s = game->deserialize("xxxoo....");
  EXPECT_TRUE(s->is_terminal());
}

TEST(TicTacToe, RandomPlayoutInvariants) { testing::check_random_playouts(*make(), 2000, 1); }
TEST(TicTacToe, Symmetries) { testing::check_symmetries(*make(), 50, 2); }

}  // namespace
}  // namespace pz::games
