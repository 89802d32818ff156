// Stored games are checked against their game's rules before they are replayed.
#include "arena/record_check.h"

#include <gtest/gtest.h>

#include "games/registry.h"

namespace pz::arena {
namespace {

StoredGame tictactoe_win() {
  StoredGame g;
  g.id = 7;
  g.game = "tictactoe";
  g.first_player = "random";
  g.second_player = "random";
  g.moves = {"a1", "b1", "a2", "b2", "a3"};
  g.result = "1-0";
  g.reason = "game over";
  auto state = games::make_game(g.game)->new_initial_state();
  for (const auto& m : g.moves) state->apply_action(*state->parse_action(m, nullptr));
  g.final_state = state->serialize();
  return g;
}

TEST(RecordCheck, AGameAsPlayedHolds) { EXPECT_EQ(record_problem(tictactoe_win()), ""); }

TEST(RecordCheck, EachKindOfTamperingIsNamed) {
  auto illegal = tictactoe_win();
  illegal.moves[2] = "a1";  // an occupied cell
  EXPECT_NE(record_problem(illegal).find("move 3"), std::string::npos) << record_problem(illegal);

  auto unreadable = tictactoe_win();
  unreadable.moves[0] = "z9";
  EXPECT_NE(record_problem(unreadable).find("move 1"), std::string::npos);

  auto result = tictactoe_win();
  result.result = "0-1";
  EXPECT_NE(record_problem(result).find("result"), std::string::npos) << record_problem(result);

  auto nonsense = tictactoe_win();
  nonsense.result = "2-0";
  EXPECT_FALSE(record_problem(nonsense).empty());

  auto cut = tictactoe_win();
  cut.moves.pop_back();
  EXPECT_FALSE(record_problem(cut).empty());  // neither the final state nor the end is reached

  auto after_end = tictactoe_win();
  after_end.moves.push_back("c3");
  EXPECT_NE(record_problem(after_end).find("after the end"), std::string::npos);

  auto game = tictactoe_win();
  game.game = "chess";
  EXPECT_NE(record_problem(game).find("cannot be made"), std::string::npos);

  auto final_state = tictactoe_win();
  final_state.final_state = "x";
  EXPECT_NE(record_problem(final_state).find("final position"), std::string::npos);
}

}  // namespace
}  // namespace pz::arena
