// External engines as players over GTP: a fake engine that misbehaves in every way an engine
// can (each must end the game as that engine's loss, with the reason), and the real engines
// scripts/setup.sh installs, GNU Go (Go) and GRhino (Othello), when the machine has them.
#include "arena/gtp_player.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <sstream>

#include "arena/gtp.h"
#include "arena/gtp_client.h"
#include "arena/gtp_engine.h"
#include "arena/match.h"
#include "arena/player_factory.h"
#include "arena/terminal_game.h"
#include "games/othello.h"
#include "games/registry.h"
#include "util/error.h"
#include "util/spec.h"

namespace pz::arena {
namespace {

std::string fake(const std::string& mode, double timeout = 5) {
  return std::string("gtp:cmd=") + PZ_FAKE_GTP_ENGINE + " " + mode + ",timeout=" + util::format_double(timeout);
}

// One game with `black` as seat 0 and `white` as seat 1.
GameResult one_game(const std::string& game, const std::string& black, const std::string& white, int max_moves = 0) {
  const MatchResult match = play_match(*games::make_game(game), {black, white, 1, 1, 11, max_moves});
  return match.games.at(0);
}

void expect_forfeit(const GameResult& g, int seat, const std::string& reason) {
  EXPECT_EQ(g.forfeit_seat, seat);
  EXPECT_NE(g.termination.find(reason), std::string::npos) << g.termination;
  EXPECT_EQ(g.returns.at(static_cast<std::size_t>(seat)), -1.0);
  EXPECT_EQ(g.returns.at(static_cast<std::size_t>(1 - seat)), 1.0);
  EXPECT_EQ(g.p1_outcome, seat == 0 ? Outcome::kLoss : Outcome::kWin);
}

TEST(GtpPlayer, AnEngineThatCrashesLosesTheGame) {
  const GameResult g = one_game("go", fake("crash"), "random");
  expect_forfeit(g, 0, "engine failure: gtp engine '" PZ_FAKE_GTP_ENGINE " crash' exited (status 1) on 'genmove b'");
  EXPECT_TRUE(g.moves.empty());
}

TEST(GtpPlayer, AnEngineThatAnswersGarbageLosesTheGame) {
  const GameResult g = one_game("go", "random", fake("garbage"));
  expect_forfeit(g, 1, "answered 'genmove w' with 'Welcome! I am not a GTP engine.', which is not a GTP response");
  EXPECT_EQ(g.moves.size(), 1u);
}

TEST(GtpPlayer, AnEngineThatAnswersAnIllegalMoveLosesTheGame) {
  const GameResult occupied = one_game("go", "random", fake("illegal"));
  const std::string first = occupied.moves.at(0);
  expect_forfeit(occupied, 1,
                 "answered an illegal move '" + first + "' to 'genmove w': point " + first + " is occupied");
  const GameResult off_board = one_game("go", fake("illegal"), "random");
  expect_forfeit(off_board, 0, "answered 'genmove b' with 'z99', which is not a move: 'z99' is off the board");
}

TEST(GtpPlayer, AnEngineThatHangsLosesTheGameAfterItsTimeout) {
  const auto start = std::chrono::steady_clock::now();
  const GameResult g = one_game("hex:size=5", fake("hang", 0.5), "random");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  expect_forfeit(g, 0, "timed out after 0.5 s on 'genmove b'");
  EXPECT_LT(seconds, 2.5);
}

TEST(GtpPlayer, AnEngineThatResignsLosesTheGame) {
  const GameResult g = one_game("hex:size=5", "random", fake("resign"));
  expect_forfeit(g, 1, "resigned");
  EXPECT_EQ(g.termination, "resigned");
}

TEST(GtpPlayer, AnEngineThatRefusesGenmoveOrAPlayLosesTheGame) {
  expect_forfeit(one_game("go", fake("refuse"), "random"), 0, "refused 'genmove b': not today");
  const GameResult g = one_game("hex:size=5", "random", fake("badplay"));
  expect_forfeit(g, 1, "refused 'play b " + g.moves.at(0) + "': illegal move");
}

// A command that runs no engine is the user's mistake, not a game the engine lost: counted
// as forfeits it would score a missing program as wins.
TEST(GtpPlayer, AnEngineThatNeverAnswersIsAUsageError) {
  try {
    one_game("go", "random", "gtp:cmd=/nonexistent/engine --mode gtp");
    FAIL() << "a command that runs no engine played a game";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("gtp engine '/nonexistent/engine --mode gtp' exited (status 127)"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("is the program installed?"), std::string::npos) << e.what();
  }
}

TEST(GtpPlayer, AGoodEngineFollowsTheGameToItsEnd) {
  // The fake plays the first free cell: legal only if its board follows every move.
  const MatchResult hex = play_match(*games::make_game("hex:size=5"), {fake("first"), "random", 2, 1, 3, 0});
  for (const auto& g : hex.games) {
    EXPECT_EQ(g.forfeit_seat, -1) << g.termination;
    EXPECT_TRUE(g.termination.empty());
    EXPECT_TRUE(games::make_game("hex:size=5")->deserialize(g.final_state)->is_terminal());
  }
  const GameResult go = one_game("go", "random", fake("pass"), 40);
  EXPECT_EQ(go.forfeit_seat, -1) << go.termination;
  EXPECT_EQ(go.moves.at(1), "pass");
}

TEST(GtpPlayer, SpecsAreChecked) {
  auto go = games::make_game("go");
  EXPECT_THROW(make_player("gtp", *go, 1), util::UsageError);
  EXPECT_THROW(make_player("gtp:cmd=gnugo,timeout=0", *go, 1), util::UsageError);
  EXPECT_THROW(make_player("gtp:cmd=gnugo", *games::make_game("connect4"), 1), util::UsageError);
  EXPECT_THROW(make_player("gtp:cmd=gtp-rhino", *games::make_game("othello:size=6"), 1), util::UsageError);
  EXPECT_EQ(make_player(fake("pass"), *go, 1)->name(),
            std::string("gtp:cmd=") + PZ_FAKE_GTP_ENGINE + " pass,timeout=5");
}

TEST(GtpPlayer, ThePolyzeroEngineRelaysAnExternalEnginesMovesAndFailures) {
  const auto run = [](const std::string& player, const std::string& input) {
    std::istringstream in(input);
    std::ostringstream out;
    GtpEngine engine(games::make_game("hex:size=3"), GtpEngineConfig{player, 1}, in, out);
    engine.run();
    return out.str();
  };
  EXPECT_EQ(run(fake("first"), "play b a1\ngenmove w\ngenmove b\n"), "=\n\n= b1\n\n= c1\n\n");
  EXPECT_EQ(run(fake("resign"), "genmove b\n"), "= resign\n\n");
  EXPECT_EQ(run(fake("crash"), "genmove b\ngenmove b\n"),
            "? engine failure: gtp engine '" PZ_FAKE_GTP_ENGINE " crash' exited (status 1) on 'genmove b'\n\n"
            "? engine failure: gtp engine '" PZ_FAKE_GTP_ENGINE " crash' exited (status 1) on 'genmove b'\n\n");
}

TEST(GtpPlayer, AnEngineThatFailsInTheTerminalEndsTheGame) {
  auto game = games::make_game("hex:size=3");
  std::vector<std::unique_ptr<Player>> players;
  players.push_back(make_player("human", *game, 1));
  players.push_back(make_player(fake("resign"), *game, 2));
  std::istringstream in("b2\n");
  std::ostringstream out;
  TerminalGame session(game, std::move(players), 3, in, out);
  EXPECT_EQ(session.run(), TerminalGame::Outcome::kFinished);
  EXPECT_NE(out.str().find("Game over after 1 moves: player 2 (" + fake("resign") + ") forfeits (resigned)."),
            std::string::npos)
      << out.str();
}

TEST(GtpPlayer, OthelloPassesAreNotSentAndUnseenPositionsAreRefused) {
  // The fake refuses "play b pass", so a sent pass would forfeit the game; Black must pass
  // after this record (games/othello.h's notation), then a1 is legal for White.
  const std::string record =
      "d3 c3 b3 e3 f3 c5 f6 g2 b5 c6 f4 a5 h1 f5 d6 e7 d7 e6 d8 c4 c7 b7 a8 b6 a4 f8 g4 b4 e8 a3 a7 g5 g8 c2 h4 "
      "g3 a2 h3 c1 d1 d2 e1 f1 f7 a6 h6 e2 b8 g7 c8 h5 g6 h2 h7 h8 g1 b2 f2";
  auto game = games::make_game("othello");
  auto player = make_player(fake("nopass"), *game, 1);
  auto state = game->new_initial_state();
  std::istringstream moves(record);
  for (std::string move; moves >> move;) {
    const games::Action action = *state->parse_action(move, nullptr);
    player->observe_action(*state, action);
    state->apply_action(action);
  }
  const games::Action pass = static_cast<const games::OthelloGame&>(*game).pass_action();
  ASSERT_EQ(state->legal_actions(), std::vector<games::Action>{pass});  // Black must pass
  player->observe_action(*state, pass);
  state->apply_action(pass);
  EXPECT_EQ(state->action_to_string(1, player->choose_action(*state, 1)), "a1");  // the fake's first free cell
  // A position it did not see played cannot be shown to the engine.
  auto stranger = make_player(fake("first"), *game, 1);
  EXPECT_THROW(stranger->choose_action(*game->deserialize(state->serialize()), 1), util::UsageError);
}

// The score GRhino gives the Othello game of `moves`: its final_score, e.g. "B+12".
std::string grhino_final_score(const std::string& command, const std::vector<std::string>& moves) {
  GtpClient grhino(command, 20);
  grhino.send("boardsize 8");
  grhino.send("clear_board");
  for (std::size_t i = 0; i < moves.size(); ++i) {
    if (moves[i] != "pass") grhino.send("play " + gtp_colour_name(static_cast<games::Player>(i % 2)) + " " + moves[i]);
  }
  return grhino.send("final_score");
}

// The same score from the final board, by the World Othello Federation's rule GRhino
// follows: the empty squares go to the winner.
std::string othello_score(const games::OthelloState& end) {
  const int black = end.discs(0), white = end.discs(1), empty = 64 - black - white;
  if (black == white) return "0";
  return (black > white ? "B+" : "W+") + std::to_string(std::abs(black - white) + empty);
}

// Whole games against GRhino's GTP front end at level 1, to the end, scored as it scores.
TEST(GtpPlayer, PlaysWholeOthelloGamesAgainstGRhino) {
  const std::string grhino = "/usr/games/gtp-rhino";
  if (!std::filesystem::exists(grhino)) {
    GTEST_SKIP() << grhino << " is not installed (scripts/setup.sh installs it: apt-get install grhino)";
  }
  auto game = games::make_game("othello");
  const std::string command = grhino + " --level 1";
  const MatchResult match = play_match(*game, {"random", "gtp:cmd=" + command + ",timeout=20", 2, 1, 7, 0});
  ASSERT_EQ(match.played(), 2);
  for (const GameResult& g : match.games) {
    EXPECT_EQ(g.forfeit_seat, -1) << g.termination;
    const auto end = game->deserialize(g.final_state);
    ASSERT_TRUE(end->is_terminal());
    const std::string score = othello_score(static_cast<const games::OthelloState&>(*end));
    EXPECT_EQ(grhino_final_score(command, g.moves), score);
    std::cout << "random vs GRhino level 1, game " << g.index << ": " << g.moves.size() << " moves, " << score
              << " (GRhino " << (g.p1_seat == 0 ? "white" : "black") << ")\n";
  }
}

TEST(GtpPlayer, GnuGoIsRefusedUnderPositionalSuperko) {
  const std::string gnugo = "/usr/games/gnugo";
  if (!std::filesystem::exists(gnugo)) GTEST_SKIP() << gnugo << " is not installed (scripts/setup.sh installs it)";
  auto game = games::make_game("go:size=9");
  auto player = make_player("gtp:cmd=" + gnugo + " --mode gtp --level 1", *game, 1);
  try {
    player->choose_action(*game->new_initial_state(), 0);
    ADD_FAILURE() << "GNU Go was not refused";
  } catch (const util::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--game go:ko=simple"), std::string::npos) << error.what();
  }
  // Other engines are not refused (GNU Go under simple ko: PlaysAWholeGameAgainstGnuGo).
  EXPECT_NO_THROW(make_player(fake("pass"), *game, 1)->choose_action(*game->new_initial_state(), 0));
}

// A whole 9x9 game against GNU Go, to the end and its score.
TEST(GtpPlayer, PlaysAWholeGameAgainstGnuGo) {
  const std::string gnugo = "/usr/games/gnugo";
  if (!std::filesystem::exists(gnugo)) GTEST_SKIP() << gnugo << " is not installed (apt-get install gnugo)";
  auto game = games::make_game("go:size=9,ko=simple");
  const std::string engine = "gtp:cmd=" + gnugo + " --mode gtp --level 1,timeout=20";
  const MatchResult match = play_match(*game, {"mcts:sims=50", engine, 1, 1, 5, 0});
  const GameResult& g = match.games.at(0);
  EXPECT_EQ(g.forfeit_seat, -1) << g.termination;
  const auto final_state = game->deserialize(g.final_state);
  EXPECT_TRUE(final_state->is_terminal());
  EXPECT_GT(g.moves.size(), 20u);
  EXPECT_EQ(match.played(), 1);
  std::cout << "mcts:sims=50 (black) vs GNU Go level 1: " << g.moves.size() << " moves, " << final_state->to_string();
}

}  // namespace
}  // namespace pz::arena
