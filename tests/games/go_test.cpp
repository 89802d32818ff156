#include "games/go.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "games/perft.h"
#include "tests/games/game_properties.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::games {
namespace {

std::shared_ptr<const Game> make(const std::string& options = "") {
  GameEntry entry = go_entry();
  util::Spec spec = util::parse_spec(options.empty() ? "go" : "go:" + options);
  auto values = entry.options.resolve(spec.options, "game 'go'");
  return entry.make(values, util::Spec{"go", values.all()});
}

const GoState& go(const State& s) { return static_cast<const GoState&>(s); }

// Replays a record ("d4 e5 pass") with full legality checks.
std::unique_ptr<State> play(const Game& game, const std::string& moves) { return game.deserialize(moves); }

// A record placing the given stones, Black and White alternating and passing when they run
// out; it always ends with White's turn done, so Black is to move afterwards.
std::string setup(const std::vector<std::string>& black, const std::vector<std::string>& white) {
  std::string out;
  for (size_t i = 0; i < std::max(black.size(), white.size()); ++i) {
    out += (i < black.size() ? black[i] : "pass") + " ";
    out += (i < white.size() ? white[i] : "pass") + " ";
  }
  return out;
}

Action act(const State& s, const std::string& cell) {
  std::string error;
  auto a = s.parse_action(cell, &error);
  EXPECT_TRUE(a.has_value()) << error;
  return a.value_or(kInvalidAction);
}

int owner(const State& s, const std::string& cell) { return go(s).owner(act(s, cell)); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// --- A deliberately naive reference: a 2-D board, flood fills and a set of positions. ------

class Naive {
 public:
  enum Verdict { kLegal, kOccupied, kSuicide, kSuperko };

  // `simple_ko`: a move may not recreate the board before the last move (else: no earlier
  // board at all).
  Naive(int n, double komi, int max_moves, bool simple_ko = false)
      : n_(n), komi_(komi), max_moves_(max_moves), simple_ko_(simple_ko), board_(static_cast<size_t>(n * n), 0) {
    seen_.insert(board_);
    boards_.push_back(board_);
  }

  int size() const { return n_; }
  int at(int y, int x) const { return board_[static_cast<size_t>(y * n_ + x)]; }
  bool terminal() const { return passes_ >= 2 || moves_ >= max_moves_; }
  int colour_to_move() const { return moves_ % 2 + 1; }

  // Liberties of the chain on point i of `board`; its stones into `stones` if given.
  int chain(const std::vector<int>& board, int i, std::vector<int>* stones) const {
    std::vector<char>& visited = scratch_visited_;
    std::vector<char>& lib = scratch_lib_;
    visited.assign(board.size(), 0);
    lib.assign(board.size(), 0);
    std::vector<int>& todo = scratch_todo_;
    todo.assign(1, i);
    visited[static_cast<size_t>(i)] = 1;
    int libs = 0;
    while (!todo.empty()) {
      const int s = todo.back();
      todo.pop_back();
      if (stones) stones->push_back(s);
      for (int t : neighbours(s)) {
        if (t < 0) continue;
        const size_t ut = static_cast<size_t>(t);
        if (board[ut] == 0) {
          if (!lib[ut]) {
            lib[ut] = 1;
            ++libs;
          }
        } else if (board[ut] == board[static_cast<size_t>(i)] && !visited[ut]) {
          visited[ut] = 1;
          todo.push_back(t);
        }
      }
    }
    return libs;
  }

  // Board after `colour` plays point i (captures done), or the reason it cannot.
  Verdict place(std::vector<int>& board, int i, int colour) const {
    if (board[static_cast<size_t>(i)] != 0) return kOccupied;
    board[static_cast<size_t>(i)] = colour;
    for (int t : neighbours(i)) {
      if (t < 0 || board[static_cast<size_t>(t)] != 3 - colour) continue;
      std::vector<int>& stones = scratch_stones_;
      stones.clear();
      if (chain(board, t, &stones) == 0) {
        for (int s : stones) board[static_cast<size_t>(s)] = 0;
      }
    }
    return chain(board, i, nullptr) == 0 ? kSuicide : kLegal;
  }

  Verdict verdict(int i) const {
    std::vector<int>& copy = scratch_board_;
    copy = board_;
    const Verdict v = place(copy, i, colour_to_move());
    if (v != kLegal) return v;
    if (simple_ko_) return boards_.size() >= 2 && copy == boards_[boards_.size() - 2] ? kSuperko : kLegal;
    return seen_.count(copy) ? kSuperko : kLegal;
  }

  std::vector<Action> legal() const {
    std::vector<Action> out;
    if (terminal()) return out;
    for (int i = 0; i < n_ * n_; ++i) {
      if (verdict(i) == kLegal) out.push_back(i);
    }
    out.push_back(n_ * n_);
    return out;
  }

  void play(Action a) {
    if (a == n_ * n_) {
      ++passes_;
    } else {
      passes_ = 0;
      const Verdict v = place(board_, a, colour_to_move());
      EXPECT_EQ(v, kLegal);
      seen_.insert(board_);
    }
    boards_.push_back(board_);
    ++moves_;
  }

  double score() const {
    double area[3] = {0, 0, 0};
    std::vector<char> visited(board_.size(), 0);
    for (int i = 0; i < n_ * n_; ++i) {
      if (board_[static_cast<size_t>(i)] != 0) {
        area[board_[static_cast<size_t>(i)]] += 1;
        continue;
      }
      if (visited[static_cast<size_t>(i)]) continue;
      std::vector<int> todo = {i};
      visited[static_cast<size_t>(i)] = 1;
      int region = 0;
      bool touches[3] = {false, false, false};
      while (!todo.empty()) {
        const int s = todo.back();
        todo.pop_back();
        ++region;
        for (int t : neighbours(s)) {
          if (t < 0) continue;
          const int c = board_[static_cast<size_t>(t)];
          if (c != 0) {
            touches[c] = true;
          } else if (!visited[static_cast<size_t>(t)]) {
            visited[static_cast<size_t>(t)] = 1;
            todo.push_back(t);
          }
        }
      }
      if (touches[1] != touches[2]) area[touches[1] ? 1 : 2] += region;
    }
    return area[1] - area[2] - komi_;
  }

  const std::vector<int>& board() const { return board_; }

 private:
  // The up to four neighbours of point i; -1 for off the board.
  std::array<int, 4> neighbours(int i) const {
    const int y = i / n_, x = i % n_;
    return {y > 0 ? i - n_ : -1, x > 0 ? i - 1 : -1, x + 1 < n_ ? i + 1 : -1, y + 1 < n_ ? i + n_ : -1};
  }

  int n_;
  double komi_;
  int max_moves_;
  bool simple_ko_;
  std::vector<int> board_;
  int moves_ = 0, passes_ = 0;
  std::set<std::vector<int>> seen_;
  std::vector<std::vector<int>> boards_;  // after every action, the start first
  // Reused buffers, only to spare allocations.
  mutable std::vector<char> scratch_visited_, scratch_lib_;
  mutable std::vector<int> scratch_todo_, scratch_stones_, scratch_board_;
};

Naive naive_after(const Game& game, const std::string& record) {
  const auto& g = static_cast<const GoGame&>(game);
  Naive naive(g.size(), g.komi(), g.max_moves(), g.ko_rule() == GoGame::KoRule::kSimple);
  for (Action a : go(*play(game, record)).moves()) naive.play(a);
  return naive;
}

// --- Captures ------------------------------------------------------------------------------

TEST(Go, CapturesASingleStone) {
  auto game = make("size=5");
  auto s = play(*game, setup({"b3", "d3", "c4"}, {"c3"}) + "c2");
  EXPECT_EQ(owner(*s, "c3"), -1);
  EXPECT_EQ(owner(*s, "c2"), 0);
  EXPECT_EQ(go(*s).captures(0), 1);
  EXPECT_EQ(go(*s).captures(1), 0);
  EXPECT_EQ(go(*s).liberties(act(*s, "c2")), 4);  // b2, d2, c1 and the emptied c3
  EXPECT_EQ(go(*s).liberties(act(*s, "b3")), 4);  // a3, b4, b2 and c3
}

TEST(Go, CapturesAGroup) {
  auto game = make("size=5");
  auto s = play(*game, setup({"b3", "b4", "d3", "d4", "c5"}, {"c3", "c4"}));
  EXPECT_EQ(go(*s).liberties(act(*s, "c3")), 1);
  s->apply_checked(act(*s, "c2"));
  EXPECT_EQ(owner(*s, "c3"), -1);
  EXPECT_EQ(owner(*s, "c4"), -1);
  EXPECT_EQ(go(*s).captures(0), 2);
}

TEST(Go, CapturesOnTheEdgeAndInTheCorner) {
  auto game = make("size=5");
  auto edge = play(*game, setup({"a2", "a4"}, {"a3"}) + "b3");
  EXPECT_EQ(owner(*edge, "a3"), -1);
  EXPECT_EQ(go(*edge).captures(0), 1);
  auto corner = play(*game, setup({"a2"}, {"a1"}) + "b1");
  EXPECT_EQ(owner(*corner, "a1"), -1);
  EXPECT_EQ(go(*corner).captures(0), 1);
  // White captures too: a black corner group of two.
  auto white = play(*game, setup({"a1", "b1"}, {"a2", "b2"}) + "pass c1");
  EXPECT_EQ(owner(*white, "a1"), -1);
  EXPECT_EQ(owner(*white, "b1"), -1);
  EXPECT_EQ(go(*white).captures(1), 2);
}

// --- Suicide -------------------------------------------------------------------------------

TEST(Go, CaptureThatWouldOtherwiseBeSuicideIsLegal) {
  auto game = make("size=5");
  // White b2 sits in Black's mouth; c2 is surrounded by White on all four sides.
  auto s = play(*game, setup({"a2", "b3", "b1"}, {"b2", "c3", "c1", "d2"}));
  EXPECT_EQ(go(*s).illegal_reason(act(*s, "c2")), "");
  s->apply_checked(act(*s, "c2"));
  EXPECT_EQ(owner(*s, "b2"), -1);
  EXPECT_EQ(go(*s).liberties(act(*s, "c2")), 1);
}

TEST(Go, SuicideIsIllegal) {
  auto game = make("size=5");
  auto single = play(*game, setup({}, {"a2", "b1"}));
  EXPECT_FALSE(single->is_legal(act(*single, "a1")));
  EXPECT_TRUE(contains(go(*single).illegal_reason(act(*single, "a1")), "suicide"));
  // Two stones: Black a1 plus b1 would have no liberty left.
  auto multi = play(*game, setup({"a1"}, {"a2", "b2", "c1"}));
  EXPECT_FALSE(multi->is_legal(act(*multi, "b1")));
  EXPECT_TRUE(contains(go(*multi).illegal_reason(act(*multi, "b1")), "suicide"));
  EXPECT_THROW(play(*game, setup({"a1"}, {"a2", "b2", "c1"}) + "b1"), util::UsageError);
  // For White the same point captures.
  auto white = play(*game, setup({"a1"}, {"a2", "b2", "c1"}) + "pass");
  EXPECT_TRUE(white->is_legal(act(*white, "b1")));
  // Filling one's own last liberty next to a chain that keeps another one is fine.
  auto safe = play(*game, setup({"a1", "c1", "d2"}, {"a2", "b2"}));
  EXPECT_TRUE(safe->is_legal(act(*safe, "b1")));  // joins a1 and c1, liberties d1
}

// --- Ko and superko ------------------------------------------------------------------------

TEST(Go, SimpleKoRecaptureIsIllegalUntilAnExchange) {
  auto game = make("size=5");
  const std::string ko = setup({"a2", "b3", "b1"}, {"b2", "c3", "c1", "d2"}) + "c2";
  auto s = play(*game, ko);
  EXPECT_FALSE(s->is_legal(act(*s, "b2")));
  EXPECT_TRUE(contains(go(*s).illegal_reason(act(*s, "b2")), "superko"));
  EXPECT_THROW(play(*game, ko + " b2"), util::UsageError);
  // A ko threat and its answer change the board: now White may retake...
  auto later = play(*game, ko + " e5 e4");
  EXPECT_TRUE(later->is_legal(act(*later, "b2")));
  later->apply_checked(act(*later, "b2"));
  EXPECT_EQ(owner(*later, "c2"), -1);
  // ...and Black may not retake at once.
  EXPECT_FALSE(later->is_legal(act(*later, "c2")));
  // Passing does not change the position, so it does not lift the ban either.
  auto passed = play(*game, ko + " pass pass");
  EXPECT_TRUE(passed->is_terminal());
  auto pass_then = play(*game, ko + " pass");  // White passes, Black fills the ko
  EXPECT_TRUE(pass_then->is_legal(act(*pass_then, "b2")));
}

TEST(Go, SuperkoForbidsARepeatAfterFourMoves) {
  // "Send two, return one": Black c1 captures a1+b1, White b1 takes c1 back; after a Black
  // pass, White a1 would recreate the position before c1 (with no capture at all).
  auto game = make("size=5");
  const std::string before = setup({"a2", "b2", "e5", "e4"}, {"a1", "b1", "c2", "d1"});
  auto s = play(*game, before + "c1");
  EXPECT_EQ(go(*s).captures(0), 2);
  s->apply_checked(act(*s, "b1"));
  EXPECT_EQ(go(*s).captures(1), 1);
  EXPECT_EQ(owner(*s, "c1"), -1);
  s->apply_checked(act(*s, "pass"));
  EXPECT_FALSE(s->is_legal(act(*s, "a1")));
  EXPECT_TRUE(contains(go(*s).illegal_reason(act(*s, "a1")), "superko"));
  // With a different Black move in between, a1 is an ordinary move.
  auto t = play(*game, before + "c1 b1 e3");
  EXPECT_TRUE(t->is_legal(act(*t, "a1")));
  // The naive reference agrees on the whole tree below the critical position.
  const std::string critical = before + "c1 b1 pass";
  auto r = play(*game, critical);
  EXPECT_EQ(perft(*r, 3), testing::reference_perft(naive_after(*game, critical), 3));
}

TEST(Go, SimpleKoForbidsTheImmediateRecaptureToo) {
  auto game = make("size=5,ko=simple");
  const std::string ko = setup({"a2", "b3", "b1"}, {"b2", "c3", "c1", "d2"}) + "c2";
  auto s = play(*game, ko);
  EXPECT_FALSE(s->is_legal(act(*s, "b2")));
  EXPECT_EQ(go(*s).illegal_reason(act(*s, "b2")), "b2 retakes the ko at once (simple ko)");
  EXPECT_THROW(play(*game, ko + " b2"), util::UsageError);
  auto later = play(*game, ko + " e5 e4");
  EXPECT_TRUE(later->is_legal(act(*later, "b2")));
}

TEST(Go, SimpleKoAllowsARepeatThatSuperkoForbids) {
  // The position of SuperkoForbidsARepeatAfterFourMoves: White a1 recreates the position
  // before Black's c1, three moves back, not the one before Black's last move (a pass).
  const std::string critical = setup({"a2", "b2", "e5", "e4"}, {"a1", "b1", "c2", "d1"}) + "c1 b1 pass";
  auto simple = make("size=5,ko=simple");
  auto s = play(*simple, critical);
  EXPECT_TRUE(s->is_legal(act(*s, "a1")));
  EXPECT_EQ(play(*simple, critical + " a1")->serialize(), critical + " a1");
  EXPECT_THROW(play(*make("size=5"), critical + " a1"), util::UsageError);
  EXPECT_EQ(perft(*s, 3), testing::reference_perft(naive_after(*simple, critical), 3));
}

TEST(Go, KoOptionIsPartOfTheSpec) {
  EXPECT_EQ(static_cast<const GoGame&>(*make()).ko_rule(), GoGame::KoRule::kPositional);
  EXPECT_EQ(static_cast<const GoGame&>(*make("ko=simple")).ko_rule(), GoGame::KoRule::kSimple);
  EXPECT_THROW(make("ko=triple"), util::UsageError);
  EXPECT_EQ(make("size=5,ko=simple")->spec().to_string(), "go:ko=simple,komi=7.5,max_moves=0,size=5");
}

// --- End and scoring -------------------------------------------------------------------------

TEST(Go, TwoPassesEndTheGame) {
  auto game = make("size=5");
  EXPECT_FALSE(play(*game, "pass")->is_terminal());
  EXPECT_FALSE(play(*game, "pass c3 pass")->is_terminal());
  auto s = play(*game, "c3 pass pass");
  EXPECT_TRUE(s->is_terminal());
  EXPECT_TRUE(s->legal_actions().empty());
  // Black's single stone owns the whole board: 25 − 7.5.
  EXPECT_DOUBLE_EQ(go(*s).score(), 17.5);
  EXPECT_EQ(s->returns(), (std::vector<double>{1.0, -1.0}));
  auto empty = play(*game, "pass pass");
  EXPECT_DOUBLE_EQ(go(*empty).score(), -7.5);  // the empty board belongs to nobody
  EXPECT_EQ(empty->returns(), (std::vector<double>{-1.0, 1.0}));
  EXPECT_THROW(play(*game, "pass pass c3"), util::UsageError);
}

TEST(Go, OnlyAPassAfterAPassOrTheLastMoveMayEndTheGame) {
  auto game = make("size=5,max_moves=6");
  const Action pass = 25;
  auto s = play(*game, "c3");
  EXPECT_FALSE(s->may_end_game(pass));
  EXPECT_FALSE(s->may_end_game(0));
  s = play(*game, "c3 pass");
  EXPECT_TRUE(s->may_end_game(pass));
  EXPECT_FALSE(s->may_end_game(0));
  s = play(*game, "c3 d3 c2 d2 c4");  // the sixth action ends the game, whatever it is
  EXPECT_TRUE(s->may_end_game(0));
  EXPECT_TRUE(s->may_end_game(pass));
}

TEST(Go, AreaScoringWithKomiAndDame) {
  // Black owns columns a-b, White d-e; column c touches both: dame.
  const std::string walls = setup({"b1", "b2", "b3", "b4", "b5"}, {"d1", "d2", "d3", "d4", "d5"}) + "pass pass";
  auto s = play(*make("size=5"), walls);
  EXPECT_DOUBLE_EQ(go(*s).score(), 10 - 10 - 7.5);
  EXPECT_EQ(s->returns(), (std::vector<double>{-1.0, 1.0}));
  auto even = play(*make("size=5,komi=0"), walls);
  EXPECT_DOUBLE_EQ(go(*even).score(), 0.0);
  EXPECT_EQ(even->returns(), (std::vector<double>{0.0, 0.0}));
  // One more Black stone in the middle column: still no territory there; 11 − 10 − 1 = 0.
  // (The setup ends with a White pass, so one more pass ends the game.)
  const std::string plus = setup({"b1", "b2", "b3", "b4", "b5", "c3"}, {"d1", "d2", "d3", "d4", "d5"}) + "pass";
  auto draw = play(*make("size=5,komi=1"), plus);
  EXPECT_DOUBLE_EQ(go(*draw).score(), 0.0);
  EXPECT_EQ(draw->returns(), (std::vector<double>{0.0, 0.0}));
  auto black = play(*make("size=5,komi=0.5"), plus);
  EXPECT_EQ(black->returns(), (std::vector<double>{1.0, -1.0}));
  // A White stone left in Black's area is not removed: column a becomes nobody's.
  const std::string dead = setup({"b1", "b2", "b3", "b4", "b5"}, {"d1", "d2", "d3", "d4", "d5", "a3"}) + "pass pass";
  auto t = play(*make("size=5,komi=0"), dead);
  EXPECT_DOUBLE_EQ(go(*t).score(), 5 - 11);
}

TEST(Go, MaxMovesEndsAndScoresTheGame) {
  auto game = make("size=5,max_moves=3");
  EXPECT_EQ(game->info().max_game_length, 3);
  auto s = play(*game, "a1 b1 c1");
  EXPECT_TRUE(s->is_terminal());
  EXPECT_TRUE(s->legal_actions().empty());
  EXPECT_DOUBLE_EQ(go(*s).score(), 2 - 1 - 7.5);
  EXPECT_EQ(s->returns(), (std::vector<double>{-1.0, 1.0}));
  try {
    play(*game, "a1 b1 c1 d1");
    ADD_FAILURE() << "no error";
  } catch (const util::UsageError& e) {
    EXPECT_TRUE(contains(e.what(), "move 4")) << e.what();
    EXPECT_TRUE(contains(e.what(), "ended")) << e.what();
  }
  EXPECT_EQ(make("size=9")->info().max_game_length, 324);
  EXPECT_EQ(make("size=19")->info().max_game_length, 1444);
}

TEST(Go, OptionsAreChecked) {
  EXPECT_THROW(make("size=4"), util::UsageError);
  EXPECT_THROW(make("size=20"), util::UsageError);
  EXPECT_THROW(make("max_moves=-1"), util::UsageError);
  EXPECT_THROW(make("komi=abc"), util::UsageError);
  auto game = make();
  const auto& g = static_cast<const GoGame&>(*game);
  EXPECT_EQ(g.size(), 9);
  EXPECT_DOUBLE_EQ(g.komi(), 7.5);
  EXPECT_EQ(game->info().num_distinct_actions, 82);
  EXPECT_EQ(game->info().policy_shape, (Shape{2, 9, 9}));
  EXPECT_EQ(game->info().observation_shape, (Shape{12, 9, 9}));
}

// --- Notation and records --------------------------------------------------------------------

TEST(Go, NotationSkipsTheLetterI) {
  auto game = make("size=19");
  auto s = game->new_initial_state();
  EXPECT_EQ(s->parse_action("j1"), 18 * 19 + 8);  // ninth column, bottom row
  EXPECT_EQ(s->parse_action("J1"), 18 * 19 + 8);
  EXPECT_EQ(s->parse_action("h1"), 18 * 19 + 7);
  EXPECT_EQ(s->parse_action("a1"), 18 * 19);
  EXPECT_EQ(s->parse_action("T19"), 18);
  EXPECT_EQ(s->parse_action("a19"), 0);
  EXPECT_EQ(s->parse_action(" Pass "), 361);
  EXPECT_EQ(s->action_to_string(0, 18 * 19 + 8), "j1");
  EXPECT_EQ(s->action_to_string(0, 18), "t19");
  EXPECT_EQ(s->action_to_string(0, 361), "pass");
  std::string error;
  EXPECT_FALSE(s->parse_action("i5", &error));
  EXPECT_TRUE(contains(error, "no column i")) << error;
  EXPECT_FALSE(s->parse_action("u1", &error));
  EXPECT_FALSE(s->parse_action("a20", &error));
  EXPECT_FALSE(s->parse_action("a0", &error));
  EXPECT_FALSE(s->parse_action("passe", &error));
  EXPECT_TRUE(contains(error, "pass")) << error;
  for (Action a = 0; a <= 361; ++a) EXPECT_EQ(s->parse_action(s->action_to_string(0, a)), a);
  auto nine = make("size=9")->new_initial_state();
  EXPECT_EQ(nine->parse_action("j9"), 8);
  EXPECT_EQ(nine->parse_action("a1"), 72);
  EXPECT_FALSE(nine->parse_action("k1"));
}

TEST(Go, RecordRoundTripsAndNamesBadMoves) {
  auto game = make("size=5");
  const std::string record = "a2 b2 b3 c3 b1 c1 pass d2 c2 e5 e4 b2 pass";
  auto s = play(*game, record);
  EXPECT_EQ(s->serialize(), record);
  EXPECT_EQ(play(*game, "A2  B2\tb3 C3 b1 c1 PASS d2 c2 e5 e4 b2 pass")->serialize(), record);
  auto t = game->deserialize(s->serialize());
  EXPECT_EQ(t->hash(), s->hash());
  EXPECT_EQ(t->to_string(), s->to_string());
  EXPECT_EQ(t->legal_actions(), s->legal_actions());
  EXPECT_EQ(game->new_initial_state()->serialize(), "");
  EXPECT_EQ(game->deserialize("")->move_number(), 0);
  auto expect_error = [&](const std::string& text, const std::string& part1, const std::string& part2) {
    try {
      game->deserialize(text);
      ADD_FAILURE() << "no error for '" << text << "'";
    } catch (const util::UsageError& e) {
      EXPECT_TRUE(contains(e.what(), part1)) << e.what();
      EXPECT_TRUE(contains(e.what(), part2)) << e.what();
    }
  };
  expect_error("c3 c3", "move 2", "occupied");
  expect_error("c3 z9", "move 2", "z9");
  expect_error("c3 i3", "move 2", "no column i");
  expect_error("pass a2 pass b1 a1", "move 5", "suicide");
  expect_error(setup({"a2", "b3", "b1"}, {"b2", "c3", "c1", "d2"}) + "c2 b2", "move 10", "superko");
}

TEST(Go, HashDependsOnPositionSideAndPasses) {
  auto game = make("size=5");
  EXPECT_EQ(play(*game, "a1 b1 c1")->hash(), play(*game, "c1 b1 a1")->hash());
  EXPECT_NE(play(*game, "a1 b1 c1")->hash(), play(*game, "a1 c1 b1")->hash());
  EXPECT_NE(play(*game, "a1 b1")->hash(), play(*game, "a1 b1 pass")->hash());
  EXPECT_NE(play(*game, "a1 b1 pass")->hash(), play(*game, "a1 b1 pass pass")->hash());
  // A capture removes the stones' keys: same position by two routes.
  auto captured = play(*game, setup({"a2"}, {"a1"}) + "b1");
  auto direct = play(*game, "a2 pass b1");
  EXPECT_EQ(go(*captured).score(), go(*direct).score());
  EXPECT_EQ(captured->hash(), direct->hash());
}

TEST(Go, BoardText) {
  auto game = make("size=5");
  auto s = play(*game, setup({"a2", "b3", "b1"}, {"b2", "c3", "c1", "d2"}) + "c2");
  const std::string text = s->to_string();
  EXPECT_TRUE(contains(text, "   A B C D E\n")) << text;
  EXPECT_TRUE(contains(text, " 2 X . X O . 2\n")) << text;
  EXPECT_TRUE(contains(text, " 1 . X O . . 1\n")) << text;
  EXPECT_TRUE(contains(text, "White (O) to move")) << text;
  EXPECT_TRUE(contains(text, "Captures: Black 1, White 0")) << text;
  EXPECT_TRUE(contains(text, "Komi 7.5")) << text;
  const std::string big = make("size=19")->new_initial_state()->to_string();
  EXPECT_TRUE(contains(big, "   A B C D E F G H J K L M N O P Q R S T\n")) << big;
  EXPECT_TRUE(contains(big, "19 . . . ")) << big;
  EXPECT_TRUE(contains(play(*game, "pass pass")->to_string(), "W+7.5"));
}

TEST(Go, ObservationPlanes) {
  auto game = make("size=5");
  auto s = play(*game, setup({"a2", "b3", "b1"}, {"b2", "c3", "c1", "d2"}) + "c2");
  const int hw = 25;
  auto cell = [&](const std::string& name) { return act(*s, name); };
  const auto white = s->observation(1);
  const auto black = s->observation(0);
  EXPECT_EQ(white[0 * hw + cell("c3")], 1.0f);   // own stone
  EXPECT_EQ(white[1 * hw + cell("c2")], 1.0f);   // opponent stone
  EXPECT_EQ(white[2 * hw + cell("b2")], 1.0f);   // ko: illegal for White
  EXPECT_EQ(white[2 * hw + cell("a1")], 1.0f);   // suicide for White
  EXPECT_EQ(white[2 * hw + cell("e1")], 0.0f);   // legal for White
  EXPECT_EQ(white[2 * hw + cell("c2")], 0.0f);   // occupied, not marked
  EXPECT_EQ(white[6 * hw + cell("c2")], 1.0f);   // Black c2 in atari
  EXPECT_EQ(black[3 * hw + cell("c2")], 1.0f);   // from Black's side, its own chain in atari
  EXPECT_EQ(white[3 * hw + cell("c1")], 1.0f);   // c1: only d1
  EXPECT_EQ(white[4 * hw + cell("c3")], 1.0f);   // c3: c4 and d3
  EXPECT_EQ(white[5 * hw + cell("d2")], 1.0f);   // d2: d1, d3, e2
  EXPECT_EQ(black[8 * hw + cell("d2")], 1.0f);
  EXPECT_EQ(white[3 * hw + cell("c3")] + white[5 * hw + cell("c3")] + white[6 * hw + cell("c3")], 0.0f);
  for (int i = 0; i < hw; ++i) EXPECT_EQ(black[2 * hw + i], 0.0f);  // Black is not to move
  EXPECT_EQ(white[9 * hw], 0.0f);
  EXPECT_EQ(black[9 * hw], 1.0f);
  EXPECT_FLOAT_EQ(white[10 * hw], 0.5f);
  EXPECT_FLOAT_EQ(black[10 * hw], -0.5f);
  EXPECT_EQ(white[11 * hw], 0.0f);
  auto passed = play(*game, "pass");
  EXPECT_EQ(passed->observation(0)[11 * hw + 7], 1.0f);
}

// --- perft -----------------------------------------------------------------------------------

TEST(Go, PerftMatchesFormulaAndNaiveReference) {
  // Up to depth 3 nothing can be captured or suicided, so with N = size²:
  //   perft(1) = N + 1
  //   perft(2) = N·N + (N + 1)                 (after a pass White has every point and pass)
  //   perft(3) = N·(N−1)² + 2·N²               (stone-stone-any, stone-pass-any, pass-stone-any;
  //                                              pass-pass ends the game)
  for (int n : {5, 9}) {
    auto game = make("size=" + std::to_string(n));
    auto root = game->new_initial_state();
    const std::uint64_t N = static_cast<std::uint64_t>(n * n);
    const std::uint64_t expected[] = {1, N + 1, N * N + N + 1, N * (N - 1) * (N - 1) + 2 * N * N};
    Naive naive(n, 7.5, 4 * n * n);
    for (int d = 0; d <= 3; ++d) {
      EXPECT_EQ(perft(*root, d), expected[d]) << "size " << n << " depth " << d;
      EXPECT_EQ(testing::reference_perft(naive, d), expected[d]) << "naive, size " << n << " depth " << d;
    }
  }
  EXPECT_EQ(perft(*make("size=5")->new_initial_state(), 3), 15650u);
  EXPECT_EQ(perft(*make("size=9")->new_initial_state(), 3), 531522u);
  // Depth 4 on 5×5 has the first captures (a corner stone, two moves each side).
  auto five = make("size=5");
  EXPECT_EQ(perft(*five->new_initial_state(), 4), testing::reference_perft(Naive(5, 7.5, 100), 4));
  // From the ko position, where superko matters.
  const std::string ko = setup({"a2", "b3", "b1"}, {"b2", "c3", "c1", "d2"}) + "c2";
  EXPECT_EQ(perft(*play(*five, ko), 3), testing::reference_perft(naive_after(*five, ko), 3));
}

// --- Random games against the reference -------------------------------------------------------

struct Coverage {
  int captures = 0, suicides = 0, superkos = 0, games = 0;
  int most_positions_with_one_count = 0;  // how many earlier positions shared a stone count
};

// Plays random games, passing once in `pass_one_in` moves (or when nothing else is legal).
void compare_random_games(const std::string& options, int num_games, std::uint64_t seed, int pass_one_in, Coverage& cov) {
  auto game = make(options);
  const auto& g = static_cast<const GoGame&>(*game);
  const int n = g.size(), hw = n * n;
  util::Rng rng(seed);
  std::vector<Action> legal;
  for (int gi = 0; gi < num_games; ++gi) {
    auto state = game->new_initial_state();
    const bool simple_ko = g.ko_rule() == GoGame::KoRule::kSimple;
    Naive naive(n, g.komi(), g.max_moves(), simple_ko);
    int stones = 0;
    std::vector<int> positions_with_count(static_cast<size_t>(hw + 1), 0);
    while (true) {
      ASSERT_EQ(state->is_terminal(), naive.terminal());
      state->legal_actions(legal);
      // Board, legal moves, reasons and the observation's rule planes.
      const Player mover = state->current_player();
      std::vector<float> obs;
      if (mover >= 0) obs = state->observation(mover);
      std::vector<Action> expected;
      int now = 0;
      for (int i = 0; i < hw; ++i) {
        const int c = naive.at(i / n, i % n);
        ASSERT_EQ(go(*state).owner(i), c - 1);
        now += c != 0;
        if (state->is_terminal()) continue;
        const auto v = naive.verdict(i);
        if (v == Naive::kLegal) expected.push_back(i);
        const std::string reason = go(*state).illegal_reason(i);
        ASSERT_EQ(v == Naive::kLegal, reason.empty()) << reason;
        if (v == Naive::kSuicide) {
          ASSERT_TRUE(contains(reason, "suicide")) << reason;
          ++cov.suicides;
        } else if (v == Naive::kSuperko) {
          ASSERT_TRUE(contains(reason, simple_ko ? "simple ko" : "superko")) << reason;
          ++cov.superkos;
        } else if (v == Naive::kOccupied) {
          ASSERT_TRUE(contains(reason, "occupied")) << reason;
        }
        ASSERT_EQ(obs[static_cast<size_t>(2 * hw + i)], v == Naive::kSuicide || v == Naive::kSuperko ? 1.0f : 0.0f);
        if (c != 0) {
          const int libs = naive.chain(naive.board(), i, nullptr);
          ASSERT_EQ(go(*state).liberties(i), libs);
          const int plane = (c - 1 == mover ? 3 : 6) + std::min(libs, 3) - 1;
          ASSERT_EQ(obs[static_cast<size_t>(plane * hw + i)], 1.0f);
        }
      }
      if (!state->is_terminal()) expected.push_back(hw);
      ASSERT_EQ(legal, expected) << state->serialize() << "\n" << state->to_string();
      if (now < stones) ++cov.captures;
      stones = now;
      cov.most_positions_with_one_count = std::max(cov.most_positions_with_one_count, ++positions_with_count[static_cast<size_t>(now)]);
      ASSERT_DOUBLE_EQ(go(*state).score(), naive.score());
      if (state->is_terminal()) break;
      // Mostly stones, so games are long and full of captures; a pass now and then.
      Action a = legal.back();
      if (legal.size() > 1 && rng.below(static_cast<std::uint32_t>(pass_one_in)) != 0) a = legal[rng.below(static_cast<std::uint32_t>(legal.size() - 1))];
      state->apply_action(a);
      naive.play(a);
    }
    ++cov.games;
  }
}

TEST(Go, RandomGamesMatchTheNaiveReference) {
  Coverage five, nine;
  compare_random_games("size=5", 300, 11, 40, five);
  compare_random_games("size=9,max_moves=120", 100, 12, 40, nine);
  Coverage simple_ko;
  compare_random_games("size=5,ko=simple", 100, 15, 40, simple_ko);
  EXPECT_GT(simple_ko.superkos, 5);
  // A few very long games, where many earlier positions share one stone count (the
  // implementation switches from per-count lists to a hash set past 64).
  Coverage big;
  compare_random_games("size=19,max_moves=450", 1, 14, 1000, big);  // the largest board, border indices
  EXPECT_GT(big.captures, 0);
  Coverage long_games;
  compare_random_games("size=5,max_moves=700", 4, 13, 1000, long_games);
  EXPECT_GT(long_games.most_positions_with_one_count, 64);
  EXPECT_GT(long_games.superkos, 10);
  EXPECT_GT(five.captures, 1000);
  EXPECT_GT(five.suicides, 100);
  EXPECT_GT(five.superkos, 20);
  EXPECT_GT(nine.captures, 100);
  EXPECT_GT(nine.suicides, 10);
  EXPECT_GT(nine.superkos, 1);
  std::printf("5x5: %d captures, %d suicide and %d superko points seen; 9x9: %d, %d, %d; 5x5 simple ko: %d ko points\n",
              five.captures, five.suicides, five.superkos, nine.captures, nine.suicides, nine.superkos,
              simple_ko.superkos);
}

// --- Generic properties ------------------------------------------------------------------------

TEST(Go, RandomPlayoutInvariants) { testing::check_random_playouts(*make("size=5,max_moves=60"), 1000, 1); }
TEST(Go, RandomPlayoutInvariants9x9) { testing::check_random_playouts(*make("size=9"), 20, 3); }
TEST(Go, Symmetries) { testing::check_symmetries(*make("size=5"), 20, 2); }
TEST(Go, Symmetries7x7) { testing::check_symmetries(*make("size=7,max_moves=80"), 5, 4); }

TEST(Go, PassIsFixedBySymmetries) {
  auto game = make("size=7");
  for (Symmetry s : game->symmetries()) EXPECT_EQ(game->transform_action(s, 49), 49);
  EXPECT_EQ(game->transform_action(Symmetry::kRotate90, 0), 6);  // top-left to top-right
}

// A network sees neither the ko rule nor the move cap (game.h network_spec).
TEST(Go, NetworkSpecLeavesOutWhatTheNetworkNeverSees) {
  EXPECT_EQ(make("size=9,ko=simple,max_moves=100")->network_spec().to_string(), make("size=9")->network_spec().to_string());
  EXPECT_NE(make("size=9,komi=6.5")->network_spec().to_string(), make("size=9")->network_spec().to_string());
  EXPECT_NE(make("size=7")->network_spec().to_string(), make("size=9")->network_spec().to_string());
}

// The auxiliary targets (game.h): each point's owner by area, from the asking seat's side,
// and score() from that side; only once the game is over.
TEST(Go, FinalOwnershipAndScoreAreTheAreaOfEachPoint) {
  const auto game = make("size=5,komi=0.5");
  auto state = game->new_initial_state();
  std::vector<float> ownership(25, 9.0f);
  double score = 0;
  // Black walls off columns a-c, White column e; column d touches both and is no one's.
  for (const char* move : {"c1", "e1", "c2", "e2", "c3", "e3", "c4", "e4", "c5", "e5", "pass"}) {
    state->apply_action(*state->parse_action(move));
    EXPECT_FALSE(state->final_ownership(0, ownership.data())) << "before the end, after " << move;
    EXPECT_FALSE(state->final_score(0, &score));
  }
  state->apply_action(*state->parse_action("pass"));
  for (Player p : {0, 1}) {
    ASSERT_TRUE(state->final_ownership(p, ownership.data()));
    const float mine = p == 0 ? 1.0f : -1.0f;
    for (int a = 0; a < 25; ++a) {
      const int x = a % 5;
      EXPECT_EQ(ownership[static_cast<std::size_t>(a)], x <= 2 ? mine : x == 3 ? 0.0f : -mine) << "seat " << p << " point " << a;
    }
    ASSERT_TRUE(state->final_score(p, &score));
    EXPECT_DOUBLE_EQ(score, mine * 9.5);  // 15 - 5 - 0.5
  }
  EXPECT_DOUBLE_EQ(static_cast<const GoState&>(*state).score(), 9.5);
}

}  // namespace
}  // namespace pz::games
