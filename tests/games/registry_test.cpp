#include "games/registry.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace pz::games {
namespace {

std::string error_of(const std::string& spec) {
  try {
    make_game(spec);
  } catch (const util::UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Registry, HasTheSixBoardGames) {
  for (const char* name : {"tictactoe", "connect4", "hex", "othello", "go", "breakthrough"}) {
    const GameEntry* entry = find_game(name);
    ASSERT_NE(entry, nullptr) << name;
    EXPECT_EQ(entry->family, Family::kBoard);
    auto game = make_game(name);
    EXPECT_EQ(game->info().name, name);
    EXPECT_EQ(game->info().num_players, 2);
    auto state = game->new_initial_state();
    EXPECT_FALSE(state->is_terminal());
    EXPECT_FALSE(state->legal_actions().empty());
  }
}

TEST(Registry, CanonicalSpecSpellsOutEveryOption) {
  EXPECT_EQ(make_game("connect4")->spec().to_string(), "connect4:height=6,width=7");
  EXPECT_EQ(make_game("connect4:width=8")->spec().to_string(), "connect4:height=6,width=8");
  EXPECT_EQ(make_game("CONNECT4")->info().name, "connect4");
}

TEST(Registry, UnknownGameListsTheKnownOnes) {
  std::string e = error_of("chess");
  EXPECT_NE(e.find("unknown game 'chess'"), std::string::npos);
  EXPECT_NE(e.find("connect4"), std::string::npos);
  EXPECT_NE(e.find("othello"), std::string::npos);
}

TEST(Registry, BadOptionsAreExplained) {
  EXPECT_NE(error_of("connect4:depth=3").find("valid options: width, height"), std::string::npos);
  EXPECT_NE(error_of("connect4:width=3").find("4..9"), std::string::npos);
  EXPECT_NE(error_of("connect4:width=9,height=7").find("at most 64"), std::string::npos);
  EXPECT_NE(error_of("hex:size=1").find("2..19"), std::string::npos);
  EXPECT_NE(error_of("go:size=20").find("5..19"), std::string::npos);
  EXPECT_NE(error_of("othello:size=7").find("even"), std::string::npos);
}

TEST(Registry, StatesOutliveNothingButTheirGame) {
  // The registry hands out shared games; states made from a copy stay valid while it lives.
  auto game = make_game("go:size=5");
  auto state = game->new_initial_state();
  auto copy = state->clone();
  state.reset();
  EXPECT_EQ(copy->legal_actions().size(), 26u);
}

// Every game says why a move is refused, in its own words.
TEST(Registry, IllegalMovesAreExplainedByEveryGame) {
  struct Case {
    const char* game;
    std::vector<const char*> moves;
    const char* illegal;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {"tictactoe", {"b2"}, "b2", "cell b2 is taken"},
      {"connect4", {"1", "1", "1", "1", "1", "1"}, "1", "column 1 is full"},
      {"hex", {"c3", "d4"}, "c3", "occupied"},
      {"hex", {"c3", "d4"}, "swap", "second move"},
      {"othello", {}, "a1", "flips no disc"},
      {"othello", {}, "d4", "occupied"},
      {"go:size=5", {"c3"}, "c3", "occupied"},
      {"go:size=5", {"a2", "pass", "b1"}, "a1", "suicide"},
      {"breakthrough", {}, "a1-a2", "your own pawn"},
      {"breakthrough", {}, "a3-a4", "no pawn of yours"},
  };
  for (const auto& c : cases) {
    auto game = make_game(c.game);
    auto state = game->new_initial_state();
    for (const char* m : c.moves) state->apply_checked(*state->parse_action(m));
    auto action = state->parse_action(c.illegal);
    ASSERT_TRUE(action) << c.game << " " << c.illegal;
    ASSERT_FALSE(state->is_legal(*action)) << c.game << " " << c.illegal;
    EXPECT_NE(state->explain_illegal(*action).find(c.reason), std::string::npos)
        << c.game << " " << c.illegal << ": " << state->explain_illegal(*action);
  }
}

}  // namespace
}  // namespace pz::games
