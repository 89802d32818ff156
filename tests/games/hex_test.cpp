#include "games/hex.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <utility>

#include "games/perft.h"
#include "tests/games/game_properties.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::games {
namespace {

std::shared_ptr<const Game> make(int size, bool swap) {
  return testing::make_from_entry(hex_entry(), {{"size", std::to_string(size)}, {"swap", swap ? "true" : "false"}});
}

std::unique_ptr<State> play(const Game& game, const std::vector<std::string>& moves) {
  return testing::play_moves(game, moves);
}

const HexState& hex(const State& s) { return static_cast<const HexState&>(s); }

// ---------------------------------------------------------------------------------------
// A deliberately plain reference: a 2D array, the six directions written out, and a
// breadth-first flood fill from each colour's first edge.
struct NaiveHex {
  int size;
  bool swap_rule;
  int cell[19][19] = {};  // 0 empty, 1 black, 2 white
  int moves = 0;
  int winner = 0;  // 0 none, 1 black, 2 white

  NaiveHex(int s, bool sw) : size(s), swap_rule(sw) {}

  // Does `colour` (1 black: top to bottom; 2 white: left to right) connect its edges?
  bool connects(int colour) const {
    static const int dy[6] = {-1, -1, 0, 0, 1, 1};
    static const int dx[6] = {0, 1, -1, 1, -1, 0};
    bool seen[19][19] = {};
    std::vector<std::pair<int, int>> queue;
    for (int i = 0; i < size; ++i) {
      const int y = colour == 1 ? 0 : i, x = colour == 1 ? i : 0;
      if (cell[y][x] == colour) {
        seen[y][x] = true;
        queue.push_back({y, x});
      }
    }
    for (size_t head = 0; head < queue.size(); ++head) {
      auto [y, x] = queue[head];
      if ((colour == 1 && y == size - 1) || (colour == 2 && x == size - 1)) return true;
      for (int d = 0; d < 6; ++d) {
        const int ny = y + dy[d], nx = x + dx[d];
        if (ny < 0 || ny >= size || nx < 0 || nx >= size || seen[ny][nx] || cell[ny][nx] != colour) continue;
        seen[ny][nx] = true;
        queue.push_back({ny, nx});
      }
    }
    return false;
  }

  bool over() const { return winner != 0; }
  // Actions in the real game's numbering: y*size+x, size*size for the swap.
  std::vector<int> legal() const {
    std::vector<int> out;
    if (over()) return out;
    for (int y = 0; y < size; ++y)
      for (int x = 0; x < size; ++x)
        if (cell[y][x] == 0) out.push_back(y * size + x);
    if (swap_rule && moves == 1) out.push_back(size * size);
    return out;
  }
  void play(int action) {
    if (action == size * size) {
      for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x)
          if (cell[y][x] == 1) {
            cell[y][x] = 0;
            cell[x][y] = 2;
            ++moves;
            return;
          }
      return;
    }
    const int colour = moves % 2 + 1;
    cell[action / size][action % size] = colour;
    ++moves;
    if (connects(colour)) winner = colour;
  }
};

// Sequences of exactly `depth` moves; one that ends the game on its last move counts.
std::uint64_t naive_perft(const NaiveHex& s, int depth) {
  if (depth == 0) return 1;
  if (s.over()) return 0;
  std::uint64_t n = 0;
  for (int a : s.legal()) {
    NaiveHex c = s;
    c.play(a);
    n += naive_perft(c, depth - 1);
  }
  return n;
}

// n! / (n-d)!
std::uint64_t falling(std::uint64_t n, int d) {
  std::uint64_t r = 1;
  for (int i = 0; i < d; ++i) r *= n - static_cast<std::uint64_t>(i);
  return r;
}

// ---------------------------------------------------------------------------------------

TEST(Hex, InfoAndOptions) {
  auto g = make(11, true);
  EXPECT_EQ(g->info().name, "hex");
  EXPECT_EQ(g->info().long_name, "Hex");
  EXPECT_EQ(g->info().num_distinct_actions, 122);
  EXPECT_EQ(g->info().policy_shape, (Shape{2, 11, 11}));
  EXPECT_EQ(g->info().observation_shape, (Shape{6, 11, 11}));
  EXPECT_EQ(g->info().max_game_length, 122);
  EXPECT_EQ(g->spec().to_string(), "hex:size=11,swap=true");
  EXPECT_EQ(make(7, false)->info().max_game_length, 49);
  const GameEntry entry = hex_entry();
  EXPECT_EQ(entry.family, Family::kBoard);
  auto defaults = entry.options.resolve({}, "game 'hex'");
  EXPECT_EQ(defaults.get_int("size"), 11);
  EXPECT_TRUE(defaults.get_bool("swap"));
  EXPECT_THROW(entry.options.resolve({{"size", "1"}}, "game 'hex'"), util::UsageError);
  EXPECT_THROW(entry.options.resolve({{"size", "20"}}, "game 'hex'"), util::UsageError);
  EXPECT_THROW(entry.options.resolve({{"swap", "maybe"}}, "game 'hex'"), util::UsageError);
}

TEST(Hex, PerftWithoutSwapIsTheFallingFactorial) {
  // Nobody can connect with fewer than `size` stones, so for d < 2*size-1 every sequence of
  // distinct cells is a game: perft(d) = n!/(n-d)!.
  for (int size : {5, 11}) {
    auto g = make(size, false);
    auto root = g->new_initial_state();
    const int n = size * size;
    const int max_depth = size == 5 ? 5 : 3;
    for (int d = 0; d <= max_depth; ++d) EXPECT_EQ(perft(*root, d), falling(n, d)) << "size " << size << " depth " << d;
  }
  EXPECT_EQ(perft(*make(5, false)->new_initial_state(), 4), 303600u);  // 25*24*23*22
}

TEST(Hex, PerftWithSwap) {
  // Move 1: n cells. Move 2: n-1 cells or the swap, n in all, so depth 2 is n*n. After a
  // swap one (white) stone is on the board and Black has n-1 replies, then White n-2;
  // after an ordinary second move there are n-2 replies, then n-3.
  for (int size : {5, 11}) {
    auto g = make(size, true);
    auto root = g->new_initial_state();
    const std::uint64_t n = static_cast<std::uint64_t>(size * size);
    EXPECT_EQ(perft(*root, 1), n);
    EXPECT_EQ(perft(*root, 2), n * n);
    EXPECT_EQ(perft(*root, 3), n * (n - 1) + n * (n - 1) * (n - 2));
    if (size == 5) {
      EXPECT_EQ(perft(*root, 4), n * (n - 1) * (n - 2) + n * (n - 1) * (n - 2) * (n - 3));
    }
  }
  EXPECT_EQ(perft(*make(5, true)->new_initial_state(), 2), 625u);
  EXPECT_EQ(perft(*make(5, true)->new_initial_state(), 3), 600u + 13800u);
}

TEST(Hex, PerftNearTheEndMatchesTheNaiveReference) {
  // From random positions with few empty cells, the counts include finished games, so the
  // win test matters on every leaf.
  util::Rng rng(11);
  bool games_ended_inside = false;
  for (int size : {5, 6}) {
    auto g = make(size, false);
    const int n = size * size;
    int checked = 0;
    while (checked < 6) {
      std::vector<int> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      auto s = g->new_initial_state();
      NaiveHex ref(size, false);
      const int empties = 7;
      bool ended = false;
      for (int i = 0; i < n - empties && !ended; ++i) {
        s->apply_action(order[static_cast<size_t>(i)]);
        ref.play(order[static_cast<size_t>(i)]);
        ended = s->is_terminal();
      }
      if (ended) continue;
      ASSERT_FALSE(ref.over());
      for (int d = 1; d <= empties; ++d) {
        const std::uint64_t count = perft(*s, d);
        ASSERT_EQ(count, naive_perft(ref, d)) << s->to_string() << "depth " << d;
        if (count < falling(empties, d)) games_ended_inside = true;
      }
      ++checked;
    }
  }
  EXPECT_TRUE(games_ended_inside);  // the positions did exercise the win test
}

TEST(Hex, NeighboursAreTheSixHexCells) {
  auto g = make(5, false);
  const auto& hg = static_cast<const HexGame&>(*g);
  auto cells = [&](int y, int x) {
    const auto& a = hg.adjacency(y * 5 + x);
    std::vector<int> out(a.cells, a.cells + a.num_cells);
    std::sort(out.begin(), out.end());
    return out;
  };
  // c3 = (2,2): (1,2) c2, (1,3) d2, (2,1) b3, (2,3) d3, (3,1) b4, (3,2) c4.
  EXPECT_EQ(cells(2, 2), (std::vector<int>{7, 8, 11, 13, 16, 17}));
  EXPECT_EQ(cells(0, 0), (std::vector<int>{1, 5}));            // a1: b1, a2
  EXPECT_EQ(cells(0, 4), (std::vector<int>{3, 8, 9}));         // e1: d1, d2, e2
  EXPECT_EQ(cells(4, 0), (std::vector<int>{15, 16, 21}));      // a5: a4, b4, b5
  EXPECT_EQ(cells(4, 4), (std::vector<int>{19, 23}));          // e5: e4, d5
}

TEST(Hex, BlackStraightChainWins) {
  auto g = make(5, false);
  auto s = play(*g, {"c1", "a1", "c2", "a2", "c3", "a3", "c4", "a4"});
  EXPECT_FALSE(s->is_terminal());  // c1-c4 touches only the top; a1-a4 only the left
  s->apply_checked(*s->parse_action("c5"));
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(hex(*s).winner(), 0);
  EXPECT_EQ(s->returns(), (std::vector<double>{1.0, -1.0}));
  EXPECT_TRUE(s->legal_actions().empty());
}

TEST(Hex, BlackZigZagChainWins) {
  auto g = make(5, false);
  // c1 -> b2 (down-left) -> b3 (down) -> a4 (down-left) -> a5 (down).
  auto s = play(*g, {"c1", "e1", "b2", "e2", "b3", "e3", "a4", "d4"});
  EXPECT_FALSE(s->is_terminal());
  s->apply_checked(*s->parse_action("a5"));
  EXPECT_EQ(hex(*s).winner(), 0);
  // Along the short diagonal e1, d2, c3, b4, a5.
  s = play(*g, {"e1", "a1", "d2", "b1", "c3", "c1", "b4", "a3", "a5"});
  EXPECT_EQ(hex(*s).winner(), 0);
}

TEST(Hex, TheLongDiagonalIsNotAChain) {
  // (y,x) and (y+1,x+1) are not neighbours: a1 b2 c3 d4 e5 connects nothing.
  auto g = make(5, false);
  auto s = play(*g, {"a1", "b1", "b2", "c2", "c3", "d3", "d4", "e4", "e5"});
  EXPECT_FALSE(s->is_terminal());
  EXPECT_EQ(s->current_player(), 1);
}

TEST(Hex, WhiteStraightAndZigZagChainsWin) {
  auto g = make(5, false);
  // Black's row 1 joins left to right — White's edges — and touches only Black's top edge.
  auto s = play(*g, {"a1", "a3", "b1", "b3", "c1", "c3", "d1", "d3", "e1"});
  EXPECT_FALSE(s->is_terminal());
  s->apply_checked(*s->parse_action("e3"));
  EXPECT_EQ(hex(*s).winner(), 1);
  EXPECT_EQ(s->returns(), (std::vector<double>{-1.0, 1.0}));
  // White zig-zag: a4 -> b3 (up-right) -> c3 -> d2 (up-right) -> e2.
  s = play(*g, {"a1", "a4", "b1", "b3", "c1", "c3", "e4", "d2", "e5"});
  EXPECT_FALSE(s->is_terminal());
  s->apply_checked(*s->parse_action("e2"));
  EXPECT_EQ(hex(*s).winner(), 1);
}

TEST(Hex, ChainTouchingOneEdgeDoesNotWin) {
  auto g = make(7, false);
  // Black c1..c6 (no c7) and White a1..a6 — neither reaches its far edge.
  auto s = play(*g, {"c1", "a1", "c2", "a2", "c3", "a3", "c4", "a4", "c5", "a5", "c6", "a6"});
  EXPECT_FALSE(s->is_terminal());
  const auto& h = hex(*s);
  EXPECT_TRUE(h.connected_to(2, HexGame::kTop));
  EXPECT_FALSE(h.connected_to(2, HexGame::kBottom));
  EXPECT_TRUE(h.connected_to(0, HexGame::kLeft));
  EXPECT_FALSE(h.connected_to(0, HexGame::kRight));
  // A white stone on Black's edge row does not join Black's edge.
  EXPECT_FALSE(h.connected_to(0, HexGame::kTop));
}

// The Hex theorem: every full board has exactly one connection. Fill random boards with
// the naive reference, then replay the same fill in the real game: the first connection
// made there is the one that survives to the full board.
TEST(Hex, FullBoardHasExactlyOneWinner) {
  util::Rng rng(7);
  for (int size : {5, 7, 11, 19}) {
    auto g = make(size, false);
    const int n = size * size;
    const int trials = size == 19 ? 100 : 500;
    for (int t = 0; t < trials; ++t) {
      std::vector<int> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      NaiveHex full(size, false);
      for (int i = 0; i < n; ++i) full.cell[order[static_cast<size_t>(i)] / size][order[static_cast<size_t>(i)] % size] = i % 2 + 1;
      const bool black = full.connects(1), white = full.connects(2);
      ASSERT_NE(black, white) << "size " << size << " trial " << t;
      auto s = g->new_initial_state();
      int i = 0;
      while (!s->is_terminal()) s->apply_action(order[static_cast<size_t>(i++)]);
      ASSERT_EQ(hex(*s).winner(), black ? 0 : 1);
    }
    // Also with colours not alternating (any 2-colouring of a full board).
    for (int t = 0; t < trials; ++t) {
      NaiveHex full(size, false);
      for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) full.cell[y][x] = 1 + static_cast<int>(rng.below(2));
      ASSERT_NE(full.connects(1), full.connects(2));
    }
  }
}

// Union-find against the flood fill, node by node, over many random games.
TEST(Hex, MatchesNaiveReferenceOnRandomGames) {
  util::Rng rng(3);
  std::vector<Action> legal;
  for (auto [size, games] : {std::pair{5, 3000}, std::pair{7, 1500}, std::pair{11, 400}}) {
    for (bool swap : {false, true}) {
      auto g = make(size, swap);
      for (int t = 0; t < games; ++t) {
        auto s = g->new_initial_state();
        NaiveHex ref(size, swap);
        while (true) {
          s->legal_actions(legal);
          const auto expected = ref.legal();
          ASSERT_EQ(legal, std::vector<Action>(expected.begin(), expected.end()));
          ASSERT_EQ(s->is_terminal(), ref.over());
          if (ref.over()) {
            ASSERT_EQ(hex(*s).winner() + 1, ref.winner);
            break;
          }
          ASSERT_EQ(s->current_player(), ref.moves % 2);
          for (int y = 0; y < size; ++y)
            for (int x = 0; x < size; ++x) ASSERT_EQ(hex(*s).owner(y * size + x) + 1, ref.cell[y][x]);
          const Action a = legal[rng.below(static_cast<std::uint32_t>(legal.size()))];
          s->apply_action(a);
          ref.play(a);
        }
      }
    }
  }
}

TEST(Hex, MayEndGameIsExactlyTheWinningMoves) {
  for (bool swap : {false, true}) {
    testing::check_may_end_game_exact(*make(5, swap), 300, 5);
    testing::check_may_end_game_exact(*make(7, swap), 100, 6);
  }
}

TEST(Hex, SwapIsLegalOnlyAsTheSecondMove) {
  auto g = make(5, true);
  const Action swap = 25;
  auto s = g->new_initial_state();
  EXPECT_FALSE(s->is_legal(swap));
  EXPECT_FALSE(hex(*s).swap_available());
  s->apply_checked(*s->parse_action("b4"));
  EXPECT_TRUE(s->is_legal(swap));
  EXPECT_EQ(s->legal_actions().size(), 25u);  // 24 cells + swap
  auto other = s->clone();
  other->apply_checked(*s->parse_action("c3"));
  EXPECT_FALSE(other->is_legal(swap));
  EXPECT_THROW(other->apply_checked(swap), util::UsageError);

  s->apply_checked(swap);
  EXPECT_EQ(s->move_number(), 2);
  EXPECT_EQ(s->current_player(), 0);
  EXPECT_FALSE(s->is_legal(swap));
  // b4 = (row 3, column 1) mirrors to (row 1, column 3) = d2, now White's.
  const auto& h = hex(*s);
  for (int c = 0; c < 25; ++c) EXPECT_EQ(h.owner(c), c == 1 * 5 + 3 ? 1 : -1) << c;
  EXPECT_EQ(s->legal_actions().size(), 24u);
  EXPECT_EQ(s->serialize(), "b4 swap");
  s->apply_checked(*s->parse_action("c3"));
  EXPECT_EQ(h.owner(12), 0);
  EXPECT_EQ(s->current_player(), 1);

  // Without the rule it is never offered, and "swap" still parses (to an illegal move).
  auto no = make(5, false);
  auto t = play(*no, {"b4"});
  EXPECT_FALSE(t->is_legal(swap));
  EXPECT_EQ(t->legal_actions().size(), 24u);
  EXPECT_EQ(t->parse_action("swap"), swap);
  EXPECT_THROW(t->apply_checked(swap), util::UsageError);
}

TEST(Hex, SwapOnTheDiagonalAndEdgesIsRebuiltCorrectly) {
  auto g = make(5, true);
  // c3 is on the long diagonal: the stone stays put and changes colour.
  auto s = play(*g, {"c3", "swap"});
  EXPECT_EQ(hex(*s).owner(12), 1);
  // e1 touches Black's top edge and White's right edge; it becomes a White a5, which
  // touches White's left edge and Black's bottom edge.
  s = play(*g, {"e1", "swap"});
  const auto& h = hex(*s);
  EXPECT_EQ(h.owner(4), -1);
  EXPECT_EQ(h.owner(20), 1);
  EXPECT_TRUE(h.connected_to(20, HexGame::kLeft));
  EXPECT_FALSE(h.connected_to(20, HexGame::kRight));
  EXPECT_FALSE(h.connected_to(20, HexGame::kTop));
  EXPECT_FALSE(h.connected_to(20, HexGame::kBottom));
  // The top edge must no longer be joined to anything: Black's e1..e4 does not win, e5 does.
  s = play(*g, {"e1", "swap", "e1", "a1", "e2", "a2", "e3", "a3", "e4", "b1"});
  EXPECT_FALSE(s->is_terminal());
  s->apply_checked(*s->parse_action("e5"));
  EXPECT_EQ(hex(*s).winner(), 0);
  // And White can still win after a swap with the swapped stone in the chain: a5 b5 c5 d5 e5.
  s = play(*g, {"e1", "swap", "a1", "b5", "b1", "c5", "c1", "d5", "d1", "e5"});
  EXPECT_EQ(hex(*s).winner(), 1);
}

TEST(Hex, HashTracksStonesSideToMoveAndSwapRight) {
  auto with = make(5, true), without = make(5, false);
  auto a = play(*with, {"c3"}), b = play(*without, {"c3"});
  EXPECT_NE(a->hash(), b->hash());  // same stones and mover, but only one may swap
  a->apply_checked(*a->parse_action("d4"));
  b->apply_checked(*b->parse_action("d4"));
  EXPECT_EQ(a->hash(), b->hash());
  // Transpositions meet: same stones, same mover.
  auto c = play(*without, {"c3", "d4", "b2", "a1"}), d = play(*without, {"b2", "a1", "c3", "d4"});
  EXPECT_EQ(c->hash(), d->hash());
  EXPECT_NE(c->hash(), play(*without, {"c3", "a1", "d4", "b2"})->hash());  // colours exchanged
  EXPECT_NE(with->new_initial_state()->hash(), a->hash());
  // After a swap: the white stone on d2 with Black to move, unlike "b4 d2" (two stones).
  auto e = play(*with, {"b4", "swap"}), f = play(*with, {"b4", "d2"});
  EXPECT_NE(e->hash(), f->hash());
}

TEST(Hex, ObservationPlanes) {
  auto g = make(5, true);
  auto s = play(*g, {"a1"});
  const int n = 25;
  auto white = s->observation(1), black = s->observation(0);
  EXPECT_EQ(white[n + 0], 1.0f);    // opponent's stone
  EXPECT_EQ(white[0], 0.0f);
  EXPECT_EQ(black[0], 1.0f);
  EXPECT_EQ(black[2 * n + 7], 1.0f);  // Black plane
  EXPECT_EQ(white[2 * n + 7], 0.0f);
  EXPECT_EQ(white[3 * n + 9], 1.0f);  // White to move with the swap available
  EXPECT_EQ(black[3 * n + 9], 0.0f);
  EXPECT_EQ(black[4 * n + 0], 1.0f);  // a1 is on Black's top edge
  EXPECT_EQ(white[5 * n + 0], 1.0f);
  s->apply_checked(*s->parse_action("c3"));
  auto after = s->observation(0);
  for (int c = 0; c < n; ++c) EXPECT_EQ(after[3 * n + c], 0.0f);
  // White's c3 touches no edge; b3 and a3 later join it to the left edge.
  EXPECT_EQ(after[5 * n + 12], 0.0f);
  s->apply_checked(*s->parse_action("e5"));
  s->apply_checked(*s->parse_action("b3"));
  s->apply_checked(*s->parse_action("e4"));
  s->apply_checked(*s->parse_action("a3"));
  auto w = s->observation(1);
  EXPECT_EQ(w[4 * n + 10], 1.0f);  // a3
  EXPECT_EQ(w[4 * n + 11], 1.0f);  // b3
  EXPECT_EQ(w[4 * n + 12], 1.0f);  // c3
  EXPECT_EQ(w[5 * n + 24], 1.0f);  // Black e5 on the bottom edge
  EXPECT_EQ(w[5 * n + 19], 1.0f);  // Black e4 joined to it
  EXPECT_EQ(w[5 * n + 0], 1.0f);   // Black a1
}

TEST(Hex, NotationRoundTrips) {
  auto g = make(5, true);
  auto s = g->new_initial_state();
  EXPECT_EQ(s->parse_action("a1"), 0);
  EXPECT_EQ(s->parse_action("E5"), 24);
  EXPECT_EQ(s->parse_action("b1"), 1);
  EXPECT_EQ(s->parse_action("a2"), 5);
  EXPECT_EQ(s->parse_action(" Swap "), 25);
  EXPECT_EQ(s->action_to_string(1, 25), "swap");
  EXPECT_EQ(s->action_to_string(0, 7), "c2");
  for (Action a = 0; a <= 25; ++a) EXPECT_EQ(s->parse_action(s->action_to_string(a % 2, a)), a);
  std::string error;
  EXPECT_FALSE(s->parse_action("f1", &error));
  EXPECT_NE(error.find("off the board"), std::string::npos) << error;
  EXPECT_NE(error.find("swap"), std::string::npos) << error;
  EXPECT_FALSE(s->parse_action("a6", &error));
  EXPECT_FALSE(s->parse_action("pass", &error));
  auto big = make(19, false)->new_initial_state();
  EXPECT_EQ(big->parse_action("s19"), 360);
  EXPECT_EQ(big->action_to_string(0, 360), "s19");
  EXPECT_EQ(big->action_to_string(0, 18), "s1");
}

TEST(Hex, SerializationRoundTripsAndChecksLegality) {
  auto g = make(5, true);
  EXPECT_EQ(g->new_initial_state()->serialize(), "");
  auto s = play(*g, {"c3", "swap", "d4", "a1"});
  EXPECT_EQ(s->serialize(), "c3 swap d4 a1");
  auto r = g->deserialize("  C3  swap\td4 a1 ");
  EXPECT_EQ(r->serialize(), s->serialize());
  EXPECT_EQ(r->hash(), s->hash());
  EXPECT_EQ(r->to_string(), s->to_string());
  EXPECT_EQ(g->deserialize("b4 swap")->serialize(), "b4 swap");
  auto expect_error = [&](const Game& game, const std::string& text, const std::string& part) {
    try {
      game.deserialize(text);
      ADD_FAILURE() << "no error for '" << text << "'";
    } catch (const util::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_error(*g, "c3 c3", "move 2: cell c3 is already occupied");
  expect_error(*g, "swap", "move 1: swap is only allowed as the second move");
  expect_error(*g, "c3 d4 swap", "move 3: swap is only allowed");
  expect_error(*g, "c3 swap swap", "move 3");
  expect_error(*g, "c3 z9", "move 2: 'z9' is off the board");
  expect_error(*g, "c3 x", "move 2");
  expect_error(*make(5, false), "c3 swap", "move 2: swap is not allowed: the swap rule is off");
  expect_error(*make(5, false), "c1 a1 c2 a2 c3 a3 c4 a4 c5 a5", "move 10: the game already ended");
  try {
    play(*g, {"c3"})->apply_checked(*g->new_initial_state()->parse_action("c3"));
    ADD_FAILURE() << "c3 twice accepted";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cell c3 is already occupied"), std::string::npos) << e.what();
  }
  auto done = make(5, false)->deserialize("c1 a1 c2 a2 c3 a3 c4 a4 c5");
  EXPECT_TRUE(done->is_terminal());
  EXPECT_EQ(done->returns(), (std::vector<double>{1.0, -1.0}));
}

TEST(Hex, ToStringDrawsTheRhombus) {
  auto g = make(5, true);
  auto s = play(*g, {"a1", "swap", "b2"});
  EXPECT_EQ(s->to_string(),
            "   a b c d e\n"
            " 1 O . . . .\n"
            "  2 . X . . .\n"
            "   3 . . . . .\n"
            "    4 . . . . .\n"
            "     5 . . . . .\n"
            "White (O) to move. Black joins top and bottom (rows 1-5), White joins left and right (columns a-e).\n");
  auto t = play(*g, {"c3"});
  EXPECT_NE(t->to_string().find("White (O) to move (may swap)."), std::string::npos);
  auto big = make(11, false)->new_initial_state();
  const std::string text = big->to_string();
  EXPECT_NE(text.find("\n         10 . . ."), std::string::npos) << text;
  EXPECT_NE(text.find("\n          11 . . ."), std::string::npos) << text;
  auto won = play(*make(5, false), {"c1", "a1", "c2", "a2", "c3", "a3", "c4", "a4", "c5"});
  EXPECT_NE(won->to_string().find("Black (X) has won."), std::string::npos);
}

TEST(Hex, SymmetriesAreIdentityAndHalfTurn) {
  auto g = make(7, true);
  EXPECT_EQ(g->symmetries(), (std::vector<Symmetry>{Symmetry::kIdentity, Symmetry::kRotate180}));
  EXPECT_EQ(g->transform_action(Symmetry::kRotate180, 49), 49);  // swap
  EXPECT_EQ(g->transform_action(Symmetry::kRotate180, 0), 48);   // a1 <-> g7
  // The transpose is not one: Black's winning column becomes a row, which does not win.
  auto column = play(*make(5, false), {"c1", "a1", "c2", "a2", "c3", "a3", "c4", "a4", "c5"});
  EXPECT_TRUE(column->is_terminal());
  auto row = play(*make(5, false), {"a3", "a1", "b3", "b1", "c3", "c1", "d3", "d1", "e3"});
  EXPECT_FALSE(row->is_terminal());
}

TEST(Hex, RandomPlayoutInvariants) {
  testing::check_random_playouts(*make(5, true), 600, 1);
  testing::check_random_playouts(*make(5, false), 400, 2);
  testing::check_random_playouts(*make(7, true), 300, 3);
  testing::check_random_playouts(*make(7, false), 200, 4);
  testing::check_random_playouts(*make(11, true), 40, 5);
}

TEST(Hex, Symmetries) {
  testing::check_symmetries(*make(5, true), 100, 6);
  testing::check_symmetries(*make(5, false), 100, 7);
  testing::check_symmetries(*make(7, true), 60, 8);
  testing::check_symmetries(*make(7, false), 60, 9);
  testing::check_symmetries(*make(11, true), 15, 10);
}

}  // namespace
}  // namespace pz::games
