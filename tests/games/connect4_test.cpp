#include "games/connect4.h"

#include <gtest/gtest.h>

#include <array>

#include "games/perft.h"
#include "tests/games/game_properties.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::games {
namespace {

std::shared_ptr<const Game> make(int w = 7, int h = 6) {
  return std::make_shared<Connect4Game>(util::Spec{"connect4", {}}, w, h);
}

// A deliberately plain reference: a 2D array and explicit line walking.
struct NaiveConnect4 {
  int w, h;
  std::array<std::array<int, 9>, 9> cell{};  // [col][row from bottom], 0 empty, 1/2 players
  int moves = 0, winner = 0;
  NaiveConnect4(int w_, int h_) : w(w_), h(h_) {}
  bool over() const { return winner != 0 || moves == w * h; }
  std::vector<int> legal() const {
    std::vector<int> out;
    if (over()) return out;
    for (int c = 0; c < w; ++c)
      if (cell[c][h - 1] == 0) out.push_back(c);
    return out;
  }
  void play(int c) {
    int r = 0;
    while (cell[c][r] != 0) ++r;
    int p = moves % 2 + 1;
    cell[c][r] = p;
    ++moves;
    const int dirs[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    for (auto& d : dirs) {
      int n = 1;
      for (int s = -1; s <= 1; s += 2) {
        int x = c + s * d[0], y = r + s * d[1];
        while (x >= 0 && x < w && y >= 0 && y < h && cell[x][y] == p) {
          ++n;
          x += s * d[0];
          y += s * d[1];
        }
      }
      if (n >= 4) winner = p;
    }
  }
};

TEST(Connect4, PerftFirstPliesFollowFromTheRules) {
  // No four before ply 7, so perft(d) = 7^d for d <= 6; at ply 7 only the 7 sequences that
  // filled one column lose a move: 7^7 - 7.
  auto root = make()->new_initial_state();
  std::uint64_t power = 1;
  for (int d = 0; d <= 6; ++d, power *= 7) EXPECT_EQ(perft(*root, d), power);
  EXPECT_EQ(perft(*root, 7), 823543u - 7u);
}

TEST(Connect4, PerftMatchesNaiveReference) {
  for (auto [w, h] : {std::pair{7, 6}, {4, 4}, {5, 4}, {9, 6}}) {
    auto root = make(w, h)->new_initial_state();
    NaiveConnect4 naive(w, h);
    const int depth = w * h <= 20 ? 9 : 7;
    EXPECT_EQ(perft(*root, depth), testing::reference_perft(naive, depth)) << w << "x" << h;
  }
  // Published value for the standard board (8 plies), also reproduced by the naive code.
  EXPECT_EQ(perft(*make()->new_initial_state(), 8), 5673234u);
}

TEST(Connect4, RandomGamesAgreeWithNaiveReference) {
  util::Rng rng(7);
  for (auto [w, h] : {std::pair{7, 6}, {4, 4}, {8, 7}, {6, 5}}) {
    auto game = make(w, h);
    for (int g = 0; g < 500; ++g) {
      auto s = game->new_initial_state();
      NaiveConnect4 naive(w, h);
      while (true) {
        auto legal = s->legal_actions();
        auto expected = naive.legal();
        ASSERT_EQ(std::vector<int>(legal.begin(), legal.end()), expected);
        ASSERT_EQ(s->is_terminal(), naive.over());
        if (s->is_terminal()) break;
        int c = legal[rng.below(static_cast<uint32_t>(legal.size()))];
        s->apply_action(c);
        naive.play(c);
      }
      const auto r = s->returns();
      const double expected = naive.winner == 0 ? 0.0 : naive.winner == 1 ? 1.0 : -1.0;
      ASSERT_EQ(r[0], expected);
    }
  }
}

TEST(Connect4, FourInEveryDirectionWins) {
  auto game = make();
  // vertical, horizontal, both diagonals (as column sequences; first player wins each)
  for (std::string record : {"1212121", "1122334", "241316274467433", "7654657432544"}) {
    auto s = game->deserialize(record);
    EXPECT_TRUE(s->is_terminal()) << record << "\n" << s->to_string();
    EXPECT_EQ(s->returns()[0], 1.0) << record;
  }
  // Three in a row does not end the game.
  EXPECT_FALSE(game->deserialize("121212")->is_terminal());
}

TEST(Connect4, FullBoardDraw) {
  // A full 7x6 board with no four for either side (found by random search with an
  // independent checker; the naive reference confirms it).
  auto game = make();
  std::string record = "547125662261271266215743771576315353334444";
  NaiveConnect4 naive(7, 6);
  for (char c : record) naive.play(c - '1');
  ASSERT_EQ(naive.winner, 0);
  auto s = game->deserialize(record);
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(s->returns(), (std::vector<double>{0.0, 0.0}));
}

TEST(Connect4, FullColumnIsIllegal) {
  auto game = make();
  auto s = game->deserialize("111111");
  EXPECT_FALSE(s->is_legal(0));
  EXPECT_THROW(game->deserialize("1111111"), util::UsageError);
  EXPECT_THROW(game->deserialize("18"), util::UsageError);
  EXPECT_THROW(game->deserialize("1212121" "3"), util::UsageError);  // play after the end
}

TEST(Connect4, Notation) {
  auto s = make()->new_initial_state();
  EXPECT_EQ(s->parse_action("4"), 3);
  EXPECT_EQ(s->action_to_string(0, 6), "7");
  std::string error;
  EXPECT_FALSE(s->parse_action("8", &error));
  EXPECT_NE(error.find("1 to 7"), std::string::npos);
  EXPECT_FALSE(s->parse_action("x", &error));
}

TEST(Connect4, ObservationIsFromTheMoversView) {
  auto game = make();
  auto s = game->deserialize("4");
  auto obs = s->observation(1);  // second player to move: the first player's disc is "theirs"
  const int bottom_centre = 5 * 7 + 3;
  EXPECT_EQ(obs[bottom_centre], 0.0f);
  EXPECT_EQ(obs[42 + bottom_centre], 1.0f);
  EXPECT_EQ(obs[84], 0.0f);
}

TEST(Connect4, RandomPlayoutInvariants) {
  testing::check_random_playouts(*make(), 2000, 3);
  testing::check_random_playouts(*make(4, 4), 500, 4);
}
TEST(Connect4, MayEndGameIsExactlyTheWinningAndFillingMoves) {
  testing::check_may_end_game_exact(*make(), 300, 21);
  testing::check_may_end_game_exact(*make(4, 4), 300, 22);  // small: many full-board draws
}

TEST(Connect4, Symmetries) { testing::check_symmetries(*make(), 100, 5); }

}  // namespace
}  // namespace pz::games
