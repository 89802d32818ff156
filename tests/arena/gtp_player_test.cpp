// External engines as players over GTP: a fake engine that misbehaves in every way an engine
// can (each must end the game as that engine's loss, with the reason), and GNU Go when the
// machine has it.
#include "arena/gtp_player.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <sstream>

#include "arena/gtp_engine.h"
#include "arena/match.h"
#include "arena/player_factory.h"
#include "arena/terminal_game.h"
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

TEST(GtpPlayer, AnEngineThatCannotStartLosesTheGame) {
  const GameResult g = one_game("go", "random", "gtp:cmd=/nonexistent/engine --mode gtp");
  expect_forfeit(g, 1, "gtp engine '/nonexistent/engine --mode gtp' exited (status 127)");
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

// A whole 9x9 game against GNU Go, to the end and its score.
TEST(GtpPlayer, PlaysAWholeGameAgainstGnuGo) {
  const std::string gnugo = "/usr/games/gnugo";
  if (!std::filesystem::exists(gnugo)) GTEST_SKIP() << gnugo << " is not installed (apt-get install gnugo)";
  auto game = games::make_game("go:size=9");
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
