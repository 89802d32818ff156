#include "games/einstein.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "games/perft.h"
#include "tests/games/game_properties.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::games {
namespace {

std::shared_ptr<const Game> make(bool random_setup = false) {
  return std::make_shared<EinsteinGame>(util::Spec{"einstein", {{"setup", random_setup ? "random" : "fixed"}}}, random_setup);
}

const EinsteinState& es(const State& s) { return static_cast<const EinsteinState&>(s); }

// Applies moves and chance outcomes written in the game's notation.
std::unique_ptr<State> play(const Game& game, std::unique_ptr<State> state, const std::vector<std::string>& moves) {
  for (const auto& m : moves) {
    std::string error;
    auto action = state->parse_action(m, &error);
    EXPECT_TRUE(action.has_value()) << m << ": " << error;
    if (!action) return state;
    state->apply_checked(*action);
  }
  (void)game;
  return state;
}

std::set<std::string> legal_strings(const State& s) {
  std::set<std::string> out;
  for (Action a : s.legal_actions()) out.insert(s.action_to_string(s.current_player(), a));
  return out;
}

// ---------------------------------------------------------------------------------------
// A deliberately naive reference: a 5×5 grid of signed stone numbers (+n Red, -n Blue),
// moves listed as (from, to) cell pairs straight from the rules.

struct Ref {
  int grid[5][5] = {};
  int side = 0, die = 0, winner = -1;

  Ref() {
    // The fixed arrangement, written out by hand.
    const int red[3][3] = {{1, 2, 3}, {4, 5, 0}, {6, 0, 0}};
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 3; ++x)
        if (red[y][x]) grid[y][x] = red[y][x], grid[4 - y][4 - x] = -red[y][x];
  }
  bool has(int s, int n) const {
    for (auto& row : grid)
      for (int v : row)
        if (v == (s == 0 ? n : -n)) return true;
    return false;
  }
  std::vector<std::pair<int, int>> moves() const {
    std::vector<std::pair<int, int>> out;
    if (winner >= 0 || die == 0) return out;
    std::vector<int> stones;
    if (has(side, die)) {
      stones.push_back(die);
    } else {
      for (int n = die + 1; n <= 6; ++n)
        if (has(side, n)) {
          stones.push_back(n);
          break;
        }
      for (int n = die - 1; n >= 1; --n)
        if (has(side, n)) {
          stones.push_back(n);
          break;
        }
    }
    const int d = side == 0 ? 1 : -1;
    const int steps[3][2] = {{0, d}, {d, 0}, {d, d}};  // (dy, dx)
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 5; ++x)
        for (int n : stones)
          if (grid[y][x] == (side == 0 ? n : -n))
            for (auto& st : steps) {
              int ty = y + st[0], tx = x + st[1];
              if (ty >= 0 && ty < 5 && tx >= 0 && tx < 5) out.push_back({y * 5 + x, ty * 5 + tx});
            }
    std::sort(out.begin(), out.end());
    return out;
  }
  void roll(int face) { die = face; }
  void move(int from, int to) {
    grid[to / 5][to % 5] = grid[from / 5][from % 5];
    grid[from / 5][from % 5] = 0;
    bool opponent_left = false;
    for (auto& row : grid)
      for (int v : row) opponent_left |= side == 0 ? v < 0 : v > 0;
    if ((side == 0 && to == 24) || (side == 1 && to == 0) || !opponent_left) winner = side;
    side = 1 - side;
    die = 0;
  }
};

// The (from, to) cells of an action, decoded from the documented layout on its own.
std::pair<int, int> decode(Action a, int side) {
  const int from = a % 25, dir = a / 25, d = side == 0 ? 1 : -1;
  const int dy = dir == 0 ? 0 : d, dx = dir == 1 ? 0 : d;
  return {from, from + dy * 5 + dx};
}

// A die roll (first = 0, second = the face) or a move (from, to): the reference's plies.
std::vector<std::pair<int, int>> ref_plies(const Ref& r) {
  if (r.winner >= 0) return {};
  if (r.die != 0) return r.moves();
  std::vector<std::pair<int, int>> rolls;
  for (int f = 1; f <= 6; ++f) rolls.emplace_back(0, f);
  return rolls;
}

std::uint64_t ref_perft(const Ref& r, int depth) {
  return testing::reference_perft(r, depth, ref_plies, [](Ref& t, const std::pair<int, int>& ply) {
    if (t.die == 0) {
      t.roll(ply.second);
    } else {
      t.move(ply.first, ply.second);
    }
  });
}

TEST(Einstein, PerftFirstPliesByHand) {
  // 6 rolls; each rolled stone of the start position has all three steps on the board;
  // nobody can reach an enemy stone or win before ply 4: 6, 6·3, 6·3·6, 6·3·6·3.
  auto root = make()->new_initial_state();
  EXPECT_EQ(perft(*root, 1), 6u);
  EXPECT_EQ(perft(*root, 2), 18u);
  EXPECT_EQ(perft(*root, 3), 108u);
  EXPECT_EQ(perft(*root, 4), 324u);
  // Random setup: two arrangements (720 each) come first.
  auto random_root = make(true)->new_initial_state();
  EXPECT_EQ(perft(*random_root, 1), 720u);
  EXPECT_EQ(perft(*random_root, 3), 720u * 720u * 6u);
}

TEST(Einstein, PerftMatchesNaiveReference) {
  auto root = make()->new_initial_state();
  for (int depth = 1; depth <= 9; ++depth) EXPECT_EQ(perft(*root, depth), ref_perft(Ref(), depth)) << depth;
}

TEST(Einstein, RandomGamesAgreeWithNaiveReference) {
  auto game = make();
  util::Rng rng(17);
  for (int g = 0; g < 3000; ++g) {
    auto s = game->new_initial_state();
    Ref ref;
    while (!s->is_terminal()) {
      ASSERT_EQ(ref.winner, -1);
      if (s->is_chance_node()) {
        const Action face = static_cast<Action>(rng.below(6));
        s->apply_action(face);
        ref.roll(face + 1);
        continue;
      }
      std::vector<std::pair<int, int>> mine;
      for (Action a : s->legal_actions()) mine.push_back(decode(a, ref.side));
      std::sort(mine.begin(), mine.end());
      auto expected = ref.moves();
      ASSERT_EQ(mine, expected) << s->to_string();
      auto legal = s->legal_actions();
      const Action a = legal[rng.below(static_cast<std::uint32_t>(legal.size()))];
      s->apply_action(a);
      auto [from, to] = decode(a, ref.side);
      ref.move(from, to);
    }
    ASSERT_EQ(es(*s).winner(), ref.winner);
  }
}

TEST(Einstein, DieChoosesTheStone) {
  auto game = make();
  auto s = play(*game, game->new_initial_state(), {"roll 3"});
  // Stone 3 on c1: right, down, diagonal.
  EXPECT_EQ(legal_strings(*s), (std::set<std::string>{"c1-d1", "c1-c2", "c1-d2"}));
  // Stone 1 on a1 steps onto its own stones (self-capture).
  s = play(*game, game->new_initial_state(), {"1"});
  EXPECT_EQ(legal_strings(*s), (std::set<std::string>{"a1xb1", "a1xa2", "a1xb2"}));

  // Red has lost stones 3 and 4: a 3 or a 4 lets Red move 2 or 5; a 1 only stone 1.
  auto p = game->deserialize("12.../.5.../6...f/...ed/..cba r - 0");
  p = play(*game, std::move(p), {"roll 3"});
  EXPECT_EQ(legal_strings(*p), (std::set<std::string>{"b1-c1", "b1xb2", "b1-c2", "b2-c2", "b2-b3", "b2-c3"}));
  EXPECT_NE(p->explain_illegal(*p->parse_action("a1-b1")).find("stone 2 or stone 5"), std::string::npos);
  p = game->deserialize("12.../.5.../6...f/...ed/..cba r - 0");
  p = play(*game, std::move(p), {"roll 4"});
  EXPECT_EQ(legal_strings(*p).size(), 6u);
  // Only higher stones left: a 1 moves the lowest one; only lower ones: a 6 moves the highest.
  auto q = game->deserialize("....3/...../...../...ed/..cba r 1 1");
  EXPECT_EQ(legal_strings(*q), (std::set<std::string>{"e1-e2"}));  // stone 3 on e1: right is off the board
  EXPECT_EQ(q->explain_illegal(0 * 25 + 4), "that step leaves the board");
  q = game->deserialize("3..../...../...../...ed/..cba r 6 1");
  EXPECT_EQ(legal_strings(*q), (std::set<std::string>{"a1-b1", "a1-a2", "a1-b2"}));
  EXPECT_EQ(q->explain_illegal(0 * 25 + 24), "there is no stone of yours on e5");
}

TEST(Einstein, BlueMovesUpAndLeft) {
  auto game = make();
  auto s = play(*game, game->new_initial_state(), {"roll 2", "b1-c1", "roll 5"});
  EXPECT_EQ(s->current_player(), 1);
  EXPECT_EQ(legal_strings(*s), (std::set<std::string>{"d4-c4", "d4-d3", "d4-c3"}));
  std::string error;
  EXPECT_FALSE(s->parse_action("d4-e4", &error));
  EXPECT_NE(error.find("left, up or diagonally up-left"), std::string::npos);
}

TEST(Einstein, WinConditions) {
  auto game = make();
  // Red's stone 4 on d4 reaches e5, capturing Blue's stone there or not.
  for (std::string row5 : {"b...a", "b...."}) {
    auto s = game->deserialize("1..../...../...../...4./" + row5 + " r 4 1");
    s = play(*game, std::move(s), {row5 == "b...a" ? "d4xe5" : "d4-e5"});
    EXPECT_TRUE(s->is_terminal()) << s->to_string();
    EXPECT_EQ(s->returns(), (std::vector<double>{1.0, -1.0}));
  }
  // One step short of the corner is not a win.
  auto near = play(*game, game->deserialize("1..../...../...../...4./b...a r 4 1"), {"d4-d5"});
  EXPECT_FALSE(near->is_terminal());
  // Capturing the last enemy stone wins.
  auto last = play(*game, game->deserialize("...../.2.../..c../...../..... r 2 1"), {"b2xc3"});
  EXPECT_TRUE(last->is_terminal());
  EXPECT_EQ(es(*last).winner(), 0);
  // Blue reaches a1.
  auto blue = play(*game, game->deserialize("....1/.b.../...../...../..... b 2 3"), {"b2-a1"});
  EXPECT_TRUE(blue->is_terminal());
  EXPECT_EQ(blue->returns(), (std::vector<double>{-1.0, 1.0}));
  EXPECT_EQ(blue->serialize(), "b...1/...../...../...../..... r - 4");
  // Capturing one's own stone never ends the game: the mover keeps the moving stone.
  auto own = play(*game, game->new_initial_state(), {"roll 1", "a1xb2"});
  EXPECT_FALSE(own->is_terminal());
  EXPECT_EQ(es(*own).stone_cell(0, 5), -1);
  EXPECT_EQ(es(*own).stone_cell(0, 1), 6);
}

TEST(Einstein, NotationAndSerialisation) {
  auto game = make();
  auto s = game->new_initial_state();
  EXPECT_EQ(s->serialize(), "123../45.../6...f/...ed/..cba r - 0");
  EXPECT_EQ(s->action_to_string(kChancePlayer, 2), "roll 3");
  EXPECT_EQ(s->parse_action("roll 3"), 2);
  EXPECT_EQ(s->parse_action("ROLL6"), 5);
  std::string error;
  EXPECT_FALSE(s->parse_action("roll 7", &error));
  EXPECT_FALSE(s->parse_action("b1-c1", &error));  // the die comes first
  s->apply_action(1);
  EXPECT_EQ(s->serialize(), "123../45.../6...f/...ed/..cba r 2 1");
  EXPECT_EQ(s->parse_action("b1-c1"), 0 * 25 + 1);  // c1 holds a stone: still written as a step when read
  EXPECT_EQ(s->parse_action("B1xC1"), s->parse_action("b1c1"));
  EXPECT_FALSE(s->parse_action("b1-d1", &error));
  EXPECT_FALSE(s->parse_action("z9-a1", &error));
  EXPECT_FALSE(s->parse_action("hello", &error));
  for (const char* bad : {"", "123../45.../6...f/...ed/..cba r - ", "123../45.../6...f/...ed/..cbq r - 0",
                          "123../45.../6...f/...ed/..cba x - 0", "123../45.../6...f/...ed/..cba r - 1",
                          "123../45.../6...f/...ed/..cba b - 0", "123../45.../6...f/...ed/..cba r 7 1",
                          "113../45.../6...f/...ed/..cba r - 0", "123..45.../6...f/...ed/..cba r - 0",
                          "123../45.../6...f/...ed/..cba r - 999", "a..../...../...../...../....1 r - 4"}) {
    EXPECT_THROW(game->deserialize(bad), util::UsageError) << bad;
  }
  auto setup = make(true)->new_initial_state();
  EXPECT_EQ(setup->serialize(), "...../...../...../...../..... r - 0");
  EXPECT_EQ(setup->action_to_string(kChancePlayer, 6), "setup 123456");
  EXPECT_EQ(setup->action_to_string(kChancePlayer, 6 + 719), "setup 654321");
  EXPECT_EQ(setup->parse_action("setup 654321"), 6 + 719);
  EXPECT_EQ(setup->parse_action("213456"), 6 + 120);
  EXPECT_FALSE(setup->parse_action("setup 113456", &error));
  setup->apply_action(*setup->parse_action("setup 654321"));
  setup->apply_action(*setup->parse_action("setup 123456"));
  EXPECT_EQ(setup->serialize(), "654../32.../1...f/...ed/..cba r - 2");
  EXPECT_THROW(make(true)->deserialize("654../32.../1...f/...ed/..cba r - 1"), util::UsageError);
}

TEST(Einstein, ArrangementRanks) {
  std::set<std::array<int, 6>> seen;
  for (int r = 0; r < 720; ++r) {
    auto a = EinsteinGame::arrangement_from_rank(r);
    EXPECT_EQ(EinsteinGame::rank_of_arrangement(a), r);
    seen.insert(a);
    if (r > 0) {
      EXPECT_LT(EinsteinGame::arrangement_from_rank(r - 1), a);  // lexicographic order
    }
  }
  EXPECT_EQ(seen.size(), 720u);
  // The transpose turns "123456" (a1 b1 c1 a2 b2 a3) into a1=1 b1=4 c1=6 a2=2 b2=5 a3=3.
  auto game = make(true);
  EXPECT_EQ(game->transform_chance_outcome(Symmetry::kTranspose, 6), 6 + EinsteinGame::rank_of_arrangement({1, 4, 6, 2, 5, 3}));
  EXPECT_EQ(game->transform_chance_outcome(Symmetry::kTranspose, 3), 3);  // die faces do not move
  // b1-c1 (row direction) becomes a2-a3 (column direction).
  EXPECT_EQ(game->transform_action(Symmetry::kTranspose, 0 * 25 + 1), 1 * 25 + 5);
}

TEST(Einstein, Observation) {
  auto game = make();
  auto s = game->new_initial_state();
  auto red = s->observation(0), blue = s->observation(1);
  EXPECT_EQ(red[0 * 25 + 0], 1.0f);   // Red's stone 1 on a1, Red's view
  EXPECT_EQ(red[6 * 25 + 24], 1.0f);  // Blue's stone 1 on e5 is the opponent's
  EXPECT_EQ(blue[0 * 25 + 24], 1.0f);
  EXPECT_EQ(blue[6 * 25 + 0], 1.0f);
  EXPECT_EQ(red[13 * 25 + 7], 1.0f);
  EXPECT_EQ(blue[13 * 25 + 7], 0.0f);
  for (int c = 0; c < 25; ++c) EXPECT_EQ(red[12 * 25 + c], 0.0f);  // nothing rolled yet
  s->apply_action(2);                                                 // roll 3
  auto after = s->observation(1);
  for (int c = 0; c < 25; ++c) EXPECT_EQ(after[12 * 25 + c], c == 2 ? 1.0f : 0.0f);
}

TEST(Einstein, ChanceFrequencies) {
  util::Rng rng(99);
  auto game = make(true);
  auto sample = [&](const State& s) {
    const auto outcomes = s.chance_outcomes();
    double u = rng.uniform();
    for (auto [a, p] : outcomes) {
      if (u < p) return a;
      u -= p;
    }
    return outcomes.back().first;
  };
  // Red's stone on the corner a1 after a random setup: each number with probability 1/6.
  auto root = game->new_initial_state();
  const int n = 60000;
  std::map<int, int> corner;
  for (int i = 0; i < n; ++i) ++corner[EinsteinGame::arrangement_from_rank(sample(*root) - 6)[0]];
  // Die faces in a real position.
  auto die_node = game->deserialize("123../45.../6...f/...ed/..cba r - 2");
  std::map<int, int> faces;
  for (int i = 0; i < n; ++i) ++faces[sample(*die_node)];
  const double p = 1.0 / 6, sd = std::sqrt(n * p * (1 - p));
  for (int k = 1; k <= 6; ++k) EXPECT_NEAR(corner[k], n * p, 5 * sd) << k;
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(faces[k], n * p, 5 * sd) << k;
}

TEST(Einstein, Entry) {
  const GameEntry entry = einstein_entry();
  auto build = [&](std::map<std::string, std::string> given) {
    auto values = entry.options.resolve(given, "game 'einstein'");
    return entry.make(values, util::Spec{"einstein", values.all()});
  };
  auto game = build({});
  EXPECT_EQ(game->info().family, Family::kStrategy);
  EXPECT_EQ(game->symmetries().size(), 1u);
  EXPECT_EQ(build({{"setup", "random"}})->symmetries().size(), 2u);
  EXPECT_THROW(build({{"setup", "shuffled"}}), util::UsageError);
}

TEST(Einstein, RandomPlayoutInvariants) {
  testing::check_random_playouts(*make(), 3000, 1);
  testing::check_random_playouts(*make(true), 500, 2);
}

TEST(Einstein, Symmetries) {
  testing::check_symmetries(*make(true), 200, 3);
  testing::check_symmetries(*make(), 20, 4);
}

}  // namespace
}  // namespace pz::games
