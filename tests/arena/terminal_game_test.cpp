#include "arena/terminal_game.h"

#include <gtest/gtest.h>

#include <sstream>

#include "arena/player_factory.h"
#include "games/registry.h"

namespace pz::arena {
namespace {

struct Session {
  std::istringstream in;
  std::ostringstream out;
  std::unique_ptr<TerminalGame> game;
  Session(const std::string& game_spec, const std::string& p1, const std::string& p2, const std::string& input)
      : in(input) {
    auto g = games::make_game(game_spec);
    std::vector<std::unique_ptr<Player>> players;
    players.push_back(make_player(p1, *g, 1));
    players.push_back(make_player(p2, *g, 2));
    game = std::make_unique<TerminalGame>(g, std::move(players), 3, in, out);
  }
};

TEST(TerminalGame, HumansPlayAWholeGame) {
  Session s("tictactoe", "human", "human", "b2\na1\nc1\na3\na2\nc2\nb1\nb3\nc3\n");
  EXPECT_EQ(s.game->run(), TerminalGame::Outcome::kFinished);
  EXPECT_NE(s.out.str().find("Draw."), std::string::npos);
  EXPECT_EQ(s.game->state().serialize(), "oxxxxooox");
}

TEST(TerminalGame, IllegalAndUnreadableMovesAreRefusedWithReasons) {
  Session s("connect4", "human", "human", "9\nfoo\n1\n1\n1\n1\n1\n1\n1\nquit\n");
  EXPECT_EQ(s.game->run(), TerminalGame::Outcome::kQuit);
  const std::string out = s.out.str();
  EXPECT_NE(out.find("Cannot read '9': '9' is not a column: expected a number from 1 to 7"), std::string::npos);
  EXPECT_NE(out.find("Cannot read 'foo'"), std::string::npos);
  EXPECT_NE(out.find("Illegal move 1: column 1 is full"), std::string::npos);
  EXPECT_NE(out.find("Legal moves: 2 3 4 5 6 7"), std::string::npos);
  EXPECT_EQ(s.game->state().move_number(), 6);
}

TEST(TerminalGame, UndoTakesBackTheHumanMoveAndTheReply) {
  Session s("connect4", "human", "random", "4\nundo\nundo\nquit\n");
  EXPECT_EQ(s.game->run(), TerminalGame::Outcome::kQuit);
  const std::string out = s.out.str();
  EXPECT_NE(out.find("player 2 (random) plays"), std::string::npos);
  EXPECT_NE(out.find("Undone."), std::string::npos);
  EXPECT_NE(out.find("Nothing to undo."), std::string::npos);
  EXPECT_EQ(s.game->state().move_number(), 0);
}

TEST(TerminalGame, HelpListsCommandsAndLegalMoves) {
  Session s("tictactoe", "human", "random", "help\nmoves\n");
  EXPECT_EQ(s.game->run(), TerminalGame::Outcome::kInputEnded);
  const std::string out = s.out.str();
  EXPECT_NE(out.find("Commands: moves"), std::string::npos);
  EXPECT_NE(out.find("Legal moves: a1 b1 c1 a2 b2 c2 a3 b3 c3"), std::string::npos);
}

TEST(TerminalGame, TwoAIsPlayToTheEnd) {
  Session s("othello", "random", "random:seed=4", "");
  EXPECT_EQ(s.game->run(), TerminalGame::Outcome::kFinished);
  EXPECT_TRUE(s.game->state().is_terminal());
  EXPECT_NE(s.out.str().find("Game over after"), std::string::npos);
}

}  // namespace
}  // namespace pz::arena
