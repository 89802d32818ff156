#include "games/othello.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "games/board_notation.h"
#include "games/perft.h"
#include "tests/games/game_properties.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::games {
namespace {

std::shared_ptr<const Game> make(int size = 8) {
  GameEntry entry = othello_entry();
  auto values = entry.options.resolve({{"size", std::to_string(size)}}, "game 'othello'");
  return entry.make(values, util::Spec{"othello", values.all()});
}

const OthelloState& os(const State& s) { return static_cast<const OthelloState&>(s); }

Action act(const State& s, const std::string& move) {
  std::string error;
  auto a = s.parse_action(move, &error);
  EXPECT_TRUE(a.has_value()) << move << ": " << error;
  return a.value_or(kInvalidAction);
}

std::vector<std::string> legal_names(const State& s) {
  std::vector<std::string> out;
  for (Action a : s.legal_actions()) out.push_back(s.action_to_string(s.current_player(), a));
  return out;
}

// A board string (reading order) with the named cells filled, written independently of the
// code under test: cell "c5" is column 2, row 5 from the top.
std::string board(int n, const std::vector<std::string>& black, const std::vector<std::string>& white) {
  std::string out(static_cast<size_t>(n * n), '.');
  auto put = [&](const std::string& cell, char c) {
    const int x = cell[0] - 'a', y = std::stoi(cell.substr(1)) - 1;
    ASSERT_TRUE(x >= 0 && x < n && y >= 0 && y < n) << cell;
    ASSERT_EQ(out[static_cast<size_t>(y * n + x)], '.') << cell << " given twice";
    out[static_cast<size_t>(y * n + x)] = c;
  };
  for (const auto& c : black) put(c, 'x');
  for (const auto& c : white) put(c, 'o');
  return out;
}

std::string board_part(const State& s) {
  const std::string t = s.serialize();
  return t.substr(0, t.find(' '));
}

// ---- A deliberately plain reference: a 2D array and walking the eight directions. ----------

struct Naive {
  int n = 8;
  std::array<std::array<int, 16>, 16> cell{};  // [y][x]: 0 empty, 1 Black, 2 White
  int to_move = 1;                             // 1 Black, 2 White

  static Naive initial(int n) {
    Naive r;
    r.n = n;
    const int c = n / 2;
    r.cell[c - 1][c - 1] = r.cell[c][c] = 2;
    r.cell[c - 1][c] = r.cell[c][c - 1] = 1;
    return r;
  }
  static Naive from_text(int n, const std::string& b, char side) {
    Naive r;
    r.n = n;
    for (int i = 0; i < n * n; ++i) r.cell[i / n][i % n] = b[i] == 'x' ? 1 : b[i] == 'o' ? 2 : 0;
    r.to_move = side == 'x' ? 1 : 2;
    return r;
  }

  // Cells (y*n+x) that player p flips by playing at (y, x); empty if the move is illegal.
  std::vector<int> flips(int p, int y, int x) const {
    std::vector<int> out;
    if (cell[y][x] != 0) return out;
    const int q = 3 - p;
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if (dy == 0 && dx == 0) continue;
        std::vector<int> run;
        int cy = y + dy, cx = x + dx;
        while (cy >= 0 && cy < n && cx >= 0 && cx < n && cell[cy][cx] == q) {
          run.push_back(cy * n + cx);
          cy += dy;
          cx += dx;
        }
        if (!run.empty() && cy >= 0 && cy < n && cx >= 0 && cx < n && cell[cy][cx] == p) {
          out.insert(out.end(), run.begin(), run.end());
        }
      }
    }
    return out;
  }
  std::vector<Action> placements(int p) const {
    std::vector<Action> out;
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x)
        if (!flips(p, y, x).empty()) out.push_back(y * n + x);
    return out;
  }
  std::vector<Action> legal() const {
    auto mine = placements(to_move);
    if (!mine.empty()) return mine;
    if (!placements(3 - to_move).empty()) return {n * n};
    return {};
  }
  void play(Action a) {
    if (a != n * n) {
      const int y = a / n, x = a % n;
      for (int c : flips(to_move, y, x)) cell[c / n][c % n] = to_move;
      cell[y][x] = to_move;
    }
    to_move = 3 - to_move;
  }
  int count(int p) const {
    int k = 0;
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) k += cell[y][x] == p;
    return k;
  }
  std::string text() const {
    std::string out;
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) out += ".xo"[cell[y][x]];
    return out;
  }
};

// Compares everything observable about a node with the reference.
void expect_same(const State& s, const Naive& r) {
  ASSERT_EQ(board_part(s), r.text());
  const auto legal = r.legal();
  ASSERT_EQ(s.legal_actions(), legal) << s.to_string();
  if (legal.empty()) {
    ASSERT_TRUE(s.is_terminal()) << s.to_string();
    const int b = r.count(1), w = r.count(2);
    const std::vector<double> expected = b > w ? std::vector<double>{1, -1} : b < w ? std::vector<double>{-1, 1} : std::vector<double>{0, 0};
    ASSERT_EQ(s.returns(), expected);
  } else {
    ASSERT_EQ(s.current_player(), r.to_move - 1);
    ASSERT_EQ(s.returns(), (std::vector<double>{0, 0}));
  }
  ASSERT_EQ(os(s).discs(0), r.count(1));
  ASSERT_EQ(os(s).discs(1), r.count(2));
  ASSERT_EQ(os(s).must_pass(), legal.size() == 1 && legal[0] == r.n * r.n);
}

// ---- Perft ------------------------------------------------------------------------------------

TEST(Othello, PerftMatchesPublishedCounts) {
  // The published 8x8 Othello perft (passes are plies): 4, 12, 56, 244, 1396, 8200, 55092,
  // 390216, 3005288 for depths 1..9.
  auto game = make(8);
  auto root = game->new_initial_state();
  const std::uint64_t expected[] = {1, 4, 12, 56, 244, 1396, 8200, 55092, 390216};
  for (int d = 0; d <= 8; ++d) EXPECT_EQ(perft(*root, d), expected[d]) << "depth " << d;
}

TEST(Othello, PerftDepth9) {
  auto game = make(8);
  auto root = game->new_initial_state();
  EXPECT_EQ(perft(*root, 9), 3005288u);
}

TEST(Othello, PerftMatchesNaiveReferenceOnOtherSizes) {
  for (auto [n, depth] : {std::pair{6, 7}, std::pair{10, 5}, std::pair{16, 4}}) {
    auto game = make(n);
    auto root = game->new_initial_state();
    const Naive ref = Naive::initial(n);
    for (int d = 1; d <= depth; ++d) EXPECT_EQ(perft(*root, d), testing::reference_perft(ref, d)) << "size " << n << " depth " << d;
  }
}

// ---- The reference, node by node ------------------------------------------------------------

TEST(Othello, RandomGamesMatchNaiveReference) {
  util::Rng rng(11);
  for (auto [n, games] : {std::pair{6, 400}, std::pair{8, 300}, std::pair{10, 80}, std::pair{16, 15}}) {
    auto game = make(n);
    for (int g = 0; g < games; ++g) {
      auto s = game->new_initial_state();
      Naive r = Naive::initial(n);
      int plies = 0;
      while (true) {
        expect_same(*s, r);
        if (::testing::Test::HasFatalFailure()) return;
        if (s->is_terminal()) break;
        const auto legal = s->legal_actions();
        const Action a = legal[rng.below(static_cast<uint32_t>(legal.size()))];
        s->apply_action(a);
        r.play(a);
        ++plies;
        ASSERT_EQ(s->move_number(), plies);
      }
    }
  }
}

TEST(Othello, RandomBoardsMatchNaiveReference) {
  // Arbitrary (mostly unreachable) disc patterns stress the edge masks and word boundaries.
  util::Rng rng(12);
  for (auto [n, boards] : {std::pair{6, 1500}, std::pair{8, 1500}, std::pair{10, 600}, std::pair{12, 200}, std::pair{16, 150}}) {
    auto game = make(n);
    for (int i = 0; i < boards; ++i) {
      const uint32_t empty_pct = 10 + rng.below(80);
      std::string b;
      for (int c = 0; c < n * n; ++c) b += rng.below(100) < empty_pct ? '.' : rng.below(2) ? 'x' : 'o';
      const char side = rng.below(2) ? 'x' : 'o';
      auto s = game->deserialize(b + " " + side);
      const Naive r = Naive::from_text(n, b, side);
      expect_same(*s, r);
      if (::testing::Test::HasFatalFailure()) return;
      for (Action a : s->legal_actions()) {
        auto child = s->clone();
        child->apply_action(a);
        Naive rc = r;
        rc.play(a);
        expect_same(*child, rc);
        if (::testing::Test::HasFatalFailure()) return;
        ASSERT_EQ(child->hash(), game->deserialize(child->serialize())->hash());
      }
    }
  }
}

// ---- Hand-built positions ---------------------------------------------------------------------

TEST(Othello, InitialPosition) {
  auto game = make(8);
  auto s = game->new_initial_state();
  EXPECT_EQ(s->serialize(), std::string(27, '.') + "ox" + std::string(6, '.') + "xo" + std::string(27, '.') + " x 0");
  EXPECT_EQ(board_part(*s), board(8, {"e4", "d5"}, {"d4", "e5"}));
  EXPECT_EQ(s->current_player(), 0);
  EXPECT_EQ(legal_names(*s), (std::vector<std::string>{"d3", "c4", "f5", "e6"}));
  EXPECT_EQ(os(*s).discs(0), 2);
  EXPECT_EQ(os(*s).discs(1), 2);
  EXPECT_EQ(game->info().num_distinct_actions, 65);
  EXPECT_EQ(game->info().policy_shape, (Shape{2, 8, 8}));
  EXPECT_EQ(game->info().observation_shape, (Shape{4, 8, 8}));

  auto g6 = make(6);
  EXPECT_EQ(board_part(*g6->new_initial_state()), board(6, {"d3", "c4"}, {"c3", "d4"}));
  EXPECT_EQ(legal_names(*g6->new_initial_state()), (std::vector<std::string>{"c2", "b3", "e4", "d5"}));
  auto g16 = make(16);
  EXPECT_EQ(board_part(*g16->new_initial_state()), board(16, {"i8", "h9"}, {"h8", "i9"}));
}

TEST(Othello, OpeningMoveFlipsOneDisc) {
  auto game = make(8);
  auto s = game->new_initial_state();
  s->apply_checked(act(*s, "f5"));
  EXPECT_EQ(board_part(*s), board(8, {"e4", "d5", "e5", "f5"}, {"d4"}));
  EXPECT_EQ(s->current_player(), 1);
  EXPECT_EQ(legal_names(*s), (std::vector<std::string>{"f4", "d6", "f6"}));
  EXPECT_THROW(s->apply_checked(act(*s, "pass")), util::UsageError);
  EXPECT_THROW(s->apply_checked(act(*s, "a1")), util::UsageError);
}

TEST(Othello, ForcedPassThenGameEndsBeforeTheBoardIsFull) {
  auto game = make(8);
  // Black's discs a1, c1 touch only b1, whose other lines run off the board: Black cannot
  // move, White can (d1 flanks c1), so Black must pass.
  auto s = game->deserialize(board(8, {"a1", "c1"}, {"b1", "h8"}) + " x");
  EXPECT_EQ(s->move_number(), 0);
  EXPECT_EQ(s->current_player(), 0);
  EXPECT_TRUE(os(*s).must_pass());
  EXPECT_EQ(legal_names(*s), (std::vector<std::string>{"pass"}));
  EXPECT_EQ(s->legal_actions(), (std::vector<Action>{64}));
  auto obs = s->observation(0);
  for (int c = 0; c < 64; ++c) EXPECT_EQ(obs[2 * 64 + c], 0.0f);
  const std::uint64_t before = s->hash();
  s->apply_checked(act(*s, "pass"));
  EXPECT_NE(s->hash(), before);
  EXPECT_EQ(s->move_number(), 1);
  EXPECT_EQ(s->current_player(), 1);
  EXPECT_EQ(legal_names(*s), (std::vector<std::string>{"d1"}));
  s->apply_checked(act(*s, "d1"));
  EXPECT_EQ(board_part(*s), board(8, {"a1"}, {"b1", "c1", "d1", "h8"}));
  EXPECT_EQ(legal_names(*s), (std::vector<std::string>{"e1"}));
  s->apply_checked(act(*s, "e1"));
  // Neither side can move now although 58 cells are empty.
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(s->move_number(), 3);
  EXPECT_TRUE(s->legal_actions().empty());
  EXPECT_EQ(os(*s).discs(0), 5);
  EXPECT_EQ(os(*s).discs(1), 1);
  EXPECT_EQ(s->returns(), (std::vector<double>{1.0, -1.0}));
  EXPECT_EQ(s->serialize(), board(8, {"a1", "b1", "c1", "d1", "e1"}, {"h8"}) + " o 3");
}

TEST(Othello, WipeoutEndsTheGame) {
  auto game = make(8);
  auto s = game->deserialize(board(8, {"d4", "e4", "d5"}, {"e5"}) + " x");
  EXPECT_EQ(legal_names(*s), (std::vector<std::string>{"f5", "e6", "f6"}));
  s->apply_checked(act(*s, "f6"));
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(os(*s).discs(0), 5);
  EXPECT_EQ(os(*s).discs(1), 0);
  EXPECT_EQ(s->returns(), (std::vector<double>{1.0, -1.0}));
}

TEST(Othello, MoveFlipsInSeveralDirectionsAtOnce) {
  auto game = make(8);
  const std::vector<std::string> black = {"g4", "b4", "d1", "f2", "a1", "c5"};
  const std::vector<std::string> white = {"e4", "f4",                   // east, capped by g4
                                          "c4",                         // west, capped by b4
                                          "d3", "d2",                   // north, capped by d1 on the edge
                                          "d5",                         // south, open: not flipped
                                          "e3",                         // north-east, capped by f2
                                          "c3", "b2",                   // north-west, capped by the corner a1
                                          "e5", "f6", "g7", "h8"};      // south-east, runs to the edge: not flipped
  auto s = game->deserialize(board(8, black, white) + " x");
  ASSERT_TRUE(s->is_legal(act(*s, "d4")));
  s->apply_checked(act(*s, "d4"));
  EXPECT_EQ(board_part(*s), board(8, {"g4", "b4", "d1", "f2", "a1", "c5", "d4", "e4", "f4", "c4", "d3", "d2", "e3", "c3", "b2"},
                                  {"d5", "e5", "f6", "g7", "h8"}));
  EXPECT_EQ(os(*s).discs(0), 15);
  EXPECT_EQ(os(*s).discs(1), 5);
}

TEST(Othello, CornerAndEdgeFlips) {
  auto game = make(8);
  auto s = game->deserialize(board(8, {"d1", "a3", "d4"}, {"b1", "c1", "a2", "b2", "c3"}) + " x");
  s->apply_checked(act(*s, "a1"));
  EXPECT_EQ(board_part(*s), board(8, {"a1", "b1", "c1", "d1", "a2", "a3", "b2", "c3", "d4"}, {}));

  // On the h edge: south and west lines are capped, the north line runs off the board.
  s = game->deserialize(board(8, {"h7", "f4"}, {"h5", "h6", "h3", "h2", "h1", "g4"}) + " x");
  s->apply_checked(act(*s, "h4"));
  EXPECT_EQ(board_part(*s), board(8, {"h7", "f4", "h4", "h5", "h6", "g4"}, {"h3", "h2", "h1"}));

  // A run that ends on the edge flips nothing: a6 is not a move for Black.
  s = game->deserialize(board(8, {"b6", "c6"}, {"a7", "a8", "h1"}) + " x");
  EXPECT_FALSE(s->is_legal(act(*s, "a6")));
}

TEST(Othello, NoWrapAroundBetweenRows) {
  // Black's disc on the last column and White's on the first column of the next row are
  // neighbours in bit order only: nobody can move.
  for (int n : {6, 8, 10, 16}) {
    auto game = make(n);
    const std::string last_col = column_letter(n - 1);
    auto s = game->deserialize(board(n, {last_col + "1", last_col + "3"}, {"a2", "a4"}) + " x");
    EXPECT_TRUE(s->is_terminal()) << "size " << n << "\n" << s->to_string();
    s = game->deserialize(board(n, {"a2"}, {last_col + "1"}) + " o");
    EXPECT_TRUE(s->is_terminal()) << "size " << n << "\n" << s->to_string();
  }
}

TEST(Othello, DrawByEqualCount) {
  auto game = make(8);
  auto s = game->deserialize(board(8, {"a1"}, {"b1", "g8", "h8", "h6"}) + " x");
  EXPECT_EQ(legal_names(*s), (std::vector<std::string>{"c1"}));
  s->apply_checked(act(*s, "c1"));
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(os(*s).discs(0), 3);
  EXPECT_EQ(os(*s).discs(1), 3);
  EXPECT_EQ(s->returns(), (std::vector<double>{0.0, 0.0}));

  std::string full;
  for (int i = 0; i < 64; ++i) full += i % 2 ? 'x' : 'o';
  s = game->deserialize(full + " x 60");
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(s->returns(), (std::vector<double>{0.0, 0.0}));
}

// ---- Text --------------------------------------------------------------------------------------

TEST(Othello, Notation) {
  auto game = make(8);
  auto s = game->new_initial_state();
  EXPECT_EQ(s->action_to_string(0, 0), "a1");
  EXPECT_EQ(s->action_to_string(0, 7), "h1");
  EXPECT_EQ(s->action_to_string(0, 19), "d3");
  EXPECT_EQ(s->action_to_string(0, 63), "h8");
  EXPECT_EQ(s->action_to_string(0, 64), "pass");
  EXPECT_EQ(s->parse_action("F5"), 37);
  EXPECT_EQ(s->parse_action(" e6 "), 44);
  EXPECT_EQ(s->parse_action("PASS"), 64);
  std::string error;
  EXPECT_FALSE(s->parse_action("i1", &error));
  EXPECT_NE(error.find("pass"), std::string::npos) << error;
  EXPECT_FALSE(s->parse_action("a9", &error));
  EXPECT_FALSE(s->parse_action("xx", &error));
  for (Action a = 0; a <= 64; ++a) EXPECT_EQ(s->parse_action(s->action_to_string(0, a)), a);

  auto g16 = make(16);
  auto s16 = g16->new_initial_state();
  EXPECT_EQ(s16->action_to_string(0, 255), "p16");
  EXPECT_EQ(s16->parse_action("p16"), 255);
  EXPECT_EQ(s16->parse_action("pass"), 256);
  for (Action a = 0; a <= 256; ++a) EXPECT_EQ(s16->parse_action(s16->action_to_string(0, a)), a);
}

TEST(Othello, SerializationRoundTripsAndKeepsTheMoveNumber) {
  auto game = make(8);
  auto s = game->new_initial_state();
  for (const char* m : {"f5", "d6", "c3", "d3", "c4"}) s->apply_checked(act(*s, m));
  auto t = game->deserialize(s->serialize());
  EXPECT_EQ(t->serialize(), s->serialize());
  EXPECT_EQ(t->hash(), s->hash());
  EXPECT_EQ(t->move_number(), 5);
  EXPECT_EQ(t->to_string(), s->to_string());

  // A pass-containing history: the move number is kept explicitly.
  auto p = game->deserialize(board(8, {"a1", "c1"}, {"b1", "h8"}) + " x 10");
  p->apply_action(64);
  EXPECT_EQ(p->serialize(), board(8, {"a1", "c1"}, {"b1", "h8"}) + " o 11");
  EXPECT_EQ(game->deserialize(p->serialize())->move_number(), 11);
  // Without a move number: discs - 4, rounded up to the side's parity.
  EXPECT_EQ(game->deserialize(board(8, {"a1", "c1", "d1"}, {"b1", "h8"}) + " x")->move_number(), 2);
  EXPECT_EQ(game->deserialize(board(8, {"a1", "c1", "d1"}, {"b1", "h8"}) + " O")->move_number(), 1);
  EXPECT_EQ(game->deserialize(std::string(64, '.') + " o")->move_number(), 1);

}

TEST(Othello, HashIdentifiesPositionsAcrossMoveOrders) {
  // Every line of five plies: transpositions (same discs and side) share a hash, different
  // positions do not.
  auto game = make(8);
  std::map<std::string, std::uint64_t> by_position;
  std::map<std::uint64_t, std::string> by_hash;
  int transpositions = 0;
  std::vector<std::unique_ptr<State>> frontier;
  frontier.push_back(game->new_initial_state());
  for (int depth = 0; depth < 5; ++depth) {
    std::vector<std::unique_ptr<State>> next;
    for (const auto& s : frontier) {
      for (Action a : s->legal_actions()) {
        auto child = s->clone();
        child->apply_action(a);
        const std::string text = child->serialize();
        auto [it, fresh] = by_position.emplace(text, child->hash());
        if (!fresh) {
          ++transpositions;
          EXPECT_EQ(it->second, child->hash()) << text;
        }
        auto [jt, fresh_hash] = by_hash.emplace(child->hash(), text);
        if (!fresh_hash) {
          EXPECT_EQ(jt->second, text);
        }
        next.push_back(std::move(child));
      }
    }
    frontier = std::move(next);
  }
  EXPECT_GT(transpositions, 100);
}

TEST(Othello, DeserializeRejectsBadText) {
  auto game = make(8);
  const std::string start = game->new_initial_state()->serialize();
  const std::string b = start.substr(0, 64);
  auto rejects = [&](const std::string& text, const std::string& fragment) {
    try {
      game->deserialize(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const util::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  rejects("", "<board> <side>");
  rejects(b, "<board> <side>");
  rejects(b + " x 0 0", "<board> <side>");
  rejects(b.substr(1) + " x", "63 characters, expected 64");
  rejects(b + ". x", "65 characters");
  rejects("z" + b.substr(1) + " x", "bad character 'z' at a1");
  rejects(b + " b", "bad side to move");
  rejects(b + " x 1", "does not fit side");
  rejects(b + " x -2", "bad move number");
  rejects(b + " x two", "bad move number");
  rejects(b + " x 1000", "bad move number");
  rejects(board(8, {"a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1"}, {}) + " x 2", "at least 4");
  auto g6 = make(6);
  EXPECT_THROW(g6->deserialize(start), util::UsageError);
}

TEST(Othello, Options) {
  EXPECT_EQ(os(*make(8)->new_initial_state()).discs(0), 2);
  GameEntry entry = othello_entry();
  EXPECT_EQ(entry.name, "othello");
  EXPECT_EQ(entry.long_name, "Othello");
  auto values = entry.options.resolve({}, "game 'othello'");
  EXPECT_EQ(values.get_int("size"), 8);
  for (const char* bad : {"7", "4", "18", "x"}) {
    EXPECT_THROW(
        {
          auto v = entry.options.resolve({{"size", bad}}, "game 'othello'");
          entry.make(v, util::Spec{"othello", v.all()});
        },
        util::UsageError)
        << bad;
  }
  try {
    auto v = entry.options.resolve({{"size", "9"}}, "game 'othello'");
    entry.make(v, util::Spec{"othello", v.all()});
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("even"), std::string::npos) << e.what();
  }
}

TEST(Othello, ObservationPlanes) {
  auto game = make(8);
  auto s = game->new_initial_state();
  s->apply_checked(act(*s, "f5"));  // White to move
  auto white = s->observation(1), black = s->observation(0);
  const int d4 = 27, e4 = 28, f4 = 29, d6 = 43, f6 = 45;
  EXPECT_EQ(white[d4], 1.0f);
  EXPECT_EQ(white[64 + e4], 1.0f);
  EXPECT_EQ(black[e4], 1.0f);
  EXPECT_EQ(black[64 + d4], 1.0f);
  float white_moves = 0, black_moves = 0;
  for (int c = 0; c < 64; ++c) {
    white_moves += white[128 + c];
    black_moves += black[128 + c];
    EXPECT_EQ(white[192 + c], 0.0f);
    EXPECT_EQ(black[192 + c], 1.0f);
  }
  EXPECT_EQ(white_moves, 3.0f);
  EXPECT_EQ(white[128 + f4] + white[128 + d6] + white[128 + f6], 3.0f);
  EXPECT_EQ(black_moves, 0.0f);
}

TEST(Othello, SymmetriesAreTheFourThatKeepTheStart) {
  auto game = make(8);
  EXPECT_EQ(game->symmetries(), (std::vector<Symmetry>{Symmetry::kIdentity, Symmetry::kRotate180, Symmetry::kTranspose,
                                                       Symmetry::kAntiTranspose}));
  // The others do not keep the initial position: the mirror swaps the centre colours.
  auto s = game->new_initial_state();
  const std::string b = board_part(*s);
  for (int k = 0; k < kNumSymmetries; ++k) {
    const Symmetry sym = static_cast<Symmetry>(k);
    std::string image(64, '?');
    for (int c = 0; c < 64; ++c) {
      Cell t = transform_cell(sym, 8, 8, {c / 8, c % 8});
      image[static_cast<size_t>(t.y * 8 + t.x)] = b[static_cast<size_t>(c)];
    }
    const bool listed = std::find(game->symmetries().begin(), game->symmetries().end(), sym) != game->symmetries().end();
    EXPECT_EQ(image == b, listed) << symmetry_name(sym);
  }
  for (Symmetry sym : game->symmetries()) EXPECT_EQ(game->transform_action(sym, 64), 64);
}

// ---- Shared properties -------------------------------------------------------------------------

TEST(Othello, RandomPlayoutInvariants) {
  testing::check_random_playouts(*make(8), 1000, 1);
  testing::check_random_playouts(*make(6), 300, 2);
  testing::check_random_playouts(*make(10), 100, 3);
  testing::check_random_playouts(*make(16), 10, 4);
}

TEST(Othello, Symmetries) {
  testing::check_symmetries(*make(8), 20, 5);
  testing::check_symmetries(*make(6), 10, 6);
  testing::check_symmetries(*make(10), 5, 7);
}

// The auxiliary targets (game.h): the final discs from the asking seat's side and their
// difference; only at the end of a game.
TEST(Othello, FinalOwnershipAndScoreAreTheDiscs) {
  const auto game = make(6);
  util::Rng rng(17);
  for (int g = 0; g < 20; ++g) {
    auto state = game->new_initial_state();
    std::vector<float> ownership(36);
    double score = 0;
    while (!state->is_terminal()) {
      EXPECT_FALSE(state->final_ownership(0, ownership.data()));
      EXPECT_FALSE(state->final_score(1, &score));
      const auto legal = state->legal_actions();
      state->apply_action(legal[rng.below(static_cast<std::uint32_t>(legal.size()))]);
    }
    const auto& othello = static_cast<const OthelloState&>(*state);
    for (Player p : {0, 1}) {
      ASSERT_TRUE(state->final_ownership(p, ownership.data()));
      for (int c = 0; c < 36; ++c) {
        const int o = othello.owner(c);
        EXPECT_EQ(ownership[static_cast<std::size_t>(c)], o < 0 ? 0.0f : o == p ? 1.0f : -1.0f);
      }
      ASSERT_TRUE(state->final_score(p, &score));
      EXPECT_EQ(score, othello.discs(p) - othello.discs(1 - p));
      EXPECT_EQ(score > 0, state->returns()[static_cast<std::size_t>(p)] > 0);
    }
  }
}

}  // namespace
}  // namespace pz::games
