#include "games/minesweeper.h"

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

std::shared_ptr<const MinesweeperGame> make(int rows = 9, int columns = 9, int mines = 10) {
  util::Spec spec{"minesweeper",
                  {{"columns", std::to_string(columns)}, {"mines", std::to_string(mines)}, {"rows", std::to_string(rows)}}};
  return std::make_shared<MinesweeperGame>(spec, rows, columns, mines);
}

const MinesweeperState& mss(const State& s) { return static_cast<const MinesweeperState&>(s); }

// Plays a first click, the mines (as chance outcomes) and further clicks, all by cell name.
std::unique_ptr<State> play(const MinesweeperGame& game, const std::string& first, const std::vector<std::string>& mines,
                            const std::vector<std::string>& clicks = {}) {
  auto s = game.new_initial_state();
  s->apply_checked(*game.parse_cell(first, nullptr));
  for (const auto& m : mines) s->apply_checked(*game.parse_cell(m, nullptr));
  for (const auto& c : clicks) s->apply_checked(*game.parse_cell(c, nullptr));
  return s;
}

// ---------------------------------------------------------------------------------------
// A deliberately naive reference: vectors of flags, a recursive flood, the rules as written.

struct Ref {
  int rows, columns, mines;
  std::vector<int> mine, shown;
  int first = -1, placed = 0, exploded = -1, revealed = 0;
  Ref(int r, int c, int m) : rows(r), columns(c), mines(m), mine(static_cast<size_t>(r * c)), shown(static_cast<size_t>(r * c)) {}
  bool near(int a, int b) const { return std::abs(a / columns - b / columns) <= 1 && std::abs(a % columns - b % columns) <= 1; }
  int count(int cell) const {
    int n = 0;
    for (int o = 0; o < rows * columns; ++o) n += o != cell && near(o, cell) && mine[static_cast<size_t>(o)];
    return n;
  }
  bool over() const { return exploded >= 0 || (placed == mines && revealed == rows * columns - mines); }
  bool chance() const { return first >= 0 && placed < mines; }
  std::vector<int> legal() const {
    std::vector<int> out;
    if (over()) return out;
    for (int c = 0; c < rows * columns; ++c) {
      if (first < 0) out.push_back(c);
      else if (chance()) {
        if (!mine[static_cast<size_t>(c)] && !near(c, first)) out.push_back(c);
      } else if (!shown[static_cast<size_t>(c)]) {
        out.push_back(c);
      }
    }
    return out;
  }
  void flood(int cell) {
    if (shown[static_cast<size_t>(cell)]) return;
    shown[static_cast<size_t>(cell)] = 1;
    ++revealed;
    if (count(cell) == 0) {
      for (int o = 0; o < rows * columns; ++o)
        if (near(o, cell)) flood(o);
    }
  }
  void apply(int a) {
    if (first < 0) {
      first = a;
    } else if (chance()) {
      mine[static_cast<size_t>(a)] = 1;
      if (++placed == mines) flood(first);
    } else if (mine[static_cast<size_t>(a)]) {
      exploded = a;
    } else {
      flood(a);
    }
  }
  double score() const {
    if (exploded >= 0) return static_cast<double>(revealed) / (rows * columns - mines) - 1.0;
    return over() ? 1.0 : 0.0;
  }
};

std::uint64_t ref_perft(const Ref& r, int depth) {
  if (depth == 0) return 1;
  std::uint64_t n = 0;
  for (int a : r.legal()) {
    Ref t = r;
    t.apply(a);
    n += ref_perft(t, depth - 1);
  }
  return n;
}

TEST(Minesweeper, PerftByHandAndAgainstNaiveReference) {
  // 2×5 board, one mine: 10 first clicks; the mine avoids the click's neighbourhood: 4
  // corners with 4 cells (6 places left) and 6 edge cells with 6 cells (4 left): 48.
  auto tiny = make(2, 5, 1);
  auto root = tiny->new_initial_state();
  EXPECT_EQ(perft(*root, 1), 10u);
  EXPECT_EQ(perft(*root, 2), 48u);
  for (int d = 1; d <= 6; ++d) EXPECT_EQ(perft(*root, d), ref_perft(Ref(2, 5, 1), d)) << d;
  for (auto [r, c, m, depth] : {std::tuple{3, 4, 3, 6}, {4, 4, 2, 5}, {3, 5, 4, 6}}) {
    auto s = make(r, c, m)->new_initial_state();
    EXPECT_EQ(perft(*s, depth), ref_perft(Ref(r, c, m), depth)) << r << "x" << c << "/" << m;
  }
}

TEST(Minesweeper, RandomGamesAgreeWithNaiveReference) {
  util::Rng rng(21);
  for (auto [r, c, m] : {std::tuple{9, 9, 10}, {5, 6, 5}, {4, 4, 7}, {8, 12, 30}}) {
    auto game = make(r, c, m);
    for (int g = 0; g < 150; ++g) {
      auto s = game->new_initial_state();
      Ref ref(r, c, m);
      while (true) {
        auto legal = s->legal_actions();
        ASSERT_EQ(std::vector<int>(legal.begin(), legal.end()), ref.legal());
        ASSERT_EQ(s->is_terminal(), ref.over());
        ASSERT_EQ(s->is_chance_node(), ref.chance());
        if (s->is_terminal()) break;
        const Action a = legal[rng.below(static_cast<std::uint32_t>(legal.size()))];
        s->apply_action(a);
        ref.apply(a);
      }
      ASSERT_NEAR(s->returns()[0], ref.score(), 1e-12);
      ASSERT_EQ(mss(*s).revealed_count(), ref.revealed);
    }
  }
}

TEST(Minesweeper, FloodReveal) {
  // One mine in the far corner: the first click's 0 floods every safe cell and wins at once.
  auto game = make(4, 5, 1);
  auto corner = play(*game, "a1", {"e4"});
  EXPECT_TRUE(corner->is_terminal());
  EXPECT_EQ(mss(*corner).revealed_count(), 19);
  EXPECT_EQ(corner->returns(), std::vector<double>{1.0});
  EXPECT_EQ(corner->serialize(), "00000/00000/00011/0001* a1 2");

  // A wall of mines in column c stops the flood: columns a and b open, b shows 2 3 3 2.
  auto walled = make(4, 5, 4);
  auto s = play(*walled, "a1", {"c1", "c2", "c3", "c4"});
  EXPECT_EQ(s->current_player(), 0);
  EXPECT_EQ(mss(*s).revealed_count(), 8);
  EXPECT_EQ(s->serialize(), "02*../03*../03*../02*.. a1 5");
  // d1 shows 2 and opens alone; e1 is a 0 and floods the rest: cleared.
  auto one = play(*walled, "a1", {"c1", "c2", "c3", "c4"}, {"d1"});
  EXPECT_EQ(mss(*one).revealed_count(), 9);
  EXPECT_FALSE(one->is_terminal());
  EXPECT_EQ(one->explain_illegal(*walled->parse_cell("d1", nullptr)), "d1 is already revealed");
  auto cleared = play(*walled, "a1", {"c1", "c2", "c3", "c4"}, {"e1"});
  EXPECT_TRUE(cleared->is_terminal());
  EXPECT_EQ(cleared->returns(), std::vector<double>{1.0});
  // Stepping on a mine: lost, with half of the 16 safe cells revealed: 8/16 - 1.
  auto boom = play(*walled, "a1", {"c1", "c2", "c3", "c4"}, {"c3"});
  EXPECT_TRUE(boom->is_terminal());
  EXPECT_EQ(boom->returns(), std::vector<double>{-0.5});
  EXPECT_EQ(boom->serialize(), "02*../03*../03X../02*.. a1 6");
  EXPECT_NE(boom->to_string().find("exploded on c3"), std::string::npos);
}

TEST(Minesweeper, FirstClickNeighbourhoodStaysFree) {
  auto game = make();
  auto s = game->new_initial_state();
  s->apply_action(*game->parse_cell("e5", nullptr));
  EXPECT_TRUE(s->is_chance_node());
  auto outcomes = s->legal_actions();
  EXPECT_EQ(outcomes.size(), 81u - 9u);
  for (const char* near : {"d4", "e4", "f4", "d5", "e5", "f5", "d6", "e6", "f6"}) {
    const Action a = *game->parse_cell(near, nullptr);
    EXPECT_FALSE(std::binary_search(outcomes.begin(), outcomes.end(), a)) << near;
    EXPECT_EQ(s->explain_illegal(a), std::string(near) + " is next to the first click: no mine goes there");
  }
  s->apply_action(0);
  EXPECT_EQ(s->legal_actions().size(), 71u);  // a1 is taken now
  EXPECT_EQ(s->explain_illegal(0), "a mine is already on a1");
}

TEST(Minesweeper, ChanceFrequencies) {
  util::Rng rng(5);
  auto sample = [&](const State& s) {
    const auto outcomes = s.chance_outcomes();
    double u = rng.uniform();
    for (auto [a, p] : outcomes) {
      if (u < p) return a;
      u -= p;
    }
    return outcomes.back().first;
  };
  // One mine draw: uniform over the 72 cells outside e5's neighbourhood.
  auto game = make();
  auto s = game->new_initial_state();
  s->apply_action(*game->parse_cell("e5", nullptr));
  std::map<int, int> cells;
  const int n = 72000;
  for (int i = 0; i < n; ++i) ++cells[sample(*s)];
  EXPECT_EQ(cells.size(), 72u);
  const double p = 1.0 / 72, sd = std::sqrt(n * p * (1 - p));
  for (auto [c, k] : cells) EXPECT_NEAR(k, n * p, 5 * sd) << c;
  // Whole placements: 3 mines on a 3×4 board after a corner click go to 3 of the 8 cells
  // outside the corner's neighbourhood, each of the C(8,3) = 56 sets equally likely.
  auto small = make(3, 4, 3);
  std::map<std::vector<int>, int> sets;
  const int m = 56000;
  for (int i = 0; i < m; ++i) {
    auto t = small->new_initial_state();
    t->apply_action(0);
    std::vector<int> placed;
    while (t->is_chance_node()) {
      const Action a = sample(*t);
      placed.push_back(a);
      t->apply_action(a);
    }
    std::sort(placed.begin(), placed.end());
    ++sets[placed];
  }
  EXPECT_EQ(sets.size(), 56u);
  const double q = 1.0 / 56, sdq = std::sqrt(m * q * (1 - q));
  for (auto& [set, k] : sets) EXPECT_NEAR(k, m * q, 5 * sdq);
}

// Every placement of the game's mines on the unrevealed cells that agrees with the
// revealed numbers, by brute force over subsets.
std::vector<std::vector<int>> consistent_placements(const MinesweeperGame& game, const MinesweeperState& s) {
  std::vector<int> unknown;
  for (int c = 0; c < game.cells(); ++c)
    if (!s.is_revealed(c)) unknown.push_back(c);
  std::vector<std::vector<int>> out;
  std::vector<int> chosen;
  std::vector<char> is_mine(static_cast<size_t>(game.cells()), 0);
  // Every way to choose the mines among the unknown cells, checked against every number.
  auto recurse = [&](auto&& self, size_t from) -> void {
    if (static_cast<int>(chosen.size()) == game.mines()) {
      for (int c = 0; c < game.cells(); ++c) {
        if (!s.is_revealed(c)) continue;
        int k = 0;
        for (int i = 0; i < game.num_neighbours(c); ++i) k += is_mine[static_cast<size_t>(game.neighbour(c, i))];
        if (k != s.number(c)) return;
      }
      out.push_back(chosen);
      return;
    }
    for (size_t i = from; i < unknown.size(); ++i) {
      chosen.push_back(unknown[i]);
      is_mine[static_cast<size_t>(unknown[i])] = 1;
      self(self, i + 1);
      is_mine[static_cast<size_t>(unknown[i])] = 0;
      chosen.pop_back();
    }
  };
  recurse(recurse, 0);
  return out;
}

std::vector<int> mines_of(const MinesweeperGame& game, const MinesweeperState& s) {
  std::vector<int> out;
  for (int c = 0; c < game.cells(); ++c)
    if (s.is_mine(c)) out.push_back(c);
  return out;
}

// Checks a resampled state against the original: same view, a legal placement.
void expect_consistent(const MinesweeperGame& game, const MinesweeperState& original, const MinesweeperState& sample) {
  ASSERT_EQ(sample.observation(0), original.observation(0));
  ASSERT_EQ(sample.current_player(), original.current_player());
  if (original.current_player() == 0) {
    ASSERT_EQ(sample.legal_actions(), original.legal_actions());  // at chance nodes the free cells differ
  }
  ASSERT_EQ(static_cast<int>(mines_of(game, sample).size()), original.mines_placed());
  for (int c = 0; c < game.cells(); ++c) {
    if (original.is_revealed(c)) {
      ASSERT_FALSE(sample.is_mine(c));
      ASSERT_EQ(sample.number(c), original.number(c));
    }
    if (original.first_click() >= 0 && game.neighbourhood(original.first_click())[static_cast<size_t>(c >> 6)] >> (c & 63) & 1) {
      ASSERT_FALSE(sample.is_mine(c));
    }
  }
  // The state still plays and round-trips.
  auto restored = game.deserialize(sample.serialize());
  ASSERT_EQ(restored->hash(), sample.hash());
}

TEST(Minesweeper, ResampleIsExactlyUniformOnSmallBoards) {
  util::Rng rng(9);
  for (auto [rows, columns, mines] : {std::tuple{4, 5, 4}, {5, 6, 6}}) {
    auto game = make(rows, columns, mines);
    int checked = 0;
    for (int g = 0; g < 400 && checked < 4; ++g) {
      auto s = game->new_initial_state();
      while (!s->is_terminal()) {
        auto legal = s->legal_actions();
        s->apply_action(legal[rng.below(static_cast<std::uint32_t>(legal.size()))]);
        if (s->current_player() != 0) continue;
        const auto& st = mss(*s);
        auto all = consistent_placements(*game, st);
        if (all.size() < 3 || all.size() > 80) continue;
        std::map<std::vector<int>, int> seen;
        const int n = 150 * static_cast<int>(all.size());
        for (int i = 0; i < n; ++i) {
          bool exact = false;
          auto r = st.resample_mines(rng, MinesweeperState::kDefaultEnumerationBudget, &exact);
          ASSERT_TRUE(exact);
          expect_consistent(*game, st, *r);
          ++seen[mines_of(*game, *r)];
        }
        ASSERT_EQ(seen.size(), all.size()) << st.to_string();
        const double p = 1.0 / static_cast<double>(all.size()), sd = std::sqrt(n * p * (1 - p));
        for (const auto& placement : all) EXPECT_NEAR(seen[placement], n * p, 5 * sd);
        ++checked;
        break;
      }
    }
    EXPECT_EQ(checked, 4) << rows << "x" << columns;
  }
}

TEST(Minesweeper, FallbackChainIsConsistentAndRoughlyUniform) {
  util::Rng rng(10);
  auto game = make(4, 5, 4);
  int checked = 0;
  for (int g = 0; g < 400 && checked < 4; ++g) {
    auto s = game->new_initial_state();
    while (!s->is_terminal()) {
      auto legal = s->legal_actions();
      s->apply_action(legal[rng.below(static_cast<std::uint32_t>(legal.size()))]);
      if (s->current_player() != 0) continue;
      const auto& st = mss(*s);
      auto all = consistent_placements(*game, st);
      if (all.size() < 3 || all.size() > 40) continue;
      std::map<std::vector<int>, int> seen;
      const int n = 300 * static_cast<int>(all.size());
      for (int i = 0; i < n; ++i) {
        bool exact = true;
        auto r = st.resample_mines(rng, 0, &exact);  // no enumeration: the Markov chain
        ASSERT_FALSE(exact);
        expect_consistent(*game, st, *r);
        ++seen[mines_of(*game, *r)];
      }
      // Total variation distance from uniform.
      double tv = 0;
      for (const auto& placement : all) tv += std::abs(seen[placement] / static_cast<double>(n) - 1.0 / static_cast<double>(all.size()));
      EXPECT_LT(tv / 2, 0.08) << st.to_string();
      ++checked;
      break;
    }
  }
  EXPECT_EQ(checked, 4);
}

TEST(Minesweeper, FallbackChainMatchesExactMarginalsOnAMediumBoard) {
  // A position too large to list by hand but small enough for the exact sampler: the
  // chain's per-cell mine frequencies must match the exact sampler's.
  util::Rng rng(12);
  auto game = make(8, 8, 12);
  int checked = 0;
  for (int g = 0; g < 200 && checked < 2; ++g) {
    auto s = game->new_initial_state();
    while (!s->is_terminal() && checked < 2) {
      auto legal = s->legal_actions();
      Action a = legal[rng.below(static_cast<std::uint32_t>(legal.size()))];
      if (s->current_player() == 0) {
        for (int tries = 0; tries < 30 && mss(*s).is_mine(a); ++tries) a = legal[rng.below(static_cast<std::uint32_t>(legal.size()))];
      }
      s->apply_action(a);
      if (s->current_player() != 0 || mss(*s).revealed_count() < 20) continue;
      const auto& st = mss(*s);
      const int n = 2500;
      std::vector<double> exact_freq(64, 0.0), chain_freq(64, 0.0);
      for (int i = 0; i < n; ++i) {
        bool exact = false;
        auto e = st.resample_mines(rng, MinesweeperState::kDefaultEnumerationBudget, &exact);
        ASSERT_TRUE(exact);
        auto c = st.resample_mines(rng, 0, &exact);
        ASSERT_FALSE(exact);
        expect_consistent(*game, st, *c);
        for (int cell = 0; cell < 64; ++cell) {
          exact_freq[static_cast<size_t>(cell)] += e->is_mine(cell) / static_cast<double>(n);
          chain_freq[static_cast<size_t>(cell)] += c->is_mine(cell) / static_cast<double>(n);
        }
      }
      for (int cell = 0; cell < 64; ++cell) {
        EXPECT_NEAR(chain_freq[static_cast<size_t>(cell)], exact_freq[static_cast<size_t>(cell)], 0.07)
            << game->cell_name(cell) << "\n" << st.to_string();
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2);
}

TEST(Minesweeper, ResampleIsConsistentOnLargeBoards) {
  util::Rng rng(11);
  for (auto [r, c, m, games] : {std::tuple{9, 9, 10, 40}, {16, 16, 40, 12}, {16, 30, 99, 6}, {8, 8, 40, 30}}) {
    auto game = make(r, c, m);
    int exact_count = 0, total = 0;
    for (int g = 0; g < games; ++g) {
      auto s = game->new_initial_state();
      while (!s->is_terminal()) {
        if (rng.below(3) == 0) {
          const auto& st = mss(*s);
          bool exact = false;
          auto sample = st.resample_mines(rng, MinesweeperState::kDefaultEnumerationBudget, &exact);
          expect_consistent(*game, st, *sample);
          exact_count += exact;
          ++total;
          if (st.current_player() == 0 && rng.below(4) == 0) {
            auto forced = st.resample_mines(rng, 0, &exact);
            expect_consistent(*game, st, *forced);
          }
          auto generic = s->resample(0, rng);
          expect_consistent(*game, st, mss(*generic));
        }
        // Play safe-ish: prefer cells that are not mines half of the time, so games last.
        auto legal = s->legal_actions();
        Action a = legal[rng.below(static_cast<std::uint32_t>(legal.size()))];
        if (s->current_player() == 0 && rng.below(10) != 0) {
          for (int tries = 0; tries < 20 && mss(*s).is_mine(a); ++tries) a = legal[rng.below(static_cast<std::uint32_t>(legal.size()))];
        }
        s->apply_action(a);
      }
    }
    EXPECT_GT(exact_count, total * 9 / 10) << r << "x" << c;  // the exact path is the usual one
  }
}

TEST(Minesweeper, ObservationHidesTheMines) {
  // 4×6 board, 5 mines: the wall in column c and one mine in column f, at f1 or f4. With
  // only columns a and b revealed, the two boards look the same.
  auto game = make(4, 6, 5);
  auto a = play(*game, "a1", {"c1", "c2", "c3", "c4", "f1"});
  auto b = play(*game, "a1", {"c1", "c2", "c3", "c4", "f4"});
  EXPECT_EQ(a->observation(0), b->observation(0));
  EXPECT_EQ(a->to_string(), b->to_string());
  EXPECT_NE(a->hash(), b->hash());
  // During the placement as well.
  auto c = play(*game, "a1", {"c1", "e4"}), d = play(*game, "a1", {"f1", "c3"});
  EXPECT_EQ(c->observation(0), d->observation(0));
  EXPECT_EQ(c->observation(0), play(*game, "a1", {})->observation(0));
  // Planes: a1 shows 0, b2 shows 3 (c1 c2 c3), d1 unrevealed, the ones plane.
  auto obs = a->observation(0);
  const int n = 24;
  EXPECT_EQ(obs[0 * n + 0], 1.0f);
  EXPECT_EQ(obs[3 * n + 7], 1.0f);
  EXPECT_EQ(obs[9 * n + 3], 1.0f);
  EXPECT_EQ(obs[9 * n + 0], 0.0f);
  EXPECT_EQ(obs[11 * n + 23], 1.0f);
  // The mines appear in the text only at the end.
  EXPECT_EQ(a->to_string().find('*'), std::string::npos);
  auto boom = play(*game, "a1", {"c1", "c2", "c3", "c4", "f1"}, {"f1"});
  EXPECT_NE(boom->to_string().find('*'), std::string::npos);
  auto lost = boom->observation(0);
  EXPECT_EQ(lost[10 * n + 5], 1.0f);
  EXPECT_EQ(lost[9 * n + 5], 0.0f);
}

TEST(Minesweeper, NotationAndSerialisation) {
  auto game = make(16, 30, 99);
  EXPECT_EQ(game->cell_name(0), "a1");
  EXPECT_EQ(game->cell_name(29), "ad1");
  EXPECT_EQ(game->cell_name(26 + 30), "aa2");
  EXPECT_EQ(game->cell_name(16 * 30 - 1), "ad16");
  EXPECT_EQ(game->parse_cell("AD16", nullptr), 16 * 30 - 1);
  EXPECT_EQ(game->parse_cell("z3", nullptr), 2 * 30 + 25);
  std::string error;
  for (const char* bad : {"ae1", "a0", "a17", "1a", "abc1", "", "a", "a1x"}) {
    EXPECT_FALSE(game->parse_cell(bad, &error)) << bad;
  }
  auto small = make(4, 5, 4);
  auto s = small->new_initial_state();
  EXPECT_EQ(s->serialize(), "...../...../...../..... - 0");
  s->apply_action(0);
  EXPECT_EQ(s->action_to_string(kChancePlayer, 7), "mine c2");
  EXPECT_EQ(s->parse_action("mine c2"), 7);
  EXPECT_EQ(s->parse_action("*c2"), 7);
  EXPECT_EQ(s->parse_action("c2"), 7);
  s->apply_action(7);
  EXPECT_EQ(s->serialize(), "...../..*../...../..... a1 2");
  EXPECT_EQ(small->deserialize("...../..*../...../..... a1 2")->hash(), s->hash());
  for (const char* bad : {"...../..*../...../..... a1", "...../..*../...../.... a1 2", "...../..*../...../..... a1 3",
                          "...../.*.../...../..... a1 2", "...../..?../...../..... a1 2", "...../..*../...../..... - 2",
                          "02*../03*../03*../02*.. a1 4", "01*../03*../03*../02*.. a1 5", "02*../03*../03*../.2*.. a1 5",
                          "02*../03*../03X../02X.. a1 6", "...../..*../...../..... z9 2"}) {
    EXPECT_THROW(small->deserialize(bad), util::UsageError) << bad;
  }
  // A game won outright, and one lost, round-trip.
  for (const char* ok : {"00000/00000/00011/0001* a1 2", "02*../03*../03X../02*.. a1 6"}) {
    auto t = make(4, 5, std::string(ok).find('X') == std::string::npos ? 1 : 4)->deserialize(ok);
    EXPECT_EQ(t->serialize(), ok);
    EXPECT_TRUE(t->is_terminal());
  }
}

TEST(Minesweeper, Entry) {
  const GameEntry entry = minesweeper_entry();
  auto build = [&](std::map<std::string, std::string> given) {
    auto values = entry.options.resolve(given, "game 'minesweeper'");
    return entry.make(values, util::Spec{"minesweeper", values.all()});
  };
  auto game = build({});
  EXPECT_EQ(game->info().num_distinct_actions, 81);
  EXPECT_EQ(game->symmetries().size(), 8u);
  EXPECT_EQ(build({{"rows", "16"}, {"columns", "30"}, {"mines", "99"}})->symmetries().size(), 4u);
  EXPECT_THROW(build({{"mines", "73"}}), util::UsageError);  // 81 - 9 = 72 at most
  EXPECT_NO_THROW(build({{"mines", "72"}}));
  EXPECT_THROW(build({{"rows", "25"}}), util::UsageError);
  EXPECT_THROW(build({{"mines", "0"}}), util::UsageError);
}

TEST(Minesweeper, RandomPlayoutInvariants) {
  testing::check_random_playouts(*make(), 400, 1);
  testing::check_random_playouts(*make(3, 4, 3), 1000, 2);
  testing::check_random_playouts(*make(16, 30, 99), 20, 3);
  testing::check_random_playouts(*make(5, 5, 16), 300, 4);
}

TEST(Minesweeper, Symmetries) {
  testing::check_symmetries(*make(), 20, 5);
  testing::check_symmetries(*make(4, 6, 5), 50, 6);
}

}  // namespace
}  // namespace pz::games
