// Labelled position sets and accuracy (solve/position_set.h, solve/accuracy.h): the perfect
// player scores 100%, a random player the share the labels predict, sets survive a save and
// reload, bad files are located errors, and the Wilson interval has its textbook values.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "games/registry.h"
#include "solve/accuracy.h"
#include "solve/solver_player.h"
#include "util/error.h"

namespace pz::solve {
namespace {

namespace fs = std::filesystem;

GenerateOptions late_connect4(int count) {
  GenerateOptions o;
  o.count = count;
  o.seed = 17;
  o.min_ply = 24;
  o.max_ply = 34;
  o.engine = "uct:sims=50";
  return o;
}

TEST(AccuracyTest, ThePerfectPlayerIsAlwaysRight) {
  register_solver_player();
  const auto game = games::make_game("connect4");
  GenerateOptions o = late_connect4(30);
  std::vector<int> reported;  // progress: once a labelled position, counting up to the set
  double last_seconds = 0;
  o.on_labelled = [&](int labelled, double seconds) {
    reported.push_back(labelled);
    EXPECT_GE(seconds, last_seconds);
    last_seconds = seconds;
  };
  const PositionSet set = generate_positions(*game, o);
  ASSERT_EQ(set.positions.size(), 30u);
  ASSERT_EQ(reported.size(), 30u);
  for (int i = 0; i < 30; ++i) EXPECT_EQ(reported[i], i + 1);
  const AccuracyReport r = measure_accuracy(*game, set, "solver");
  EXPECT_EQ(r.all.positions, 30);
  EXPECT_EQ(r.all.correct, 30);
  EXPECT_DOUBLE_EQ(r.all.share, 1.0);
  int by_difficulty = 0;
  for (const auto& s : r.by_difficulty) by_difficulty += s.positions;
  EXPECT_EQ(by_difficulty, 30);
}

TEST(AccuracyTest, ARandomPlayerScoresTheShareTheLabelsPredict) {
  const auto game = games::make_game("connect4");
  const PositionSet set = generate_positions(*game, late_connect4(150));
  double expected = 0;
  for (const LabelledPosition& p : set.positions) {
    int right = 0;
    for (const MoveValue& m : p.moves) right += m.value == p.value;
    EXPECT_LT(right, static_cast<int>(p.moves.size())) << "kept positions have a wrong move";
    expected += static_cast<double>(right) / static_cast<double>(p.moves.size());
  }
  expected /= static_cast<double>(set.positions.size());
  const AccuracyReport r = measure_accuracy(*game, set, "random", 3);
  EXPECT_NEAR(r.all.share, expected, 0.12);
  EXPECT_LE(r.all.low, r.all.share);
  EXPECT_GE(r.all.high, r.all.share);
}

TEST(AccuracyTest, OnePlyPositionsAreTheOnesALookaheadSettles) {
  // X to move with three in column 1: an immediate win, so one ply settles it.
  const auto game = games::make_game("connect4");
  const auto state = game->deserialize("121212");
  std::vector<MoveValue> moves;
  for (games::Action a = 0; a < 7; ++a) moves.push_back({a, a == 0 ? 1 : -1, {}});
  EXPECT_TRUE(found_by_one_ply(*state, moves, 1));
  // Tic-tac-toe's opening: nothing is settled by one ply.
  const auto ttt = games::make_game("tictactoe");
  std::vector<MoveValue> draws;
  for (games::Action a = 0; a < 9; ++a) draws.push_back({a, a == 4 ? 0 : -1, {}});
  EXPECT_FALSE(found_by_one_ply(*ttt->new_initial_state(), draws, 0));
}

TEST(AccuracyTest, SetsSurviveSaveAndLoadAndBadFilesAreLocated) {
  const auto game = games::make_game("tictactoe");
  GenerateOptions o;
  o.count = 20;
  o.seed = 4;
  o.engine = "random";
  const PositionSet set = generate_positions(*game, o);
  ASSERT_EQ(set.positions.size(), 20u);
  const std::string path = (fs::temp_directory_path() / "pz_positions_test.jsonl").string();
  save_positions(path, set);
  const PositionSet back = load_positions(path, *game);
  ASSERT_EQ(back.positions.size(), set.positions.size());
  for (std::size_t i = 0; i < set.positions.size(); ++i) {
    EXPECT_EQ(back.positions[i].position, set.positions[i].position);
    EXPECT_EQ(back.positions[i].value, set.positions[i].value);
    EXPECT_EQ(back.positions[i].one_ply, set.positions[i].one_ply);
    EXPECT_EQ(back.positions[i].moves.size(), set.positions[i].moves.size());
  }
  // Another game's set, and a malformed line, are errors with the file and line.
  try {
    load_positions(path, *games::make_game("connect4"));
    FAIL();
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":1: the positions are for tictactoe"), std::string::npos) << e.what();
  }
  std::ofstream(path, std::ios::app) << "{\"position\": 3}\n";
  try {
    load_positions(path, *game);
    FAIL();
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":22:"), std::string::npos) << e.what();
  }
  fs::remove(path);
  EXPECT_THROW(load_positions(path, *game), util::UsageError);
}

TEST(AccuracyTest, WilsonIntervals) {
  const AccuracyShare none = accuracy_share("x", 10, 0);
  EXPECT_NEAR(none.low, 0.0, 1e-9);
  EXPECT_NEAR(none.high, 0.2775, 1e-4);
  const AccuracyShare half = accuracy_share("x", 10, 5);
  EXPECT_NEAR(half.low, 0.2366, 1e-4);
  EXPECT_NEAR(half.high, 0.7634, 1e-4);
  const AccuracyShare empty = accuracy_share("x", 0, 0);
  EXPECT_EQ(empty.share, 0);
}

}  // namespace
}  // namespace pz::solve
