#include "games/tron.h"

#include <gtest/gtest.h>

#include <set>

#include "games/perft.h"
#include "tests/games/game_properties.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::games {
namespace {

constexpr Action kUp = 0, kRight = 1, kDown = 2, kLeft = 3;

std::shared_ptr<const TronGame> make(int rows = 11, int columns = 11) {
  return std::make_shared<TronGame>(util::Spec{"tron", {}}, rows, columns);
}

const TronState& as_tron(const State& s) { return static_cast<const TronState&>(s); }

TEST(Tron, StartAndSimultaneousApi) {
  const auto game = make();
  auto s = game->new_initial_state();
  EXPECT_TRUE(s->is_simultaneous_node());
  EXPECT_EQ(as_tron(*s).head(0), 5 * 11 + 2);  // c6
  EXPECT_EQ(as_tron(*s).head(1), 5 * 11 + 8);  // i6
  EXPECT_TRUE(s->legal_actions().empty());     // no single mover
  for (int p = 0; p < 2; ++p) {
    std::vector<Action> legal;
    s->legal_actions(p, legal);
    EXPECT_EQ(legal, (std::vector<Action>{0, 1, 2, 3}));
  }
  EXPECT_THROW(s->apply_action(kUp), std::logic_error);
  EXPECT_FALSE(s->is_legal(kUp));
  EXPECT_NE(s->explain_illegal(kUp).find("joint action"), std::string::npos);
  EXPECT_EQ(s->returns(), (std::vector<double>{0, 0}));
  EXPECT_EQ(game->info().max_game_length, 60);
  EXPECT_TRUE(game->info().simultaneous);
  EXPECT_EQ(game->symmetries(), (std::vector<Symmetry>{Symmetry::kIdentity, Symmetry::kFlip}));
  EXPECT_EQ(make(10, 10)->symmetries(), (std::vector<Symmetry>{Symmetry::kIdentity}));
}

TEST(Tron, HeadOnIntoTheSameCellIsADraw) {
  const auto game = make(5, 5);  // players on c3... b3 and d3, one free cell between them
  auto s = game->new_initial_state();
  EXPECT_EQ(as_tron(*s).head(0), 2 * 5 + 1);
  EXPECT_EQ(as_tron(*s).head(1), 2 * 5 + 3);
  s->apply_joint_action({kRight, kLeft});
  EXPECT_TRUE(s->is_terminal());
  EXPECT_TRUE(as_tron(*s).crashed(0));
  EXPECT_TRUE(as_tron(*s).crashed(1));
  EXPECT_EQ(s->returns(), (std::vector<double>{0, 0}));
  EXPECT_EQ(as_tron(*s).owner(2 * 5 + 2), -1);  // nobody took the cell
  EXPECT_NE(s->to_string().find("both players crashed"), std::string::npos);
}

TEST(Tron, SwappingThroughEachOtherCrashesBoth) {
  const auto game = make(5, 6);  // b3 and e3
  auto s = game->deserialize("rl");  // now c3 and d3, adjacent
  ASSERT_FALSE(s->is_terminal());
  s->apply_joint_action({kRight, kLeft});  // each into the other's head
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(s->returns(), (std::vector<double>{0, 0}));
}

TEST(Tron, CrashingIntoTheOtherTrailLoses) {
  const auto game = make(7, 7);  // b4 and f4
  // Player 2 drives left along row 4 into player 1's start cell b4.
  auto s = game->deserialize("ul ul rl dl");
  EXPECT_TRUE(s->is_terminal());
  EXPECT_FALSE(as_tron(*s).crashed(0));
  EXPECT_TRUE(as_tron(*s).crashed(1));
  EXPECT_EQ(s->returns(), (std::vector<double>{1, -1}));
  EXPECT_EQ(as_tron(*s).head(1), 3 * 7 + 2);  // the crashed head stays on c4
  EXPECT_NE(s->to_string().find("player 2 (O) crashed, player 1 (X) wins"), std::string::npos);
}

TEST(Tron, TurningBackAndLeavingTheBoardCrash) {
  const auto game = make(7, 7);
  auto back = game->deserialize("lr ru");  // player 1 turns back into its own trail
  EXPECT_TRUE(back->is_terminal());
  EXPECT_EQ(back->returns(), (std::vector<double>{-1, 1}));
  auto both_back = game->deserialize("lr rl");
  EXPECT_EQ(both_back->returns(), (std::vector<double>{0, 0}));
  auto wall = game->deserialize("lu lu");  // a4, then off the board
  EXPECT_TRUE(wall->is_terminal());
  EXPECT_EQ(wall->returns(), (std::vector<double>{-1, 1}));
  auto wall2 = game->deserialize("uu uu uu lu");  // player 2 leaves the top edge at step 4
  EXPECT_EQ(wall2->returns(), (std::vector<double>{1, -1}));
  EXPECT_EQ(wall2->move_number(), 4);
}

TEST(Tron, PerftFollowsFromTheRules) {
  auto root = make()->new_initial_state();
  // Step 1: 4×4 joint moves, nothing within reach. Step 2: all 16 joint moves are plies, but
  // a player turning back crashes, so 3×3 of them keep the game going. Step 3: per player,
  // 12 two-step paths × 3 onward moves, less the one path (three times towards the near
  // edge) that leaves the board: 35 each; of the 35² pairs one collides head-on (both
  // drive straight at each other and meet on f6), so 1224 positions go on to a 4th step.
  EXPECT_EQ(perft(*root, 1), 16u);
  EXPECT_EQ(perft(*root, 2), 256u);
  EXPECT_EQ(perft(*root, 3), 16u * 9u * 16u);
  EXPECT_EQ(perft(*root, 4), (35u * 35u - 1u) * 16u);
}

// A plain reference: a grid of owners, both players advanced by hand.
struct NaiveTron {
  int rows, columns;
  std::vector<int> grid;  // -1 empty, else the owner
  int y[2], x[2];
  bool crashed[2] = {false, false};
  NaiveTron(int r, int c) : rows(r), columns(c), grid(static_cast<size_t>(r * c), -1) {
    y[0] = y[1] = (r - 1) / 2;
    x[0] = c / 4;
    x[1] = c - 1 - c / 4;
    for (int p = 0; p < 2; ++p) grid[static_cast<size_t>(y[p] * c + x[p])] = p;
  }
  bool over() const { return crashed[0] || crashed[1]; }
  void play(Action a0, Action a1) {
    const int dy[4] = {-1, 0, 1, 0}, dx[4] = {0, 1, 0, -1};
    const Action a[2] = {a0, a1};
    int ny[2], nx[2];
    bool ok[2];
    for (int p = 0; p < 2; ++p) {
      ny[p] = y[p] + dy[a[p]];
      nx[p] = x[p] + dx[a[p]];
      ok[p] = ny[p] >= 0 && ny[p] < rows && nx[p] >= 0 && nx[p] < columns && grid[static_cast<size_t>(ny[p] * columns + nx[p])] < 0;
    }
    if (ok[0] && ok[1] && ny[0] == ny[1] && nx[0] == nx[1]) ok[0] = ok[1] = false;
    for (int p = 0; p < 2; ++p) {
      if (!ok[p]) {
        crashed[p] = true;
        continue;
      }
      y[p] = ny[p];
      x[p] = nx[p];
      grid[static_cast<size_t>(y[p] * columns + x[p])] = p;
    }
  }
};

std::uint64_t naive_perft(const NaiveTron& s, int depth) {
  if (depth == 0) return 1;
  if (s.over()) return 0;
  std::uint64_t total = 0;
  for (Action a0 = 0; a0 < 4; ++a0)
    for (Action a1 = 0; a1 < 4; ++a1) {
      NaiveTron t = s;
      t.play(a0, a1);
      total += naive_perft(t, depth - 1);
    }
  return total;
}

TEST(Tron, PerftMatchesNaiveReference) {
  for (auto [rows, columns, depth] : {std::tuple{11, 11, 5}, {5, 5, 5}, {5, 6, 5}, {6, 8, 4}}) {
    const auto game = make(rows, columns);
    EXPECT_EQ(perft(*game->new_initial_state(), depth), naive_perft(NaiveTron(rows, columns), depth))
        << rows << "x" << columns;
  }
}

TEST(Tron, RandomGamesAgreeWithNaiveReference) {
  util::Rng rng(3);
  for (auto [rows, columns] : {std::pair{11, 11}, {5, 5}, {6, 9}, {20, 20}}) {
    const auto game = make(rows, columns);
    for (int g = 0; g < 300; ++g) {
      auto s = game->new_initial_state();
      NaiveTron naive(rows, columns);
      while (!s->is_terminal()) {
        // Mostly avoid fatal moves so that games run long and fill the board.
        Action a[2];
        for (int p = 0; p < 2; ++p) {
          a[p] = static_cast<Action>(rng.below(4));
          for (int tries = 0; tries < 8; ++tries) {
            const int dy[4] = {-1, 0, 1, 0}, dx[4] = {0, 1, 0, -1};
            const int ny = naive.y[p] + dy[a[p]], nx = naive.x[p] + dx[a[p]];
            if (ny >= 0 && ny < rows && nx >= 0 && nx < columns && naive.grid[static_cast<size_t>(ny * columns + nx)] < 0) break;
            a[p] = static_cast<Action>(rng.below(4));
          }
        }
        s->apply_joint_action({a[0], a[1]});
        naive.play(a[0], a[1]);
        ASSERT_EQ(s->is_terminal(), naive.over());
        for (int p = 0; p < 2; ++p) {
          ASSERT_EQ(as_tron(*s).crashed(p), naive.crashed[p]);
          ASSERT_EQ(as_tron(*s).head(p), naive.y[p] * columns + naive.x[p]);
        }
        ASSERT_LE(s->move_number(), game->info().max_game_length);
      }
      for (int c = 0; c < rows * columns; ++c) ASSERT_EQ(as_tron(*s).owner(c), naive.grid[static_cast<size_t>(c)]);
    }
  }
}

TEST(Tron, GameLengthBoundIsReached) {
  // On a 5×5 board the bound is (25 - 2) / 2 + 1 = 12 steps, and a game can last that long:
  // player 1 sweeps columns a-b from b3 and ends on c4, c5; player 2 sweeps d-e from d3 and
  // ends on c2, c1. After 11 steps only c3 is free and neither head touches it.
  const auto game = make(5, 5);
  EXPECT_EQ(game->info().max_game_length, 12);
  auto s = game->deserialize("ud ud lr du du du du rl ud rl du");
  ASSERT_FALSE(s->is_terminal()) << s->to_string();
  EXPECT_EQ(as_tron(*s).owner(2 * 5 + 2), -1);
  s->apply_joint_action({kUp, kDown});  // both into their own trails
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(s->returns(), (std::vector<double>{0, 0}));
  EXPECT_EQ(s->move_number(), 12);
}

TEST(Tron, ObservationIsFromThePlayersView) {
  const auto game = make(5, 5);
  auto s = game->deserialize("uu");
  const auto o0 = s->observation(0), o1 = s->observation(1);
  const int n = 25;
  EXPECT_EQ(o0[1 * 5 + 1], 1.0f);           // own trail: b2 (head) ...
  EXPECT_EQ(o0[2 * 5 + 1], 1.0f);           // ... and b3
  EXPECT_EQ(o0[n + 1 * 5 + 1], 1.0f);       // own head b2
  EXPECT_EQ(o0[2 * n + 1 * 5 + 3], 1.0f);   // opponent trail d2
  EXPECT_EQ(o0[3 * n + 1 * 5 + 3], 1.0f);   // opponent head d2
  EXPECT_EQ(o1[1 * 5 + 3], 1.0f);
  EXPECT_EQ(o1[2 * n + 1 * 5 + 1], 1.0f);
  EXPECT_EQ(o0[4 * n + 7], 1.0f);
  float own = 0, theirs = 0;
  for (int c = 0; c < n; ++c) {
    own += o0[c];
    theirs += o0[2 * n + c];
  }
  EXPECT_EQ(own, 2.0f);
  EXPECT_EQ(theirs, 2.0f);
}

TEST(Tron, NotationAndRecords) {
  const auto game = make();
  auto s = game->new_initial_state();
  EXPECT_EQ(s->parse_action("Up"), kUp);
  EXPECT_EQ(s->parse_action(" r "), kRight);
  EXPECT_EQ(s->action_to_string(1, kLeft), "left");
  std::string error;
  EXPECT_FALSE(s->parse_action("x", &error));
  EXPECT_NE(error.find("up, right, down or left"), std::string::npos);
  auto t = game->deserialize(" rl  ud\tdd ");
  EXPECT_EQ(t->serialize(), "rl ud dd");
  EXPECT_EQ(game->deserialize(t->serialize())->hash(), t->hash());
  EXPECT_THROW(game->deserialize("r"), util::UsageError);
  EXPECT_THROW(game->deserialize("rx"), util::UsageError);
  EXPECT_THROW(game->deserialize("rlu"), util::UsageError);
  EXPECT_THROW(make(5, 5)->deserialize("rl rl"), util::UsageError);  // after the end
}

TEST(Tron, TextBoard) {
  auto s = make(5, 6)->deserialize("ud");
  EXPECT_EQ(s->to_string(),
            "   a b c d e f\n"
            " 1 . . . . . .\n"
            " 2 . X . . . .\n"
            " 3 . x . . o .\n"
            " 4 . . . . O .\n"
            " 5 . . . . . .\n"
            "Step 1, both players move at once.\n");
}

TEST(Tron, HashSeesTrailsHeadsAndCrashes) {
  const auto game = make(7, 7);
  std::set<std::uint64_t> seen;
  for (const char* record : {"", "ud", "du", "ud du", "lr", "lr rl", "lr ru"}) seen.insert(game->deserialize(record)->hash());
  EXPECT_EQ(seen.size(), 7u);
}

TEST(Tron, RandomPlayoutInvariants) {
  testing::check_random_playouts(*make(), 1000, 61);
  testing::check_random_playouts(*make(5, 5), 1000, 62);
  testing::check_random_playouts(*make(6, 20), 300, 63);
}

TEST(Tron, Symmetries) {
  const auto game = make();
  EXPECT_EQ(game->transform_action(Symmetry::kFlip, kUp), kDown);
  EXPECT_EQ(game->transform_action(Symmetry::kFlip, kLeft), kLeft);
  testing::check_symmetries(*game, 100, 71);
  testing::check_symmetries(*make(7, 12), 100, 72);
  testing::check_symmetries(*make(10, 10), 20, 73);
}

}  // namespace
}  // namespace pz::games
