#include "games/gomoku.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

#include "games/perft.h"
#include "tests/games/game_properties.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::games {
namespace {

std::shared_ptr<const Game> make(int size = 15, const std::string& variant = "gomoku") {
  return testing::make_from_entry(gomoku_entry(), {{"size", std::to_string(size)}, {"variant", variant}});
}

std::unique_ptr<State> play(const Game& game, const std::vector<std::string>& moves) {
  return testing::play_moves(game, moves);
}

const GomokuState& gomoku(const State& s) { return static_cast<const GomokuState&>(s); }

// ---------------------------------------------------------------------------------------
// A deliberately plain reference: a 2D array [column][row from the bottom], the turn order
// written as an explicit pattern, and a scan of the WHOLE board for lines after each move.
struct NaiveGomoku {
  int size;
  bool connect6;
  int cell[19][19] = {};  // [x][row from bottom], 0 empty, 1 black, 2 white
  int moves = 0;
  int winner = 0;

  NaiveGomoku(int s, bool c6) : size(s), connect6(c6) {}

  // Whose stone is number k: gomoku B W B W ...; connect6 B WW BB WW BB ...
  int colour_of(int k) const {
    if (!connect6) return k % 2 == 0 ? 1 : 2;
    if (k == 0) return 1;
    const int turn = (k - 1) / 2;  // 0 for stones 1-2 (White), 1 for 3-4 (Black), ...
    return turn % 2 == 0 ? 2 : 1;
  }
  bool full() const { return moves == size * size; }
  bool over() const { return winner != 0 || full(); }
  // Any line of `need` stones of `colour` anywhere on the board.
  bool has_line(int colour, int need) const {
    const int dirs[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    for (int x = 0; x < size; ++x)
      for (int r = 0; r < size; ++r)
        for (auto& d : dirs) {
          int k = 0;
          while (k < need) {
            const int xx = x + k * d[0], rr = r + k * d[1];
            if (xx < 0 || xx >= size || rr < 0 || rr >= size || cell[xx][rr] != colour) break;
            ++k;
          }
          if (k == need) return true;
        }
    return false;
  }
  // In the real game's numbering: (size - row) * size + x.
  int action(int x, int r) const { return (size - 1 - r) * size + x; }
  std::vector<int> legal() const {
    std::vector<int> out;
    if (over()) return out;
    for (int x = 0; x < size; ++x)
      for (int r = 0; r < size; ++r)
        if (cell[x][r] == 0) out.push_back(action(x, r));
    std::sort(out.begin(), out.end());
    return out;
  }
  void play(int a) {
    const int x = a % size, r = size - 1 - a / size;
    const int colour = colour_of(moves);
    cell[x][r] = colour;
    ++moves;
    if (has_line(colour, connect6 ? 6 : 5)) winner = colour;
  }
};

std::uint64_t naive_perft(const NaiveGomoku& s, int depth) {
  if (depth == 0) return 1;
  if (s.over()) return 0;
  std::uint64_t n = 0;
  for (int a : s.legal()) {
    NaiveGomoku c = s;
    c.play(a);
    n += naive_perft(c, depth - 1);
  }
  return n;
}

std::uint64_t falling(std::uint64_t n, int d) {
  std::uint64_t r = 1;
  for (int i = 0; i < d; ++i) r *= n - static_cast<std::uint64_t>(i);
  return r;
}

// ---------------------------------------------------------------------------------------

TEST(Gomoku, InfoAndOptions) {
  auto g = make();
  EXPECT_EQ(g->info().name, "gomoku");
  EXPECT_EQ(g->info().long_name, "Gomoku");
  EXPECT_EQ(g->info().family, Family::kBoard);
  EXPECT_EQ(g->info().num_distinct_actions, 225);
  EXPECT_EQ(g->info().policy_shape, (Shape{1, 15, 15}));
  EXPECT_EQ(g->info().observation_shape, (Shape{4, 15, 15}));
  EXPECT_EQ(g->info().max_game_length, 225);
  EXPECT_EQ(g->spec().to_string(), "gomoku:size=15,variant=gomoku");
  EXPECT_EQ(g->symmetries().size(), 8u);
  auto c6 = make(19, "connect6");
  EXPECT_EQ(c6->info().long_name, "Connect6");
  EXPECT_EQ(c6->info().num_distinct_actions, 361);
  const GameEntry entry = gomoku_entry();
  EXPECT_EQ(entry.family, Family::kBoard);
  auto defaults = entry.options.resolve({}, "game 'gomoku'");
  EXPECT_EQ(defaults.get_int("size"), 15);
  EXPECT_EQ(defaults.get_string("variant"), "gomoku");
  EXPECT_THROW(entry.options.resolve({{"size", "6"}}, "game 'gomoku'"), util::UsageError);
  EXPECT_THROW(entry.options.resolve({{"size", "20"}}, "game 'gomoku'"), util::UsageError);
  EXPECT_THROW(entry.options.resolve({{"variant", "renju"}}, "game 'gomoku'"), util::UsageError);
}

TEST(Gomoku, PerftIsTheFallingFactorialBeforeAnyLineIsPossible) {
  // Black's fifth stone is ply 9, so every sequence of distinct cells of length d <= 9 is a
  // game (one that ends on its last ply still counts): perft(d) = n!/(n-d)!.
  for (int size : {7, 15}) {
    auto root_game = make(size);
    auto root = root_game->new_initial_state();
    const int n = size * size;
    for (int d = 0; d <= (size == 7 ? 4 : 3); ++d) EXPECT_EQ(perft(*root, d), falling(n, d)) << size << " " << d;
  }
  EXPECT_EQ(perft(*make(15)->new_initial_state(), 3), 225u * 224u * 223u);
  // Connect6 counts stones too (the turn structure changes who moves, not how many cells
  // are free); Black's sixth stone is ply 12.
  auto c6_game = make(7, "connect6");
  auto c6 = c6_game->new_initial_state();
  for (int d = 0; d <= 4; ++d) EXPECT_EQ(perft(*c6, d), falling(49, d)) << d;
}

TEST(Gomoku, PerftNearTheEndMatchesTheNaiveReference) {
  // From random positions with few empty cells the counts include finished games and
  // draws, so the line test matters on every leaf.
  util::Rng rng(5);
  for (const char* variant : {"gomoku", "connect6"}) {
    const bool c6 = std::string(variant) == "connect6";
    auto g = make(7, variant);
    const int n = 49;
    int checked = 0, short_counts = 0;
    while (checked < 8) {
      std::vector<int> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      auto s = g->new_initial_state();
      NaiveGomoku ref(7, c6);
      const int empties = 6;
      bool ended = false;
      for (int i = 0; i < n - empties && !ended; ++i) {
        s->apply_action(order[static_cast<size_t>(i)]);
        ref.play(order[static_cast<size_t>(i)]);
        ended = s->is_terminal();
      }
      ASSERT_EQ(ended, ref.over());
      if (ended) continue;
      for (int d = 1; d <= empties; ++d) {
        const std::uint64_t count = perft(*s, d);
        ASSERT_EQ(count, naive_perft(ref, d)) << variant << "\n" << s->to_string() << "depth " << d;
        if (count < falling(empties, d)) ++short_counts;
      }
      ++checked;
    }
    EXPECT_GT(short_counts, 0) << variant;  // the positions did exercise the line test
  }
}

TEST(Gomoku, FiveInEachDirectionWins) {
  auto g = make();
  // Black's line on the first coordinates, White plays far away on row 15 / column a.
  const std::vector<std::vector<std::string>> lines = {
      {"c3", "d3", "e3", "f3", "g3"},  // horizontal
      {"h2", "h3", "h4", "h5", "h6"},  // vertical
      {"c4", "d5", "e6", "f7", "g8"},  // diagonal up-right
      {"j9", "k8", "l7", "m6", "n5"},  // diagonal down-right
  };
  const std::vector<std::string> white = {"a15", "c15", "e15", "g15", "i15"};
  for (const auto& line : lines) {
    // Place them in a scrambled order: the last stone lands in the middle of the line.
    const int order[5] = {0, 4, 1, 3, 2};
    std::vector<std::string> moves;
    for (int i = 0; i < 5; ++i) {
      moves.push_back(line[static_cast<size_t>(order[i])]);
      if (i < 4) moves.push_back(white[static_cast<size_t>(i)]);
    }
    auto before = play(*g, std::vector<std::string>(moves.begin(), moves.end() - 1));
    EXPECT_FALSE(before->is_terminal()) << line[0];
    auto s = play(*g, moves);
    EXPECT_TRUE(s->is_terminal()) << line[0] << "\n" << s->to_string();
    EXPECT_EQ(gomoku(*s).winner(), 0);
    EXPECT_EQ(s->returns(), (std::vector<double>{1.0, -1.0}));
    EXPECT_TRUE(s->legal_actions().empty());
  }
  // White wins too.
  auto s = play(*g, {"a1", "b2", "a3", "c2", "a5", "d2", "a7", "e2", "a9"});
  EXPECT_FALSE(s->is_terminal());  // a1 a3 a5 a7 a9 has gaps
  s->apply_checked(*s->parse_action("f2"));
  EXPECT_EQ(gomoku(*s).winner(), 1);
  EXPECT_EQ(s->returns(), (std::vector<double>{-1.0, 1.0}));
}

TEST(Gomoku, FourDoesNotWinAndLinesStopAtTheEdge) {
  auto g = make();
  // Four in a row for each side: no win.
  auto s = play(*g, {"a1", "a15", "b1", "b15", "c1", "c15", "d1", "d15"});
  EXPECT_FALSE(s->is_terminal());
  // A four at the right edge does not wrap around: o8 and a7 are neighbours in the flat
  // cell numbering (119, 120) but not on the board.
  s = play(*g, {"l8", "a1", "m8", "a3", "n8", "a5", "o8", "a9", "a7"});
  EXPECT_FALSE(s->is_terminal()) << s->to_string();
  // Same for a diagonal at the top edge: one step up-right of o15 (cell 14) is cell 0, a15.
  s = play(*g, {"l12", "a1", "m13", "a3", "n14", "a5", "o15", "a7", "a15"});
  EXPECT_FALSE(s->is_terminal());
}

TEST(Gomoku, OverlinesWinInFreestyle) {
  auto g = make();
  // Black: d5 e5 f5 _ h5 i5, then g5 fills the gap for six in a row.
  auto s = play(*g, {"d5", "a15", "e5", "b15", "f5", "c15", "h5", "d15", "i5", "f15"});
  EXPECT_FALSE(s->is_terminal());
  s->apply_checked(*s->parse_action("g5"));
  EXPECT_EQ(gomoku(*s).winner(), 0);
  // And nine in a row (two fours joined by the middle stone).
  s = play(*g, {"a8", "a15", "b8", "b15", "c8", "c15", "d8", "d15", "f8", "e14", "g8", "f14", "h8", "g14", "i8", "h14"});
  EXPECT_FALSE(s->is_terminal());
  s->apply_checked(*s->parse_action("e8"));
  EXPECT_EQ(gomoku(*s).winner(), 0);
}

TEST(Gomoku, Connect6TurnStructure) {
  auto g = make(19, "connect6");
  auto s = g->new_initial_state();
  const std::vector<Player> expected = {0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0};
  for (size_t k = 0; k < expected.size(); ++k) {
    ASSERT_EQ(s->current_player(), expected[k]) << k;
    EXPECT_EQ(gomoku(*s).second_stone(), k == 2 || k == 4 || k == 6 || k == 8 || k == 10) << k;
    auto obs = s->observation(s->current_player());
    EXPECT_EQ(obs[3 * 361 + 100], gomoku(*s).second_stone() ? 1.0f : 0.0f);
    s->apply_action(static_cast<Action>(k * 2));
  }
  EXPECT_NE(s->to_string().find("Black (X) to move (second stone)."), std::string::npos) << s->to_string();
  // The stones' colours follow the turns.
  for (size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(gomoku(*s).owner(static_cast<int>(k * 2)), expected[k]);
  EXPECT_NE(g->new_initial_state()->to_string().find("Black (X) to move (one stone)."), std::string::npos);
  // Gomoku simply alternates.
  auto t_game = make(15);
  auto t = t_game->new_initial_state();
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(t->current_player(), k % 2);
    EXPECT_FALSE(gomoku(*t).second_stone());
    t->apply_action(k);
  }
}

TEST(Gomoku, Connect6SixWinsFiveDoesNot) {
  auto g = make(19, "connect6");
  // Black: j10 | W: a1 a2 | B: k10 l10 | W: a4 a5 | B: m10 n10 (five) | W: a7 a8 | B: o10 (six).
  auto s = play(*g, {"j10", "a1", "a2", "k10", "l10", "a4", "a5", "m10", "n10", "a7", "a8"});
  EXPECT_FALSE(s->is_terminal()) << "five in a row does not win Connect6";
  EXPECT_EQ(s->current_player(), 0);
  s->apply_checked(*s->parse_action("o10"));
  EXPECT_TRUE(s->is_terminal()) << "the first stone of the turn wins; the second is not played";
  EXPECT_EQ(gomoku(*s).winner(), 0);
  EXPECT_EQ(s->returns(), (std::vector<double>{1.0, -1.0}));
  EXPECT_EQ(s->move_number(), 12);
  EXPECT_NE(s->to_string().find("has won with 6 in a row"), std::string::npos);
  // White wins on the second stone of a turn, with seven (an overline): e1 joins a1-d1
  // to f1-g1.
  auto t = play(*g, {"s19", "a1", "b1", "s17", "s15", "c1", "d1", "s13", "s11", "f1", "g1", "s9", "s7", "r19"});
  EXPECT_FALSE(t->is_terminal());
  EXPECT_EQ(t->current_player(), 1);
  EXPECT_TRUE(gomoku(*t).second_stone());
  t->apply_checked(*t->parse_action("e1"));
  EXPECT_EQ(gomoku(*t).winner(), 1);
  EXPECT_EQ(t->returns(), (std::vector<double>{-1.0, 1.0}));
}

TEST(Gomoku, FullBoardIsADraw) {
  // Random fillings of 7×7 (in a random order, alternating colours) that the naive
  // reference finds free of fives: the real game must call them draws.
  auto g = make(7);
  util::Rng rng(17);
  int found = 0;
  for (int attempt = 0; attempt < 20000 && found < 3; ++attempt) {
    std::vector<int> order(49);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    NaiveGomoku ref(7, false);
    for (int a : order) {
      if (ref.over()) break;
      ref.play(a);
    }
    if (ref.winner != 0) continue;
    ++found;
    auto s = g->new_initial_state();
    for (int a : order) s->apply_checked(a);
    EXPECT_TRUE(s->is_terminal());
    EXPECT_EQ(gomoku(*s).winner(), -1);
    EXPECT_EQ(s->returns(), (std::vector<double>{0.0, 0.0}));
    EXPECT_NE(s->to_string().find("Draw: the board is full."), std::string::npos);
    EXPECT_NE(s->explain_illegal(0).find("draw"), std::string::npos);
  }
  EXPECT_EQ(found, 3);
}

TEST(Gomoku, MayEndGameIsExactlyTheWinningAndLastMoves) {
  testing::check_may_end_game_exact(*make(7), 200, 3);  // small: many full-board draws
  testing::check_may_end_game_exact(*make(9, "connect6"), 50, 4);
  testing::check_may_end_game_exact(*make(15), 5, 5);
}

TEST(Gomoku, MatchesNaiveReferenceOnRandomGames) {
  util::Rng rng(3);
  std::vector<Action> legal;
  for (auto [size, variant, games] : {std::tuple{7, "gomoku", 600}, std::tuple{7, "connect6", 600},
                                      std::tuple{9, "gomoku", 200}, std::tuple{10, "connect6", 150}}) {
    const bool c6 = std::string(variant) == "connect6";
    auto g = make(size, variant);
    int wins[3] = {0, 0, 0};
    for (int t = 0; t < games; ++t) {
      auto s = g->new_initial_state();
      NaiveGomoku ref(size, c6);
      while (true) {
        s->legal_actions(legal);
        const auto expected = ref.legal();
        ASSERT_EQ(legal, std::vector<Action>(expected.begin(), expected.end()));
        ASSERT_EQ(s->is_terminal(), ref.over());
        if (ref.over()) {
          ASSERT_EQ(gomoku(*s).winner() + 1, ref.winner);
          ++wins[ref.winner];
          break;
        }
        ASSERT_EQ(s->current_player(), ref.colour_of(ref.moves) - 1);
        const Action a = legal[rng.below(static_cast<std::uint32_t>(legal.size()))];
        s->apply_action(a);
        ref.play(a);
      }
    }
    EXPECT_GT(wins[1], 0) << size << variant;
    EXPECT_GT(wins[2], 0) << size << variant;
  }
}

TEST(Gomoku, NotationRoundTrips) {
  auto g = make(15);
  auto s = g->new_initial_state();
  EXPECT_EQ(s->parse_action("a1"), 14 * 15);      // bottom-left
  EXPECT_EQ(s->parse_action("O15"), 14);          // top-right
  EXPECT_EQ(s->parse_action("a15"), 0);           // top-left
  EXPECT_EQ(s->parse_action(" H8 "), 7 * 15 + 7);  // centre
  EXPECT_EQ(s->action_to_string(0, 7 * 15 + 8), "i8");  // no letter skipped
  for (Action a = 0; a < 225; ++a) EXPECT_EQ(s->parse_action(s->action_to_string(0, a)), a);
  std::string error;
  EXPECT_FALSE(s->parse_action("p1", &error));
  EXPECT_NE(error.find("a1 to o15"), std::string::npos) << error;
  EXPECT_FALSE(s->parse_action("a16", &error));
  EXPECT_FALSE(s->parse_action("a0", &error));
  EXPECT_FALSE(s->parse_action("pass", &error));
  auto big_game = make(19, "connect6");
  auto big = big_game->new_initial_state();
  EXPECT_EQ(big->parse_action("s19"), 18);
  EXPECT_EQ(big->action_to_string(0, 360), "s1");
}

TEST(Gomoku, SerializationRoundTripsAndChecksLegality) {
  auto g = make(15);
  EXPECT_EQ(g->new_initial_state()->serialize(), "");
  auto s = play(*g, {"h8", "h9", "i9"});
  EXPECT_EQ(s->serialize(), "h8 h9 i9");
  auto r = g->deserialize("  H8\th9   i9 ");
  EXPECT_EQ(r->serialize(), s->serialize());
  EXPECT_EQ(r->hash(), s->hash());
  EXPECT_EQ(r->to_string(), s->to_string());
  auto expect_error = [&](const Game& game, const std::string& text, const std::string& part) {
    try {
      game.deserialize(text);
      ADD_FAILURE() << "no error for '" << text << "'";
    } catch (const util::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_error(*g, "h8 h8", "move 2: cell h8 is already occupied");
  expect_error(*g, "h8 z9", "move 2: 'z9' is off the board");
  expect_error(*g, "h8 x", "move 2");
  expect_error(*g, "a1 a15 b1 b15 c1 c15 d1 d15 e1 e15", "move 10: the game already ended (Black (X) made 5 in a row)");
  auto c6 = make(19, "connect6");
  auto t = play(*c6, {"j10", "a1", "a2", "k10"});
  EXPECT_EQ(t->serialize(), "j10 a1 a2 k10");
  EXPECT_EQ(c6->deserialize(t->serialize())->hash(), t->hash());
  EXPECT_EQ(c6->deserialize(t->serialize())->current_player(), 0);
}

TEST(Gomoku, HashTracksStonesMoverAndSecondStone) {
  auto g = make(15);
  auto a = play(*g, {"h8", "h9", "i9", "a1"}), b = play(*g, {"i9", "a1", "h8", "h9"});
  EXPECT_EQ(a->hash(), b->hash());  // transposition
  EXPECT_NE(a->hash(), play(*g, {"h8", "h9", "a1", "i9"})->hash());  // colours exchanged
  EXPECT_NE(g->new_initial_state()->hash(), play(*g, {"h8"})->hash());
  // Connect6: B j10, W a1 — White to move its second stone; compare with gomoku's state
  // with the same stones, where Black is to move.
  auto c6 = make(15, "connect6");
  auto c = play(*c6, {"j10", "a1"}), d = play(*g, {"j10", "a1"});
  EXPECT_NE(c->hash(), d->hash());
  EXPECT_EQ(c->current_player(), 1);
  EXPECT_EQ(d->current_player(), 0);
  // Transposition within a Connect6 turn.
  EXPECT_EQ(play(*c6, {"j10", "a1", "a2"})->hash(), play(*c6, {"j10", "a2", "a1"})->hash());
}

TEST(Gomoku, ObservationPlanes) {
  auto g = make(15);
  auto s = play(*g, {"a15"});  // cell 0
  auto black = s->observation(0), white = s->observation(1);
  const int n = 225;
  EXPECT_EQ(black[0], 1.0f);
  EXPECT_EQ(black[n], 0.0f);
  EXPECT_EQ(white[0], 0.0f);
  EXPECT_EQ(white[n], 1.0f);
  EXPECT_EQ(black[2 * n + 50], 1.0f);
  EXPECT_EQ(white[2 * n + 50], 0.0f);
  for (int c = 0; c < n; ++c) EXPECT_EQ(black[3 * n + c], 0.0f);
}

TEST(Gomoku, ToStringDrawsTheBoard) {
  auto g = make(7);
  auto s = play(*g, {"a1", "g7", "d4"});
  EXPECT_EQ(s->to_string(),
            " 7 . . . . . . O\n"
            " 6 . . . . . . .\n"
            " 5 . . . . . . .\n"
            " 4 . . . X . . .\n"
            " 3 . . . . . . .\n"
            " 2 . . . . . . .\n"
            " 1 X . . . . . .\n"
            "   a b c d e f g\n"
            "White (O) to move. 5 or more in a row wins.\n");
  auto big_game = make(15);
  auto big = big_game->new_initial_state();
  EXPECT_NE(big->to_string().find("15 . ."), std::string::npos);
}

TEST(Gomoku, RandomPlayoutInvariants) {
  testing::check_random_playouts(*make(7), 400, 1);
  testing::check_random_playouts(*make(7, "connect6"), 400, 2);
  testing::check_random_playouts(*make(15), 30, 3);
  testing::check_random_playouts(*make(19, "connect6"), 10, 4);
}

TEST(Gomoku, Symmetries) {
  testing::check_symmetries(*make(7), 40, 5);
  testing::check_symmetries(*make(8, "connect6"), 40, 6);
  testing::check_symmetries(*make(15), 6, 7);
}

}  // namespace
}  // namespace pz::games
