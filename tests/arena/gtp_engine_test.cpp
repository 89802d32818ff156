// polyzero as a GTP engine: scripted sessions with the exact responses expected.
#include "arena/gtp_engine.h"

#include <gtest/gtest.h>

#include <sstream>

#include "games/registry.h"
#include "util/error.h"

namespace pz::arena {
namespace {

struct Session {
  std::istringstream in;
  std::ostringstream out;
  std::unique_ptr<GtpEngine> engine;
  Session(const std::string& game, const std::string& input, const std::string& player = "random:seed=7")
      : in(input), engine(std::make_unique<GtpEngine>(games::make_game(game), GtpEngineConfig{player, 1}, in, out)) {
    engine->run();
  }
};

std::string responses(const std::string& game, const std::string& input) { return Session(game, input).out.str(); }

TEST(GtpEngine, AnswersTheProtocolCommandsWithIds) {
  EXPECT_EQ(responses("go", "protocol_version\n1 name\n2 version\nknown_command genmove\n"
                            "known_command frobnicate\n3 list_commands\n4 quit\nname\n"),
            "= 2\n\n=1 polyzero\n\n=2 0.1.0\n\n= true\n\n= false\n\n"
            "=3 protocol_version\nname\nversion\nknown_command\nlist_commands\nquit\nboardsize\nclear_board\nkomi\n"
            "play\ngenmove\nundo\nshowboard\nfinal_score\ntime_settings\ntime_left\n\n"
            "=4\n\n");  // nothing after quit
}

TEST(GtpEngine, MalformedAndUnknownCommandsFailAndTheSessionGoesOn) {
  EXPECT_EQ(responses("go", "frobnicate\n7 frobnicate\n\n   \n# a comment\nplay\nplay x d4\n9 play b z99\n12\n"
                            "known_command\nboardsize\nkomi lots\nname # the rest is a comment\n"),
            "? unknown command\n\n"
            "?7 unknown command\n\n"
            "? syntax error: expected play COLOUR VERTEX\n\n"
            "? syntax error: 'x' is not a colour (b, w, black or white)\n\n"
            "?9 syntax error: 'z99' is off the board: expected a cell from a1 to j9, or pass\n\n"
            "?12 syntax error: no command after the id\n\n"
            "? syntax error: expected a command name\n\n"
            "? syntax error: expected boardsize SIZE\n\n"
            "? syntax error: 'lots' is not a komi\n\n"
            "= polyzero\n\n");
}

TEST(GtpEngine, ReadsTabsCarriageReturnsAndAnyCaseColours) {
  Session s("go", "1\tplay\tB\tD4\r\nplay WHITE e5\r\n\x01showboard\x02\n");
  EXPECT_EQ(s.engine->state().serialize(), "d4 e5");
  EXPECT_EQ(s.out.str().substr(0, 8), "=1\n\n=\n\n=");
}

TEST(GtpEngine, PlayRefusesIllegalMovesAndTheWrongColour) {
  EXPECT_EQ(responses("go", "play b d4\nplay b e5\nplay w d4\nplay white E5\nundo\nundo\nundo\n"),
            "=\n\n"
            "? illegal move: it is white's turn (colours alternate in this engine)\n\n"
            "? illegal move: point d4 is occupied\n\n"
            "=\n\n=\n\n=\n\n"
            "? cannot undo\n\n");
}

TEST(GtpEngine, BoardsizeRebuildsTheGameWithinItsLimits) {
  Session s("go", "play b c3\nboardsize 13\nboardsize 4\nboardsize 20\nboardsize nine\nshowboard\n");
  const std::string board = games::make_game("go:size=13")->new_initial_state()->to_string();
  EXPECT_EQ(s.out.str(), "=\n\n=\n\n? unacceptable size\n\n? unacceptable size\n\n"
                         "? syntax error: 'nine' is not a board size\n\n=\n" +
                             board + "\n");
  EXPECT_EQ(s.engine->game().spec().to_string(), "go:ko=positional,komi=7.5,max_moves=0,size=13");
  EXPECT_EQ(s.engine->state().move_number(), 0);
}

TEST(GtpEngine, KomiRebuildsGoKeepingTheMovesAndFinalScoreCountsArea) {
  Session s("go:size=5",
            "final_score\nkomi 0\nfinal_score\nplay b c3\nkomi 0.5\nfinal_score\nplay w pass\nplay b pass\n"
            "final_score\nplay w b2\ngenmove w\nkomi 500\n");
  EXPECT_EQ(s.out.str(),
            "= W+7.5\n\n=\n\n= 0\n\n=\n\n=\n\n= B+24.5\n\n=\n\n=\n\n= B+24.5\n\n"
            "? illegal move: the game is over\n\n"
            "? the game is over\n\n"
            "? komi out of range: bad value '500' for option 'komi' of game 'go': expected -400..400\n\n");
  EXPECT_EQ(s.engine->game().spec().options.at("komi"), "0.5");
  EXPECT_EQ(s.engine->state().serialize(), "c3 pass pass");
}

TEST(GtpEngine, GenmovePlaysForTheSideToMoveAndUndoTakesItBack) {
  Session s("go", "genmove b\ngenmove b\n5 genmove w\nundo\n");
  const std::string out = s.out.str();
  ASSERT_EQ(s.engine->state().move_number(), 1);
  const std::string first = s.engine->state().serialize();
  EXPECT_EQ(out.substr(0, out.find("\n\n")), "= " + first);
  EXPECT_NE(out.find("\n\n? it is white's turn (colours alternate in this engine)\n\n=5 "), std::string::npos);
  EXPECT_EQ(out.substr(out.size() - 4), "\n=\n\n");
}

TEST(GtpEngine, TimeSettingsAndTimeLeftAreRecorded) {
  Session s("go",
            "time_settings 300 30 5\ntime_left b 120 0\ntime_left W 20.5 3\ntime_left x 1 1\ntime_settings a b c\n"
            "time_left b 10\n");
  EXPECT_EQ(s.out.str(), "=\n\n=\n\n=\n\n"
                         "? syntax error: 'x' is not a colour (b, w, black or white)\n\n"
                         "? syntax error: expected time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES\n\n"
                         "? syntax error: expected time_left COLOUR TIME STONES\n\n");
  ASSERT_TRUE(s.engine->time_settings());
  EXPECT_EQ(s.engine->time_settings()->main_seconds, 300);
  EXPECT_EQ(s.engine->time_settings()->byo_yomi_stones, 5);
  EXPECT_EQ(s.engine->time_left(0)->seconds, 120);
  EXPECT_EQ(s.engine->time_left(1)->stones, 3);
}

TEST(GtpEngine, EndOfInputEndsTheSessionWithoutQuit) {
  Session s("go", "name");
  EXPECT_EQ(s.out.str(), "= polyzero\n\n");
}

TEST(GtpEngine, HexBoardsizeSwapAndTheWinner) {
  Session s("hex:size=5", "boardsize 7 5\nboardsize 1\nboardsize 3 3\nplay b a1\nplay w swap\nfinal_score\nkomi 6.5\n"
                          "boardsize 2\nplay b a1\nplay w b1\nplay b pass\nplay b a2\nfinal_score\nshowboard\n");
  const std::string out = s.out.str();
  EXPECT_EQ(out.substr(0, out.find("=\n   a b\n")),
            "? unacceptable size (the board must be square)\n\n? unacceptable size\n\n=\n\n=\n\n=\n\n"
            "? cannot score: the game is not over\n\n=\n\n=\n\n=\n\n=\n\n"
            "? syntax error: 'pass' is not a cell: expected a cell from a1 to b2, or 'swap'\n\n=\n\n= B+\n\n");
  EXPECT_EQ(out.substr(out.find("=\n   a b\n")), "=\n" + s.engine->state().to_string() + "\n");
  EXPECT_EQ(s.engine->game().spec().to_string(), "hex:size=2,swap=true");
  EXPECT_TRUE(s.engine->state().is_terminal());
}

TEST(GtpEngine, HexGenmoveAnswersForWhite) {
  Session s("hex:size=5", "play black c3\ngenmove white\nplay w a1\n");
  const std::string out = s.out.str();
  ASSERT_EQ(s.engine->state().move_number(), 2);
  EXPECT_EQ(out.substr(0, out.find("\n\n", 3)), "=\n\n= " + s.engine->state().serialize().substr(3));
  EXPECT_NE(out.find("? illegal move: it is black's turn"), std::string::npos);
}

TEST(GtpEngine, RefusesGamesWithoutGtpAndHumanPlayers) {
  std::istringstream in;
  std::ostringstream out;
  EXPECT_THROW(GtpEngine(games::make_game("tictactoe"), GtpEngineConfig{}, in, out), util::UsageError);
  EXPECT_THROW(GtpEngine(games::make_game("go"), GtpEngineConfig{"human", 1}, in, out), util::UsageError);
  EXPECT_THROW(GtpEngine(games::make_game("go"), GtpEngineConfig{"alphago", 1}, in, out), util::UsageError);
}

}  // namespace
}  // namespace pz::arena
