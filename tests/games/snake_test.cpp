#include "games/snake.h"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <map>

#include "games/perft.h"
#include "tests/games/game_properties.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::games {
namespace {

constexpr Action kUp = 0, kRight = 1, kDown = 2, kLeft = 3;

std::shared_ptr<const SnakeGame> make(int rows = 10, int columns = 10, int hunger = 0) {
  return std::make_shared<SnakeGame>(util::Spec{"snake", {}}, rows, columns, hunger);
}

const SnakeState& as_snake(const State& s) { return static_cast<const SnakeState&>(s); }

// Plays "food@c3"-style and move tokens separated by spaces.
void play(State& s, const std::string& moves) {
  size_t pos = 0;
  while (pos < moves.size()) {
    size_t end = moves.find(' ', pos);
    if (end == std::string::npos) end = moves.size();
    std::string error;
    auto a = s.parse_action(moves.substr(pos, end - pos), &error);
    ASSERT_TRUE(a.has_value()) << error;
    s.apply_checked(*a);
    pos = end + 1;
  }
}

TEST(Snake, StartsInTheMiddleHeadingRight) {
  const auto game = make();
  auto s = game->new_initial_state();
  const auto& snake = as_snake(*s);
  EXPECT_EQ(snake.length(), 3);
  EXPECT_EQ(snake.segment(0), 5 * 10 + 5);  // f6
  EXPECT_EQ(snake.segment(1), 5 * 10 + 4);
  EXPECT_EQ(snake.segment(2), 5 * 10 + 3);
  EXPECT_EQ(snake.heading(), kRight);
  ASSERT_TRUE(s->is_chance_node());
  const auto outcomes = s->chance_outcomes();
  ASSERT_EQ(outcomes.size(), 97u);
  for (auto [cell, p] : outcomes) {
    EXPECT_DOUBLE_EQ(p, 1.0 / 97);
    EXPECT_TRUE(cell < 53 || cell > 55);
  }
  EXPECT_EQ(s->returns(), (std::vector<double>{3}));
  EXPECT_EQ(s->serialize(), "moves=0 since_food=0 status=playing food=none snake=f6,e6,d6");
}

TEST(Snake, TurningBackIsIllegal) {
  const auto game = make();
  auto s = game->new_initial_state();
  play(*s, "food@a1");
  EXPECT_EQ(s->legal_actions(), (std::vector<Action>{kUp, kRight, kDown}));
  EXPECT_NE(s->explain_illegal(kLeft).find("cannot turn back into its neck (it is heading right)"), std::string::npos);
  play(*s, "up");
  EXPECT_EQ(s->legal_actions(), (std::vector<Action>{kUp, kRight, kLeft}));
}

TEST(Snake, HittingTheWallEndsTheGame) {
  const auto game = make();
  auto s = game->new_initial_state();
  play(*s, "food@a10 up up up up up");
  EXPECT_EQ(as_snake(*s).segment(0), 5);  // f1, the top row
  EXPECT_FALSE(s->is_terminal());
  play(*s, "up");
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(as_snake(*s).status(), SnakeGame::Status::kWall);
  EXPECT_EQ(s->returns(), (std::vector<double>{3}));
  EXPECT_NE(s->explain_illegal(kUp).find("hit the wall"), std::string::npos);
  EXPECT_EQ(s->move_number(), 7);
}

TEST(Snake, RunningIntoTheBodyEndsTheGameButTheLeavingTailIsFree) {
  const auto game = make();
  // Heading up (neck below the head); the cell to the right, d3, is body but not the tail.
  auto s = game->deserialize("moves=10 since_food=2 status=playing food=a1 snake=c3,c4,d4,d3,d2");
  s->apply_action(kRight);
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(as_snake(*s).status(), SnakeGame::Status::kSelf);
  EXPECT_EQ(s->returns(), (std::vector<double>{5}));
  // Length 4 in a square: the head follows the tail round.
  auto t = game->deserialize("moves=10 since_food=2 status=playing food=a1 snake=c3,c4,d4,d3");
  for (Action a : {kRight, kDown, kLeft, kUp, kRight}) {
    t->apply_action(a);
    ASSERT_FALSE(t->is_terminal()) << t->to_string();
  }
  EXPECT_EQ(t->serialize(), "moves=15 since_food=7 status=playing food=a1 snake=d3,c3,c4,d4");
}

TEST(Snake, EatingGrowsAndBringsNewFood) {
  const auto game = make();
  auto s = game->new_initial_state();
  play(*s, "food@h6 right");
  EXPECT_EQ(as_snake(*s).length(), 3);
  EXPECT_EQ(as_snake(*s).since_food(), 1);
  play(*s, "right");  // eats at h6
  EXPECT_EQ(as_snake(*s).length(), 4);
  EXPECT_EQ(as_snake(*s).since_food(), 0);
  EXPECT_EQ(s->returns(), (std::vector<double>{4}));
  ASSERT_TRUE(s->is_chance_node());
  EXPECT_EQ(s->chance_outcomes().size(), 96u);
  EXPECT_EQ(s->serialize(), "moves=2 since_food=0 status=playing food=none snake=h6,g6,f6,e6");
  EXPECT_EQ(s->move_number(), 3);
  play(*s, "food@a1 down");
  EXPECT_EQ(s->serialize(), "moves=3 since_food=1 status=playing food=a1 snake=h7,h6,g6,f6");
}

TEST(Snake, StarvationEndsTheGame) {
  const auto game = make(10, 10, 3);
  auto s = game->new_initial_state();
  play(*s, "food@a10 up up");
  EXPECT_FALSE(s->is_terminal());
  play(*s, "up");
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(as_snake(*s).status(), SnakeGame::Status::kStarved);
  EXPECT_NE(s->explain_illegal(kUp).find("starved (3 moves without food)"), std::string::npos);
  EXPECT_EQ(s->returns(), (std::vector<double>{3}));
}

TEST(Snake, FillingTheBoardWins) {
  const auto game = make(4, 4);
  auto s = game->deserialize("moves=40 since_food=1 status=playing food=a4 snake=b4,c4,d4,d3,c3,b3,a3,a2,b2,c2,d2,d1,c1,b1,a1");
  EXPECT_EQ(s->legal_actions(), (std::vector<Action>{kUp, kDown, kLeft}));
  s->apply_action(kLeft);
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(as_snake(*s).status(), SnakeGame::Status::kFull);
  EXPECT_EQ(s->returns(), (std::vector<double>{16}));
  EXPECT_EQ(s->returns()[0], game->info().max_return);
  auto restored = game->deserialize(s->serialize());
  EXPECT_EQ(restored->hash(), s->hash());
  EXPECT_TRUE(restored->is_terminal());
}

TEST(Snake, PerftFollowsFromTheRules) {
  const auto game = make();
  auto root = game->new_initial_state();
  // 97 food cells; 3 moves each; of the 291 (food, move) pairs 3 eat (food just above, right
  // of or below the head) and lead to a chance node with 96 cells, the others to 3 moves.
  EXPECT_EQ(perft(*root, 1), 97u);
  EXPECT_EQ(perft(*root, 2), 291u);
  EXPECT_EQ(perft(*root, 3), 3u * 96u + 288u * 3u);
}

// A plain reference: the body as a deque of (row, column), food as a pair.
struct NaiveSnake {
  int rows, columns, hunger;
  std::deque<std::pair<int, int>> body;  // front = head
  std::pair<int, int> food{-1, -1};
  int heading = 1, since = 0;
  bool over = false;
  NaiveSnake(int r, int c, int h) : rows(r), columns(c), hunger(h) {
    for (int i = 0; i < 3; ++i) body.push_back({r / 2, c / 2 - i});
  }
  bool on_body(std::pair<int, int> cell) const {
    for (auto b : body)
      if (b == cell) return true;
    return false;
  }
  std::vector<Action> legal() const {
    std::vector<Action> out;
    if (over) return out;
    if (food.first < 0) {
      for (int y = 0; y < rows; ++y)
        for (int x = 0; x < columns; ++x)
          if (!on_body({y, x})) out.push_back(y * columns + x);
      return out;
    }
    for (int d = 0; d < 4; ++d)
      if (d != (heading + 2) % 4) out.push_back(d);
    return out;
  }
  void play(Action a) {
    if (food.first < 0) {
      food = {a / columns, a % columns};
      return;
    }
    const int dy[4] = {-1, 0, 1, 0}, dx[4] = {0, 1, 0, -1};
    std::pair<int, int> next{body.front().first + dy[a], body.front().second + dx[a]};
    heading = a;
    if (next.first < 0 || next.first >= rows || next.second < 0 || next.second >= columns) {
      over = true;
      return;
    }
    if (next == food) {
      body.push_front(next);
      food = {-1, -1};
      since = 0;
      if (static_cast<int>(body.size()) == rows * columns) over = true;
      return;
    }
    auto tail = body.back();
    body.pop_back();
    if (on_body(next)) {
      body.push_back(tail);
      over = true;
      return;
    }
    body.push_front(next);
    if (++since >= hunger) over = true;
  }
};

std::uint64_t naive_perft(const NaiveSnake& s, int depth) {
  if (depth == 0) return 1;
  std::uint64_t total = 0;
  for (Action a : s.legal()) {
    NaiveSnake t = s;
    t.play(a);
    total += naive_perft(t, depth - 1);
  }
  return total;
}

TEST(Snake, PerftMatchesNaiveReference) {
  for (auto [rows, columns, depth] : {std::tuple{10, 10, 4}, {4, 4, 6}, {5, 4, 6}}) {
    const auto game = make(rows, columns);
    EXPECT_EQ(perft(*game->new_initial_state(), depth), naive_perft(NaiveSnake(rows, columns, rows * columns), depth))
        << rows << "x" << columns;
  }
}

TEST(Snake, RandomGamesAgreeWithNaiveReference) {
  util::Rng rng(17);
  for (auto [rows, columns, hunger] : {std::tuple{10, 10, 100}, {4, 4, 16}, {5, 7, 6}, {4, 5, 40}}) {
    const auto game = make(rows, columns, hunger);
    for (int g = 0; g < 300; ++g) {
      auto s = game->new_initial_state();
      NaiveSnake naive(rows, columns, hunger);
      while (true) {
        const auto legal = s->legal_actions();
        ASSERT_EQ(legal, naive.legal()) << s->to_string();
        ASSERT_EQ(s->returns()[0], static_cast<double>(naive.body.size()));
        if (legal.empty()) break;
        Action a = legal[rng.below(static_cast<std::uint32_t>(legal.size()))];
        s->apply_action(a);
        naive.play(a);
      }
    }
  }
}

TEST(Snake, ChanceFrequenciesAreUniformOverEmptyCells) {
  const auto game = make();
  auto s = game->new_initial_state();
  const auto outcomes = s->chance_outcomes();
  util::Rng rng(5);
  const int n = 200000;
  std::map<Action, int> counts;
  for (int i = 0; i < n; ++i) {
    double u = rng.uniform();
    Action chosen = outcomes.back().first;
    for (auto [a, p] : outcomes) {
      if (u < p) {
        chosen = a;
        break;
      }
      u -= p;
    }
    ++counts[chosen];
  }
  EXPECT_EQ(counts.size(), 97u);
  const double p = 1.0 / 97, sigma = std::sqrt(n * p * (1 - p));
  for (auto [a, c] : counts) EXPECT_NEAR(c, n * p, 5 * sigma) << a;
  EXPECT_EQ(counts.count(54), 0u);  // never on the snake
}

TEST(Snake, InfoAndBounds) {
  const auto game = make();
  const GameInfo& info = game->info();
  EXPECT_EQ(info.num_players, 1);
  EXPECT_EQ(info.family, Family::kAction);
  EXPECT_EQ(info.min_return, 3);
  EXPECT_EQ(info.max_return, 100);
  EXPECT_EQ(info.max_game_length, 98 * 102 - 1);
  EXPECT_EQ(make(6, 5, 7)->info().max_game_length, 28 * 9 - 1);
  EXPECT_EQ(info.observation_shape, (Shape{6, 10, 10}));
  EXPECT_EQ(game->symmetries().size(), 1u);
  EXPECT_EQ(make(9, 10)->symmetries().size(), 2u);
}

TEST(Snake, Notation) {
  const auto game = make();
  auto s = game->new_initial_state();
  EXPECT_EQ(s->parse_action("food@c3"), 22);
  EXPECT_EQ(s->parse_action("C3"), 22);
  EXPECT_EQ(s->action_to_string(kChancePlayer, 22), "food@c3");
  std::string error;
  EXPECT_FALSE(s->parse_action("up", &error));
  s->apply_action(22);
  EXPECT_EQ(s->parse_action("Up"), kUp);
  EXPECT_EQ(s->parse_action("l"), kLeft);
  EXPECT_EQ(s->action_to_string(0, kDown), "down");
  EXPECT_FALSE(s->parse_action("c3", &error));
  EXPECT_NE(error.find("up, right, down or left"), std::string::npos);
}

TEST(Snake, TextBoard) {
  const auto game = make(4, 5);
  auto s = game->new_initial_state();
  play(*s, "food@e1");
  EXPECT_EQ(s->to_string(),
            "   a b c d e\n"
            " 1 . . . . *\n"
            " 2 . . . . .\n"
            " 3 o o H . .\n"
            " 4 . . . . .\n"
            "Length 3, 0 moves, 0 since food (starves at 20), heading right.\n");
}

TEST(Snake, SerialisationRejectsNonsense) {
  const auto game = make();
  for (const char* bad : {"", "moves=0 since_food=0 status=playing food=none",
                          "moves=0 since_food=0 status=sleeping food=none snake=f6,e6,d6",
                          "moves=0 since_food=0 status=playing food=none snake=f6,e6,c6",
                          "moves=0 since_food=0 status=playing food=none snake=f6,e6",
                          "moves=0 since_food=0 status=playing food=e6 snake=f6,e6,d6",
                          "moves=0 since_food=0 status=playing food=z9 snake=f6,e6,d6",
                          "moves=0 since_food=0 status=playing food=none snake=f6,e6,f6",
                          "moves=0 since_food=0 status=full food=none snake=f6,e6,d6",
                          "moves=0 since_food=100 status=playing food=a1 snake=f6,e6,d6",
                          "moves=0 since_food=4 status=playing food=a1 snake=f6,e6,d6",
                          "moves=5 since_food=0 status=wall food=none snake=f6,e6,d6",
                          "moves=5 since_food=0 status=playing food=a1 snake=f6,e6,d6 colour=green"}) {
    EXPECT_THROW(game->deserialize(bad), util::UsageError) << bad;
  }
}

TEST(Snake, HashFollowsTheBodyOrder) {
  const auto game = make();
  // Same cells, different heads and tails.
  auto a = game->deserialize("moves=10 since_food=2 status=playing food=a1 snake=c3,c4,d4,d3");
  auto b = game->deserialize("moves=10 since_food=2 status=playing food=a1 snake=d3,c3,c4,d4");
  auto c = game->deserialize("moves=10 since_food=3 status=playing food=a1 snake=c3,c4,d4,d3");
  EXPECT_NE(a->hash(), b->hash());
  EXPECT_NE(a->hash(), c->hash());
}

TEST(Snake, RandomPlayoutInvariants) {
  testing::check_random_playouts(*make(), 300, 41);
  testing::check_random_playouts(*make(4, 4), 500, 42);
  testing::check_random_playouts(*make(5, 6, 5), 300, 43);
}

TEST(Snake, Symmetries) {
  testing::check_symmetries(*make(), 20, 51);
  const auto odd = make(9, 8);
  ASSERT_EQ(odd->symmetries().size(), 2u);
  EXPECT_EQ(odd->transform_action(Symmetry::kFlip, kUp), kDown);
  EXPECT_EQ(odd->transform_action(Symmetry::kFlip, kRight), kRight);
  EXPECT_EQ(odd->transform_chance_outcome(Symmetry::kFlip, 0), 8 * 8);
  testing::check_symmetries(*odd, 40, 52);
  testing::check_symmetries(*make(5, 5), 40, 53);
}

}  // namespace
}  // namespace pz::games
