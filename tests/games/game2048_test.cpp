#include "games/game2048.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "games/perft.h"
#include "tests/games/game_properties.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::games {
namespace {

std::shared_ptr<const Game2048> make(int size = 4, int max_moves = 0) {
  return std::make_shared<Game2048>(util::Spec{"2048", {}}, size, max_moves);
}

int exponent_of(int value) {
  int e = 0;
  while (value > 1) {
    value >>= 1;
    ++e;
  }
  return e;
}

// A state waiting for a move with the given tile values (rows from the top).
std::unique_ptr<Game2048State> position(const Game2048& game, const std::vector<std::vector<int>>& rows) {
  auto state = std::unique_ptr<Game2048State>(static_cast<Game2048State*>(game.new_initial_state().release()));
  std::array<std::uint8_t, Game2048::kMaxCells> cells{};
  for (size_t y = 0; y < rows.size(); ++y) {
    for (size_t x = 0; x < rows[y].size(); ++x) cells[y * rows.size() + x] = static_cast<std::uint8_t>(exponent_of(rows[y][x]));
  }
  state->set_board(cells, static_cast<int>(rows.size()));
  return state;
}

std::vector<std::vector<int>> board_of(const Game2048State& s, int size) {
  std::vector<std::vector<int>> rows(static_cast<size_t>(size), std::vector<int>(static_cast<size_t>(size)));
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) rows[static_cast<size_t>(y)][static_cast<size_t>(x)] = static_cast<int>(s.tile(y, x));
  return rows;
}

constexpr Action kUp = 0, kRight = 1, kDown = 2, kLeft = 3;

// One row moved and read back.
std::pair<std::vector<int>, std::int64_t> move_row(std::vector<int> row, Action direction) {
  const auto game = make();
  std::vector<std::vector<int>> rows(4, std::vector<int>(4, 0));
  rows[1] = row;
  auto s = position(*game, rows);
  s->apply_action(direction);
  return {board_of(*s, 4)[1], s->score()};
}

TEST(Game2048, MergeRulesOfTheOfficialGame) {
  using Row = std::vector<int>;
  EXPECT_EQ(move_row({2, 2, 2, 2}, kLeft), (std::pair<Row, std::int64_t>{{4, 4, 0, 0}, 8}));
  EXPECT_EQ(move_row({4, 4, 8, 0}, kLeft), (std::pair<Row, std::int64_t>{{8, 8, 0, 0}, 8}));  // the new 8 does not merge again
  EXPECT_EQ(move_row({2, 2, 2, 0}, kLeft), (std::pair<Row, std::int64_t>{{4, 2, 0, 0}, 4}));
  EXPECT_EQ(move_row({2, 2, 2, 0}, kRight), (std::pair<Row, std::int64_t>{{0, 0, 2, 4}, 4}));
  EXPECT_EQ(move_row({2, 0, 2, 4}, kLeft), (std::pair<Row, std::int64_t>{{4, 4, 0, 0}, 4}));
  EXPECT_EQ(move_row({8, 8, 8, 8}, kRight), (std::pair<Row, std::int64_t>{{0, 0, 16, 16}, 32}));
  EXPECT_EQ(move_row({0, 0, 0, 2}, kLeft), (std::pair<Row, std::int64_t>{{2, 0, 0, 0}, 0}));
  EXPECT_EQ(move_row({4, 0, 0, 4}, kRight), (std::pair<Row, std::int64_t>{{0, 0, 0, 8}, 8}));
  EXPECT_EQ(move_row({2, 4, 2, 4}, kUp), (std::pair<Row, std::int64_t>{{0, 0, 0, 0}, 0}));  // row 2 moves to row 1
}

TEST(Game2048, ColumnsMergeTowardsTheMove) {
  const auto game = make();
  auto s = position(*game, {{2, 0, 0, 0}, {2, 0, 0, 0}, {2, 0, 0, 0}, {0, 0, 0, 4}});
  s->apply_action(kDown);
  EXPECT_EQ(board_of(*s, 4), (std::vector<std::vector<int>>{{0, 0, 0, 0}, {0, 0, 0, 0}, {2, 0, 0, 0}, {4, 0, 0, 4}}));
  EXPECT_EQ(s->score(), 4);
  EXPECT_TRUE(s->is_chance_node());
  auto t = position(*game, {{2, 0, 0, 0}, {2, 0, 0, 0}, {2, 0, 0, 0}, {0, 0, 0, 4}});
  t->apply_action(kUp);
  EXPECT_EQ(board_of(*t, 4), (std::vector<std::vector<int>>{{4, 0, 0, 4}, {2, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}));
}

TEST(Game2048, MovesThatChangeNothingAreIllegal) {
  const auto game = make();
  auto s = position(*game, {{2, 4, 8, 16}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}});
  EXPECT_EQ(s->legal_actions(), (std::vector<Action>{kDown}));
  EXPECT_NE(s->explain_illegal(kLeft).find("sliding left changes nothing"), std::string::npos);
  auto corner = position(*game, {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 2}});
  EXPECT_EQ(corner->legal_actions(), (std::vector<Action>{kUp, kLeft}));
}

TEST(Game2048, GameEndsWhenNoMoveIsLeft) {
  const auto game = make();
  // Full, no equal neighbours: over.
  auto stuck = position(*game, {{2, 4, 2, 4}, {4, 2, 4, 2}, {2, 4, 2, 4}, {4, 2, 4, 2}});
  EXPECT_TRUE(stuck->is_terminal());
  EXPECT_TRUE(stuck->legal_actions().empty());
  EXPECT_NE(stuck->explain_illegal(kUp).find("no move"), std::string::npos);
  // Full with one equal pair: one axis still moves.
  auto pair = position(*game, {{2, 2, 4, 8}, {4, 8, 2, 4}, {2, 4, 8, 2}, {4, 2, 4, 8}});
  EXPECT_EQ(pair->legal_actions(), (std::vector<Action>{kRight, kLeft}));
}

TEST(Game2048, SpawnFillingTheBoardEndsTheGame) {
  const auto game = make();
  auto s = position(*game, {{2, 4, 2, 4}, {4, 2, 4, 2}, {2, 4, 8, 4}, {8, 2, 8, 8}});
  s->apply_action(kRight);  // 8 2 8 8 -> . 8 2 16, score 16
  EXPECT_EQ(s->score(), 16);
  ASSERT_TRUE(s->is_chance_node());
  auto outcomes = s->chance_outcomes();
  ASSERT_EQ(outcomes.size(), 2u);  // the one empty cell, a4 (column a, row 4 from the top)
  EXPECT_EQ(s->action_to_string(kChancePlayer, outcomes[0].first), "2@a4");
  EXPECT_EQ(s->action_to_string(kChancePlayer, outcomes[1].first), "4@a4");
  auto with4 = s->clone();
  with4->apply_action(outcomes[1].first);  // column a reads 2 4 2 4, no equal neighbours anywhere
  EXPECT_TRUE(with4->is_terminal());
  EXPECT_EQ(with4->returns(), (std::vector<double>{16}));
  auto with2 = s->clone();
  with2->apply_action(outcomes[0].first);  // column a reads 2 4 2 2: up and down merge
  EXPECT_EQ(with2->legal_actions(), (std::vector<Action>{kUp, kDown}));
}

TEST(Game2048, ChanceOutcomesAndTheirFrequencies) {
  const auto game = make();
  auto s = game->new_initial_state();
  ASSERT_TRUE(s->is_chance_node());
  auto outcomes = s->chance_outcomes();
  ASSERT_EQ(outcomes.size(), 32u);
  for (auto [a, p] : outcomes) EXPECT_DOUBLE_EQ(p, (a & 1) ? 0.1 / 16 : 0.9 / 16);
  s->apply_action(2 * 5);  // a 2 on b2
  outcomes = s->chance_outcomes();
  ASSERT_EQ(outcomes.size(), 30u);
  for (auto [a, p] : outcomes) {
    EXPECT_NE(a / 2, 5);
    EXPECT_DOUBLE_EQ(p, (a & 1) ? 0.1 / 15 : 0.9 / 15);
  }
  // Sampling by the listed probabilities (as the arena and the searches do) reproduces them.
  util::Rng rng(2048);
  const int n = 300000;
  std::map<Action, int> counts;
  int fours = 0;
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
    fours += chosen & 1;
  }
  for (auto [a, p] : outcomes) {
    const double expected = n * p, sigma = std::sqrt(n * p * (1 - p));
    EXPECT_NEAR(counts[a], expected, 5 * sigma) << s->action_to_string(kChancePlayer, a);
  }
  EXPECT_NEAR(fours, 0.1 * n, 5 * std::sqrt(n * 0.1 * 0.9));
}

TEST(Game2048, OpeningIsTwoSpawns) {
  const auto game = make();
  auto s = game->new_initial_state();
  EXPECT_EQ(s->move_number(), 0);
  s->apply_action(*s->parse_action("2@a1"));
  EXPECT_TRUE(s->is_chance_node());
  s->apply_action(*s->parse_action("4@d4"));
  EXPECT_EQ(s->current_player(), 0);
  EXPECT_EQ(s->move_number(), 2);
  EXPECT_EQ(s->serialize(), "moves=0 score=0 spawns=0 board=2.0.0.0/0.0.0.0/0.0.0.0/0.0.0.4");
  // From two tiles in opposite corners every direction moves something.
  EXPECT_EQ(s->legal_actions(), (std::vector<Action>{0, 1, 2, 3}));
}

// A plain reference: values in a 2-D vector; every move is "rotate, move left, rotate back".
struct Naive2048 {
  int n;
  std::vector<std::vector<int>> b;
  long long score = 0;
  int pending = 2;
  explicit Naive2048(int size) : n(size), b(static_cast<size_t>(size), std::vector<int>(static_cast<size_t>(size), 0)) {}
  static std::vector<std::vector<int>> rotate(const std::vector<std::vector<int>>& m) {  // clockwise
    const size_t k = m.size();
    std::vector<std::vector<int>> r(k, std::vector<int>(k));
    for (size_t y = 0; y < k; ++y)
      for (size_t x = 0; x < k; ++x) r[x][k - 1 - y] = m[y][x];
    return r;
  }
  // Turns needed so that `direction` becomes "left": left 0, down 1 (down→left clockwise), right 2, up 3.
  static int turns(int direction) { return direction == 3 ? 0 : direction == 2 ? 1 : direction == 1 ? 2 : 3; }
  bool move(int direction, bool apply) {
    auto m = b;
    for (int t = 0; t < turns(direction); ++t) m = rotate(m);
    long long gained = 0;
    for (auto& row : m) {
      std::vector<int> tiles;
      for (int v : row)
        if (v) tiles.push_back(v);
      std::vector<int> out;
      for (size_t i = 0; i < tiles.size(); ++i) {
        if (i + 1 < tiles.size() && tiles[i] == tiles[i + 1]) {
          out.push_back(2 * tiles[i]);
          gained += 2 * tiles[i];
          ++i;
        } else {
          out.push_back(tiles[i]);
        }
      }
      out.resize(row.size(), 0);
      row = out;
    }
    for (int t = turns(direction); t % 4 != 0; ++t) m = rotate(m);
    const bool changed = m != b;
    if (apply && changed) {
      b = m;
      score += gained;
      pending = 1;
    }
    return changed;
  }
  std::vector<Action> legal() const {
    std::vector<Action> out;
    if (pending) {
      for (int c = 0; c < n * n; ++c)
        if (!b[static_cast<size_t>(c / n)][static_cast<size_t>(c % n)]) {
          out.push_back(2 * c);
          out.push_back(2 * c + 1);
        }
      return out;
    }
    for (int d = 0; d < 4; ++d)
      if (Naive2048(*this).move(d, false)) out.push_back(d);
    return out;
  }
  void play(Action a) {
    if (pending) {
      b[static_cast<size_t>(a / 2 / n)][static_cast<size_t>(a / 2 % n)] = (a & 1) ? 4 : 2;
      --pending;
    } else {
      move(a, true);
    }
  }
};

TEST(Game2048, PerftMatchesHandCountsAndNaiveReference) {
  const auto game = make();
  auto root = game->new_initial_state();
  EXPECT_EQ(perft(*root, 1), 32u);        // 16 cells × {2, 4}
  EXPECT_EQ(perft(*root, 2), 32u * 30u);  // then 15 cells × {2, 4}
  // Two tiles: "left" changes nothing exactly when both stand in column a (4·3 ordered cell
  // pairs × 4 value pairs = 48) or they share a row on columns a and b with different values
  // (4 rows × 2 orders × 2 = 16); the same count holds for each direction by symmetry.
  EXPECT_EQ(perft(*root, 3), 4u * 960u - 4u * (48u + 16u));
  for (auto [size, depth] : {std::pair{3, 5}, {4, 4}, {5, 3}}) {
    const auto g = make(size);
    EXPECT_EQ(perft(*g->new_initial_state(), depth), testing::reference_perft(Naive2048(size), depth)) << size;
  }
}

TEST(Game2048, RandomGamesAgreeWithNaiveReference) {
  util::Rng rng(99);
  for (auto [size, games] : {std::pair{3, 100}, {4, 60}, {5, 15}}) {
    const auto game = make(size);
    for (int g = 0; g < games; ++g) {
      auto s = game->new_initial_state();
      Naive2048 naive(size);
      while (true) {
        const auto legal = s->legal_actions();
        ASSERT_EQ(legal, naive.legal()) << s->to_string();
        if (legal.empty()) break;
        const Action a = legal[rng.below(static_cast<std::uint32_t>(legal.size()))];
        s->apply_action(a);
        naive.play(a);
        ASSERT_EQ(s->returns()[0], static_cast<double>(naive.score));
      }
      ASSERT_TRUE(s->is_terminal());
    }
  }
}

TEST(Game2048, BoundsFollowFromTheTileInvariant) {
  const auto game = make();
  const GameInfo& info = game->info();
  EXPECT_EQ(info.name, "2048");
  EXPECT_EQ(info.num_players, 1);
  EXPECT_EQ(info.family, Family::kAction);
  EXPECT_EQ(info.max_game_length, 2 + 2 * (131072 - 4));
  // Σ_{e=2}^{17} (e-1)·2^e
  EXPECT_EQ(info.max_return, 3932164.0);
  EXPECT_EQ(info.min_return, 0.0);
  EXPECT_EQ(make(3)->info().max_game_length, 2 + 2 * (1024 - 4));
  // A move cap tightens both.
  const auto capped = make(4, 100);
  EXPECT_EQ(capped->info().max_game_length, 202);
  EXPECT_EQ(capped->info().max_return, 408.0 * 7);  // sum <= 408 < 512, tiles <= 256: (8 - 1)
  EXPECT_EQ(make(6)->info().max_game_length, 2 + 2 * Game2048::kCapForLargeBoards);
  EXPECT_EQ(info.observation_shape, (Shape{18, 4, 4}));
  EXPECT_EQ(info.policy_shape, (Shape{4, 1, 1}));
}

TEST(Game2048, MoveLimitEndsTheGame) {
  const auto game = make(4, 3);
  util::Rng rng(5);
  auto s = game->new_initial_state();
  int moves = 0;
  while (!s->is_terminal()) {
    if (s->current_player() == 0) ++moves;
    auto legal = s->legal_actions();
    s->apply_action(legal[rng.below(static_cast<std::uint32_t>(legal.size()))]);
  }
  EXPECT_EQ(moves, 3);
  EXPECT_EQ(s->move_number(), 8);
  EXPECT_NE(s->explain_illegal(0).find("max_moves=3"), std::string::npos);
}

TEST(Game2048, Notation) {
  const auto game = make();
  auto s = position(*game, {{2, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}});
  EXPECT_EQ(s->parse_action("up"), 0);
  EXPECT_EQ(s->parse_action(" R "), 1);
  EXPECT_EQ(s->parse_action("Down"), 2);
  EXPECT_EQ(s->parse_action("l"), 3);
  EXPECT_EQ(s->action_to_string(0, 2), "down");
  std::string error;
  EXPECT_FALSE(s->parse_action("north", &error));
  EXPECT_NE(error.find("up, right, down or left"), std::string::npos);
  s->apply_action(kRight);
  EXPECT_EQ(s->parse_action("4@b3"), (2 * 4 + 1) * 2 + 1);
  EXPECT_FALSE(s->parse_action("8@b3", &error));
  EXPECT_NE(error.find("2@cell"), std::string::npos);
  EXPECT_FALSE(s->parse_action("2@e1", &error));
}

TEST(Game2048, TextBoard) {
  const auto game = make();
  auto s = position(*game, {{2, 0, 0, 0}, {0, 1024, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 4}});
  EXPECT_EQ(s->to_string(),
            "      a    b    c    d\n"
            "1     2    .    .    .\n"
            "2     . 1024    .    .\n"
            "3     .    .    .    .\n"
            "4     .    .    .    4\n"
            "Score 0, 0 moves.\n");
}

TEST(Game2048, SerialisationRoundTripsAndRejectsNonsense) {
  const auto game = make();
  auto s = position(*game, {{2, 0, 0, 0}, {0, 8, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 4}});
  s->apply_action(kLeft);
  auto restored = game->deserialize(s->serialize());
  EXPECT_EQ(restored->serialize(), s->serialize());
  EXPECT_EQ(restored->hash(), s->hash());
  EXPECT_EQ(restored->current_player(), kChancePlayer);
  for (const char* bad : {"", "moves=0 score=0 spawns=2", "moves=0 score=0 spawns=2 board=0.0.0.0/0.0.0.0/0.0.0.0",
                          "moves=1 score=0 spawns=0 board=3.0.0.0/0.0.0.0/0.0.0.0/0.0.0.0",
                          "moves=0 score=4 spawns=0 board=2.2.0.0/0.0.0.0/0.0.0.0/0.0.0.0",
                          "moves=0 score=0 spawns=2 board=2.0.0.0/0.0.0.0/0.0.0.0/0.0.0.0",
                          "moves=3 score=0 spawns=2 board=2.0.0.0/0.0.0.0/0.0.0.0/0.0.0.0",
                          "moves=1 score=0 spawns=0 board=2.0.0.0.0/0.0.0.0/0.0.0.0/0.0.0.0",
                          "moves=1 score=0 spawns=0 colour=red board=2.0.0.0/0.0.0.0/0.0.0.0/0.0.0.0",
                          "moves=1 score=0 spawns=0 board=262144.0.0.0/0.0.0.0/0.0.0.0/0.0.0.0",
                          "moves=-1 score=0 spawns=0 board=2.0.0.0/0.0.0.0/0.0.0.0/0.0.0.0"}) {
    EXPECT_THROW(game->deserialize(bad), util::UsageError) << bad;
  }
  EXPECT_THROW(make(4, 5)->deserialize("moves=6 score=0 spawns=0 board=2.0.0.0/0.0.0.0/0.0.0.0/0.0.0.0"), util::UsageError);
  EXPECT_TRUE(game->deserialize("moves=9 score=20 spawns=0 board=2.4.2.4/4.2.4.2/2.4.2.4/4.2.4.2")->is_terminal());
}

TEST(Game2048, HashTellsPendingSpawnsApart) {
  const auto game = make();
  auto a = game->deserialize("moves=4 score=8 spawns=1 board=2.0.0.0/0.0.0.0/0.0.0.0/0.0.0.8");
  auto b = game->deserialize("moves=4 score=8 spawns=0 board=2.0.0.0/0.0.0.0/0.0.0.0/0.0.0.8");
  EXPECT_NE(a->hash(), b->hash());
}

TEST(Game2048, SymmetriesMapMovesAndSpawns) {
  const auto game = make();
  EXPECT_EQ(game->symmetries().size(), 8u);
  EXPECT_EQ(game->transform_action(Symmetry::kRotate90, kUp), kRight);  // clockwise quarter turn
  EXPECT_EQ(game->transform_action(Symmetry::kMirror, kLeft), kRight);
  EXPECT_EQ(game->transform_action(Symmetry::kTranspose, kUp), kLeft);
  EXPECT_EQ(game->transform_chance_outcome(Symmetry::kMirror, 2 * 0 + 1), 2 * 3 + 1);  // 4@a1 -> 4@d1
  testing::check_symmetries(*game, 15, 21);
  testing::check_symmetries(*make(3), 15, 22);
}

TEST(Game2048, RandomPlayoutInvariants) {
  testing::check_random_playouts(*make(), 200, 31);
  testing::check_random_playouts(*make(3), 300, 32);
  testing::check_random_playouts(*make(5, 50), 50, 33);
  testing::check_random_playouts(*make(4, 7), 100, 34);
}

TEST(Game2048, ObservationIsOneHotExponents) {
  const auto game = make();
  auto s = position(*game, {{2, 0, 0, 0}, {0, 1024, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 4}});
  auto obs = s->observation(0);
  ASSERT_EQ(obs.size(), 18u * 16u);
  EXPECT_EQ(obs[1 * 16 + 0], 1.0f);
  EXPECT_EQ(obs[10 * 16 + 5], 1.0f);
  EXPECT_EQ(obs[2 * 16 + 15], 1.0f);
  EXPECT_EQ(obs[0 * 16 + 1], 1.0f);
  float total = 0;
  for (float v : obs) total += v;
  EXPECT_EQ(total, 16.0f);
}

}  // namespace
}  // namespace pz::games
