#include "games/breakthrough.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>

#include "games/perft.h"
#include "tests/games/game_properties.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::games {
namespace {

std::shared_ptr<const Game> make(int rows = 8, int columns = 8) {
  util::Spec spec{"breakthrough", {{"columns", std::to_string(columns)}, {"rows", std::to_string(rows)}}};
  return std::make_shared<BreakthroughGame>(spec, rows, columns);
}

const BreakthroughState& bt(const State& s) { return static_cast<const BreakthroughState&>(s); }

std::unique_ptr<State> play(const Game& game, const std::vector<std::string>& moves) {
  return testing::play_moves(game, moves);
}

// Joins board rows given top to bottom into a serialised position.
std::string position(const std::vector<std::string>& rows, char side, int moves) {
  std::string out;
  for (const auto& r : rows) out += r;
  return out + " " + side + " " + std::to_string(moves);
}

// ---------------------------------------------------------------------------------------
// A deliberately naive reference: a 2D character board, moves found square by square.

struct RefMove {
  int fy, fx, ty, tx;
};

struct Ref {
  int rows, columns;
  char board[8][8];
  int side = 0;     // 0 White (moves up, towards y = 0), 1 Black
  int winner = -1;
  bool stalemate_seen = false;  // the mover had pawns but no move (never happens)

  Ref(int r, int c) : rows(r), columns(c) {
    for (int y = 0; y < rows; ++y) {
      for (int x = 0; x < columns; ++x) board[y][x] = y < 2 ? 'b' : y >= rows - 2 ? 'w' : '.';
    }
  }
  char own() const { return side == 0 ? 'w' : 'b'; }
  char enemy() const { return side == 0 ? 'b' : 'w'; }

  std::vector<RefMove> moves() const {
    std::vector<RefMove> out;
    if (winner >= 0) return out;
    for (int y = 0; y < rows; ++y) {
      for (int x = 0; x < columns; ++x) {
        if (board[y][x] != own()) continue;
        const int ty = side == 0 ? y - 1 : y + 1;
        if (ty < 0 || ty >= rows) continue;
        for (int dx = -1; dx <= 1; ++dx) {
          const int tx = x + dx;
          if (tx < 0 || tx >= columns) continue;
          const char t = board[ty][tx];
          if (dx == 0 ? t == '.' : t != own()) out.push_back({y, x, ty, tx});
        }
      }
    }
    return out;
  }

  void apply(const RefMove& m) {
    board[m.ty][m.tx] = own();
    board[m.fy][m.fx] = '.';
    if (m.ty == (side == 0 ? 0 : rows - 1)) winner = side;
    int enemies = 0;
    for (int y = 0; y < rows; ++y) {
      for (int x = 0; x < columns; ++x) enemies += board[y][x] == enemy();
    }
    if (enemies == 0) winner = side;
    side = 1 - side;
    if (winner < 0 && moves().empty()) {
      stalemate_seen = true;
      winner = 1 - side;
    }
  }

  std::string square(int y, int x) const { return std::string(1, static_cast<char>('a' + x)) + std::to_string(rows - y); }
  std::string name(const RefMove& m) const {
    return square(m.fy, m.fx) + (board[m.ty][m.tx] == enemy() ? "x" : "-") + square(m.ty, m.tx);
  }
  // The action id the encoding of the API documentation gives this move.
  Action encode(const RefMove& m) const { return (m.tx - m.fx + 1) * rows * columns + m.fy * columns + m.fx; }
};

// Plays random games with the real game and the reference side by side and compares
// board, legal moves with their notation, and outcome at every node.
void compare_with_reference(int rows, int columns, int num_games, std::uint64_t seed) {
  auto game = make(rows, columns);
  util::Rng rng(seed);
  int white_wins = 0, captures_of_last_pawn = 0;
  for (int g = 0; g < num_games; ++g) {
    auto state = game->new_initial_state();
    Ref ref(rows, columns);
    while (true) {
      for (int y = 0; y < rows; ++y) {
        for (int x = 0; x < columns; ++x) {
          const char c = ref.board[y][x];
          ASSERT_EQ(bt(*state).owner(y, x), c == 'w' ? 0 : c == 'b' ? 1 : -1) << state->to_string();
        }
      }
      ASSERT_FALSE(ref.stalemate_seen);
      ASSERT_EQ(state->is_terminal(), ref.winner >= 0) << state->to_string();
      if (ref.winner >= 0) break;
      ASSERT_EQ(state->current_player(), ref.side);
      auto ref_moves = ref.moves();
      std::map<Action, std::string> expected;
      for (const auto& m : ref_moves) expected[ref.encode(m)] = ref.name(m);
      auto legal = state->legal_actions();
      ASSERT_EQ(legal.size(), expected.size()) << state->to_string();
      for (Action a : legal) {
        ASSERT_TRUE(expected.count(a)) << "unexpected action " << a << "\n" << state->to_string();
        ASSERT_EQ(state->action_to_string(state->current_player(), a), expected[a]);
      }
      // Every other game prefers captures, so that games also end by taking the last pawn.
      std::vector<RefMove> captures;
      for (const auto& m : ref_moves) {
        if (ref.board[m.ty][m.tx] == ref.enemy()) captures.push_back(m);
      }
      const auto& pool = g % 2 == 1 && !captures.empty() ? captures : ref_moves;
      const auto& m = pool[rng.below(static_cast<std::uint32_t>(pool.size()))];
      state->apply_action(ref.encode(m));
      ref.apply(m);
    }
    ASSERT_EQ(bt(*state).winner(), ref.winner);
    ASSERT_EQ(state->returns(), ref.winner == 0 ? (std::vector<double>{1, -1}) : (std::vector<double>{-1, 1}));
    white_wins += ref.winner == 0;
    captures_of_last_pawn += std::popcount(bt(*state).pawns(1 - ref.winner)) == 0;
  }
  // Both colours win sometimes, and some games end by capturing the last pawn.
  EXPECT_GT(white_wins, 0);
  EXPECT_LT(white_wins, num_games);
  EXPECT_GT(captures_of_last_pawn, 0);
}

// ---------------------------------------------------------------------------------------

std::uint64_t ref_perft(const Ref& ref, int depth) {
  return testing::reference_perft(
      ref, depth, [](const Ref& r) { return r.moves(); }, [](Ref& r, const RefMove& m) { r.apply(m); });
}

TEST(Breakthrough, HandCountsOfTheOpening) {
  // Depth 1: of the 8 front pawns, 6 have 3 moves and the 2 edge pawns 2: 22. The armies
  // are four rows apart, so for two moves each nobody's moves depend on the other's: depth
  // 2 is 22·22. After any first move of a side it has 23 moves: the advanced pawn has
  // deg(x') moves (3, or 2 on an edge); the front row lost the moved pawn's deg(x) moves and
  // one move for each of its other deg(x')-1 pawns next to x'; the back-row pawns next to
  // the hole, deg(x) of them, gained one each. 22 + deg(x') - deg(x) - (deg(x')-1) + deg(x)
  // = 23. So depth 3 is 22·22·23 and depth 4 is 22·23·22·23.
  const std::uint64_t hand[] = {1, 22, 22 * 22, 22 * 22 * 23, 22 * 23 * 22 * 23};
  Ref ref(8, 8);
  for (int d = 0; d <= 4; ++d) EXPECT_EQ(ref_perft(ref, d), hand[d]) << "reference, depth " << d;
}

TEST(Breakthrough, PerftMatchesTheReference) {
  auto game = make();
  auto root = game->new_initial_state();
  const std::uint64_t hand[] = {1, 22, 484, 11132, 256036};
  for (int d = 0; d <= 4; ++d) EXPECT_EQ(perft(*root, d), hand[d]) << "depth " << d;
  // Depth 5 is the first with contact (captures): compare with the reference.
  Ref ref(8, 8);
  EXPECT_EQ(ref_perft(ref, 5), 6182818u);
  EXPECT_EQ(perft(*root, 5), 6182818u);
  // Small boards, where the armies meet at once.
  for (auto [r, c] : {std::pair{5, 4}, std::pair{6, 6}, std::pair{5, 8}}) {
    auto small = make(r, c);
    auto s = small->new_initial_state();
    Ref sref(r, c);
    for (int d = 1; d <= (c == 8 ? 4 : 5); ++d) EXPECT_EQ(perft(*s, d), ref_perft(sref, d)) << r << "x" << c << " depth " << d;
  }
}

TEST(Breakthrough, RandomGamesMatchTheReference) {
  compare_with_reference(8, 8, 400, 11);
  compare_with_reference(6, 6, 800, 12);
  compare_with_reference(5, 4, 1200, 13);
  compare_with_reference(7, 5, 300, 14);
  compare_with_reference(5, 8, 300, 15);
}

TEST(Breakthrough, InitialPositionAndSerialisedForm) {
  auto game = make();
  auto s = game->new_initial_state();
  EXPECT_EQ(s->current_player(), 0);  // White moves first
  EXPECT_EQ(s->serialize(), std::string(16, 'b') + std::string(32, '.') + std::string(16, 'w') + " w 0");
  EXPECT_EQ(make(5, 4)->new_initial_state()->serialize(), "bbbbbbbb....wwwwwwww w 0");
  EXPECT_EQ(s->to_string(),
            "   a b c d e f g h\n"
            " 8 B B B B B B B B 8\n"
            " 7 B B B B B B B B 7\n"
            " 6 . . . . . . . . 6\n"
            " 5 . . . . . . . . 5\n"
            " 4 . . . . . . . . 4\n"
            " 3 . . . . . . . . 3\n"
            " 2 W W W W W W W W 2\n"
            " 1 W W W W W W W W 1\n"
            "   a b c d e f g h\n"
            "White to move (0 moves played)\n");
  const auto& info = game->info();
  EXPECT_EQ(info.num_distinct_actions, 192);
  EXPECT_EQ(info.policy_shape, (Shape{3, 8, 8}));
  EXPECT_EQ(info.observation_shape, (Shape{3, 8, 8}));
}

TEST(Breakthrough, CapturesDiagonally) {
  auto game = make(5, 4);
  auto s = game->deserialize(position({"b...", "....", ".b..", "w...", "...."}, 'w', 10));
  // a2 may step to a3 or capture on b3; straight ahead is free.
  std::vector<std::string> names;
  for (Action a : s->legal_actions()) names.push_back(s->action_to_string(0, a));
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a2-a3", "a2xb3"}));
  s->apply_checked(*s->parse_action("a2xb3"));
  EXPECT_EQ(bt(*s).owner(2, 1), 0);
  EXPECT_EQ(std::popcount(bt(*s).pawns(1)), 1);
  EXPECT_FALSE(s->is_terminal());
  EXPECT_EQ(s->current_player(), 1);
  // Black to move: a5-b4 is a plain diagonal step, written with '-'.
  EXPECT_EQ(s->action_to_string(1, *s->parse_action("a5-b4")), "a5-b4");
}

TEST(Breakthrough, CannotCaptureStraightAhead) {
  auto game = make(5, 4);
  auto s = game->deserialize(position({"b...", "....", "b...", "w...", "...."}, 'w', 10));
  auto straight = s->parse_action("a2-a3");
  ASSERT_TRUE(straight);
  EXPECT_FALSE(s->is_legal(*straight));
  EXPECT_THROW(s->apply_checked(*straight), util::UsageError);
  EXPECT_EQ(s->legal_actions().size(), 1u);  // only a2-b3
  EXPECT_EQ(s->action_to_string(0, s->legal_actions()[0]), "a2-b3");
}

TEST(Breakthrough, CannotMoveStraightIntoAPawnNorOntoOwnPawns) {
  auto game = make(5, 4);
  // White b2 is hemmed in by its own pawns on a3, b3 and c3; b3 cannot go straight into
  // the Black pawn on b4, which a3 and c3 can capture.
  auto s = game->deserialize(position({"b...", ".b..", "www.", ".w..", "...."}, 'w', 10));
  std::vector<std::string> names;
  for (Action a : s->legal_actions()) names.push_back(s->action_to_string(0, a));
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a3-a4", "a3xb4", "b3-a4", "b3-c4", "c3-c4", "c3-d4", "c3xb4"}));
  EXPECT_FALSE(s->is_legal(*s->parse_action("b2-b3")));
  EXPECT_FALSE(s->is_legal(*s->parse_action("b2-a3")));
  EXPECT_FALSE(s->is_legal(*s->parse_action("b3-b4")));
}

TEST(Breakthrough, WinByReachingTheFarRow) {
  auto game = make(5, 4);
  auto s = game->deserialize(position({"....", ".w..", "....", "..b.", "...."}, 'w', 20));
  s->apply_checked(*s->parse_action("b4-b5"));
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(s->returns(), (std::vector<double>{1.0, -1.0}));
  EXPECT_TRUE(s->legal_actions().empty());
  EXPECT_NE(s->to_string().find("White has won"), std::string::npos);
  // Black wins the same way, on row 1 (and also by capturing into it).
  auto b = game->deserialize(position({"....", ".w..", "....", "..b.", "w..."}, 'b', 21));
  b->apply_checked(*b->parse_action("c2-d1"));
  EXPECT_TRUE(b->is_terminal());
  EXPECT_EQ(b->returns(), (std::vector<double>{-1.0, 1.0}));
  // A game won on the far row round-trips through serialisation.
  auto again = game->deserialize(b->serialize());
  EXPECT_TRUE(again->is_terminal());
  EXPECT_EQ(again->returns(), b->returns());
  EXPECT_EQ(again->hash(), b->hash());
}

TEST(Breakthrough, WinByCapturingTheLastPawn) {
  auto game = make(6, 6);
  auto s = game->deserialize(position({"......", "......", "......", "...b..", "..w...", "w....."}, 'w', 30));
  EXPECT_FALSE(s->is_terminal());
  s->apply_checked(*s->parse_action("c2xd3"));
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(bt(*s).winner(), 0);
  EXPECT_EQ(s->returns(), (std::vector<double>{1.0, -1.0}));
}

TEST(Breakthrough, NotationRoundTrips) {
  auto game = make();
  auto s = game->new_initial_state();
  // a2 is (y = 6, x = 0): straight is direction 1.
  EXPECT_EQ(s->parse_action("a2-a3"), 1 * 64 + 48);
  EXPECT_EQ(s->parse_action("A2A3"), 1 * 64 + 48);
  EXPECT_EQ(s->parse_action(" a2xa3 "), 1 * 64 + 48);  // either separator is read
  EXPECT_EQ(s->parse_action("b2-a3"), 0 * 64 + 49);
  EXPECT_EQ(s->parse_action("b2-c3"), 2 * 64 + 49);
  EXPECT_EQ(s->action_to_string(0, 1 * 64 + 48), "a2-a3");
  // Black's forward is down the board; the absolute direction 0 still means towards a.
  auto b = play(*game, {"a2-a3"});
  EXPECT_EQ(b->parse_action("b7-a6"), 0 * 64 + 9);
  EXPECT_EQ(b->action_to_string(1, 0 * 64 + 9), "b7-a6");
  EXPECT_EQ(b->parse_action("h7-h6"), 1 * 64 + 15);
  // Captures print with 'x' and read with either separator.
  auto c = play(*game, {"b2-b3", "c7-c6", "b3-b4", "c6-c5", "b4-b5"});
  EXPECT_EQ(c->action_to_string(1, *c->parse_action("c5-b4")), "c5-b4");
  c = play(*game, {"b2-b3", "c7-c6", "b3-b4", "c6-c5"});
  auto capture = c->parse_action("b4xc5");
  ASSERT_TRUE(capture);
  EXPECT_EQ(c->parse_action("b4-c5"), capture);
  EXPECT_EQ(c->action_to_string(0, *capture), "b4xc5");
  EXPECT_TRUE(c->is_legal(*capture));
  auto d = play(*game, {"b2-b3", "c7-c6", "b3-b4", "c6-c5", "b4xc5"});
  EXPECT_EQ(std::popcount(bt(*d).pawns(1)), 15);
}

TEST(Breakthrough, NotationErrors) {
  auto game = make();
  auto s = game->new_initial_state();
  auto error_of = [&](const State& st, const std::string& text) {
    std::string error;
    EXPECT_FALSE(st.parse_action(text, &error)) << text;
    return error;
  };
  EXPECT_NE(error_of(*s, "a2-a4").find("one row up"), std::string::npos);
  EXPECT_NE(error_of(*s, "a2-c3").find("one row up"), std::string::npos);
  EXPECT_NE(error_of(*s, "a3-a2").find("not a move for White"), std::string::npos);
  EXPECT_NE(error_of(*s, "i2-i3").find("off the board"), std::string::npos);
  EXPECT_NE(error_of(*s, "a8-a9").find("bad destination square"), std::string::npos);
  EXPECT_NE(error_of(*s, "hello").find("is not"), std::string::npos);
  EXPECT_NE(error_of(*s, "").find("expected a move"), std::string::npos);
  EXPECT_NE(error_of(*s, "a2").find("expected a move"), std::string::npos);
  EXPECT_NE(error_of(*s, "a2-").find("bad destination square"), std::string::npos);
  auto b = play(*game, {"a2-a3"});
  EXPECT_NE(error_of(*b, "a7-a8").find("down (towards row 1)"), std::string::npos);
  EXPECT_TRUE(b->parse_action("a7-a6"));
  // On a smaller board the columns and rows end sooner.
  auto small = make(5, 4)->new_initial_state();
  EXPECT_NE(error_of(*small, "e2-e3").find("off the board"), std::string::npos);
  EXPECT_NE(error_of(*small, "a5-a6").find("off the board"), std::string::npos);
}

TEST(Breakthrough, DeserializeValidates) {
  auto game = make(5, 4);
  auto expect_error = [&](const std::string& text, const std::string& fragment) {
    try {
      game->deserialize(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const util::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error("", "has 0 fields");
  expect_error("bbbbbbbb....wwwwwwww w", "has 2 fields");
  expect_error("bbbbbbbb....wwwwwww w 0", "needs 20");
  expect_error("bbbbbbbb....wwwwwwwz w 0", "bad character 'z'");
  expect_error("bbbbbbbb....wwwwwwww x 0", "use 'w' (White) or 'b' (Black)");
  expect_error("bbbbbbbb....wwwwwwww w -1", "not a number from 0");
  expect_error("bbbbbbbb....wwwwwwww w abc", "not a number from 0");
  expect_error("bbbbbbbb....wwwwwwww w 1", "cannot be to move after 1 moves");
  expect_error("bbbbbbbb....wwwwwwww b 2", "cannot be to move after 2 moves");
  expect_error("bbbbbbbbw...wwwwwwww w 0", "more than the 8");
  expect_error(".................... w 0", "no pawns");
  expect_error(position({"w...", "....", "....", "....", "b..."}, 'b', 9), "both players have won");
  expect_error("w......b............ w 8", "White has already won");
  expect_error("........b........... b 9", "Black has already won");
  // A finished game is accepted with the loser to move.
  auto s = game->deserialize("w......b............ b 9");
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(bt(*s).winner(), 0);
  // Upper case is read too.
  EXPECT_EQ(game->deserialize("BBBBBBBB....WWWWWWWW W 0")->serialize(), "bbbbbbbb....wwwwwwww w 0");
}

TEST(Breakthrough, SerialisationRoundTripAndHash) {
  auto game = make();
  auto s = play(*game, {"a2-a3", "h7-h6", "b2-b3", "g7-g6"});
  auto r = game->deserialize(s->serialize());
  EXPECT_EQ(r->serialize(), s->serialize());
  EXPECT_EQ(r->hash(), s->hash());
  EXPECT_EQ(r->legal_actions(), s->legal_actions());
  EXPECT_EQ(r->move_number(), 4);
  // Transpositions hash alike; the side to move is part of the hash.
  auto t = play(*game, {"b2-b3", "g7-g6", "a2-a3", "h7-h6"});
  EXPECT_EQ(t->hash(), s->hash());
  auto w = game->deserialize(position({std::string(16, 'b'), std::string(32, '.'), std::string(16, 'w')}, 'w', 0));
  auto bl = game->deserialize(position({std::string(16, 'b'), std::string(32, '.'), std::string(16, 'w')}, 'b', 1));
  EXPECT_NE(w->hash(), bl->hash());
  EXPECT_EQ(w->hash(), game->new_initial_state()->hash());
}

TEST(Breakthrough, ObservationKeepsTheBoardOrientation) {
  auto game = make(5, 4);
  auto s = play(*game, {"a2-a3"});
  const int n = 20;
  auto white = s->observation(0), black = s->observation(1);
  for (int cell = 0; cell < n; ++cell) {
    const int y = cell / 4, x = cell % 4, o = bt(*s).owner(y, x);
    EXPECT_EQ(white[cell], o == 0 ? 1.0f : 0.0f);
    EXPECT_EQ(white[n + cell], o == 1 ? 1.0f : 0.0f);
    EXPECT_EQ(white[2 * n + cell], 1.0f);
    EXPECT_EQ(black[cell], o == 1 ? 1.0f : 0.0f);  // Black's own pawns stay on top
    EXPECT_EQ(black[n + cell], o == 0 ? 1.0f : 0.0f);
    EXPECT_EQ(black[2 * n + cell], 0.0f);
  }
  EXPECT_EQ(black[0], 1.0f);      // a5: a Black pawn, top-left
  EXPECT_EQ(white[2 * 4], 1.0f);  // a3 (y = 2): the White pawn that moved
}

TEST(Breakthrough, MirrorSwapsDirections) {
  auto game = make();
  auto s = game->new_initial_state();
  const Action a2b3 = *s->parse_action("a2-b3"), h2g3 = *s->parse_action("h2-g3");
  EXPECT_EQ(game->transform_action(Symmetry::kMirror, a2b3), h2g3);
  EXPECT_EQ(game->transform_action(Symmetry::kMirror, h2g3), a2b3);
  EXPECT_EQ(game->transform_action(Symmetry::kMirror, *s->parse_action("d2-d3")), *s->parse_action("e2-e3"));
  EXPECT_EQ(game->transform_action(Symmetry::kIdentity, a2b3), a2b3);
}

TEST(Breakthrough, OptionsThroughTheEntry) {
  GameEntry entry = breakthrough_entry();
  EXPECT_EQ(entry.name, "breakthrough");
  EXPECT_EQ(entry.long_name, "Breakthrough");
  EXPECT_EQ(entry.family, Family::kBoard);
  auto values = entry.options.resolve({{"rows", "6"}, {"columns", "5"}}, "game 'breakthrough'");
  auto game = entry.make(values, util::Spec{"breakthrough", values.all()});
  const auto& g = static_cast<const BreakthroughGame&>(*game);
  EXPECT_EQ(g.rows(), 6);
  EXPECT_EQ(g.columns(), 5);
  auto defaults = entry.options.resolve({}, "game 'breakthrough'");
  EXPECT_EQ(defaults.get_int("rows"), 8);
  EXPECT_EQ(defaults.get_int("columns"), 8);
  EXPECT_THROW(entry.options.resolve({{"rows", "4"}}, "game 'breakthrough'"), util::UsageError);
  EXPECT_THROW(entry.options.resolve({{"columns", "9"}}, "game 'breakthrough'"), util::UsageError);
}

TEST(Breakthrough, RandomPlayoutInvariants) {
  testing::check_random_playouts(*make(), 2000, 1);
  testing::check_random_playouts(*make(5, 4), 500, 2);
}

TEST(Breakthrough, MayEndGameIsExactlyTheWinningMoves) {
  testing::check_may_end_game_exact(*make(), 200, 31);
  testing::check_may_end_game_exact(*make(5, 4), 300, 32);
}

TEST(Breakthrough, Symmetries) {
  testing::check_symmetries(*make(), 50, 2);
  testing::check_symmetries(*make(6, 5), 50, 3);
}

}  // namespace
}  // namespace pz::games
