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

TEST(TerminalGame, TheHumanIsToldTheirSideAndSeesTheLastMove) {
  Session s("connect4", "random", "human", "quit\n");
  EXPECT_EQ(s.game->run(), TerminalGame::Outcome::kQuit);
  const std::string out = s.out.str();
  EXPECT_NE(out.find("You play player 2 (you move second)."), std::string::npos) << out;
  // The board the human sees carries the AI's move under it.
  const auto played = out.find("player 1 (random) plays ");
  ASSERT_NE(played, std::string::npos) << out;
  const std::string move = out.substr(played + 24, 1);
  EXPECT_NE(out.find("Last move: " + move + " by player 1 (random)", played), std::string::npos) << out;
}

TEST(TerminalGame, ASearchingAIShowsItsEvaluationVisitsAndPrincipalVariation) {
  Session s("tictactoe", "mcts:sims=200,seed=5", "human", "quit\n");
  EXPECT_EQ(s.game->run(), TerminalGame::Outcome::kQuit);
  const std::string out = s.out.str();
  const std::string plays = "player 1 (mcts:seed=5,sims=200) plays ";
  const auto played = out.find(plays);
  ASSERT_NE(played, std::string::npos) << out;
  const auto line_end = out.find('\n', played);
  const auto next_end = out.find('\n', line_end + 1);
  const std::string summary = out.substr(line_end + 1, next_end - line_end - 1);
  EXPECT_NE(summary.find("win probability "), std::string::npos) << summary;
  EXPECT_NE(summary.find(" visits:"), std::string::npos) << summary;
  EXPECT_NE(summary.find("; PV "), std::string::npos) << summary;
  // The PV starts with the move played.
  const std::string move = out.substr(played + plays.size(), line_end - played - plays.size());
  EXPECT_NE(summary.find("; PV " + move), std::string::npos) << summary << " / " << move;
}

TEST(TerminalGame, ATypoInALargeGameAnswersWithAHintNotTheWholeMoveList) {
  Session s("go:size=19", "human", "random", "zz99\nquit\n");
  EXPECT_EQ(s.game->run(), TerminalGame::Outcome::kQuit);
  const std::string out = s.out.str();
  EXPECT_NE(out.find("Cannot read 'zz99'"), std::string::npos) << out;
  EXPECT_NE(out.find("Type 'moves' to list the 362 legal moves, or 'help' for commands."), std::string::npos) << out;
  EXPECT_EQ(out.find("Legal moves:"), std::string::npos);
}

TEST(TerminalGame, TwoAIsPlayToTheEnd) {
  Session s("othello", "random", "random:seed=4", "");
  EXPECT_EQ(s.game->run(), TerminalGame::Outcome::kFinished);
  EXPECT_TRUE(s.game->state().is_terminal());
  EXPECT_NE(s.out.str().find("Game over after"), std::string::npos);
}

}  // namespace
}  // namespace pz::arena
