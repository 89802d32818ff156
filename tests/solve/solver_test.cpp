// Exact solvers (solve/solver.h): the Connect Four bitboard solver against the generic
// alpha-beta solver, the generic solver against plain exhaustive minimax, distances played
// out move by move, known values, and budgets.
#include <gtest/gtest.h>

#include <atomic>

#include "games/registry.h"
#include "solve/connect4_solver.h"
#include "solve/minimax_solver.h"
#include "solve/othello_solver.h"
#include "solve/position_set.h"
#include "tests/solve/solution_checks.h"
#include "util/rng.h"

namespace pz::solve {
namespace {

// Plain minimax without pruning or tables: the value for the player to move.
int plain_minimax(const games::State& state) {
  std::vector<games::Action> legal;
  state.legal_actions(legal);
  int best = -2;
  for (games::Action a : legal) {
    auto child = state.clone();
    child->apply_action(a);
    int v;
    if (child->current_player() == games::kTerminalPlayer) {
      const double r = child->returns()[static_cast<std::size_t>(state.current_player())];
      v = (r > 0) - (r < 0);
    } else {
      v = child->current_player() == state.current_player() ? plain_minimax(*child) : -plain_minimax(*child);
    }
    best = std::max(best, v);
  }
  return best;
}

const SolveOptions kEveryMove{.seconds = 60, .each_move = true};

TEST(SolverTest, ConnectFourAgreesWithGenericAlphaBetaOnLatePositions) {
  const auto game = games::make_game("connect4");
  Connect4Solver bitboard(7, 6, 1 << 20);
  MinimaxSolver generic(*game);
  util::Rng rng(5);
  int checked = 0;
  for (int i = 0; i < 40; ++i) {
    auto state = quiet_random_position(*game, 26 + static_cast<int>(rng.below(8)), rng);
    if (!state) continue;
    expect_same_values(bitboard.solve(*state, kEveryMove), generic.solve(*state, kEveryMove), state->serialize());
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST(SolverTest, ConnectFourOnASmallBoardAgreesWithGenericAlphaBetaFromTheStart) {
  // 5 columns x 4 rows from the empty board: the whole game, both solvers.
  const auto game = games::make_game("connect4:width=5,height=4");
  Connect4Solver bitboard(5, 4, 1 << 20);
  MinimaxSolver generic(*game);
  const auto start = game->new_initial_state();
  expect_same_values(bitboard.solve(*start, kEveryMove), generic.solve(*start, kEveryMove), "5x4 start");
}

TEST(SolverTest, ConnectFourDistancesArePlayedOut) {
  // Both sides play the solver's move (quickest win, longest defence): the game must end
  // after exactly the predicted plies with the predicted result.
  const auto game = games::make_game("connect4");
  Connect4Solver solver(7, 6, 1 << 20);
  util::Rng rng(9);
  int checked = 0;
  for (int i = 0; i < 12; ++i) {
    auto state = quiet_random_position(*game, 22 + static_cast<int>(rng.below(8)), rng);
    if (!state) continue;
    const Solution root = solver.solve(*state, kEveryMove);
    ASSERT_TRUE(root.complete && root.plies);
    const games::Player first = state->current_player();
    int plies = 0;
    while (state->current_player() >= 0) {
      const Solution s = solver.solve(*state, kEveryMove);
      const MoveValue* best = nullptr;
      for (const MoveValue& m : s.moves)
        if (m.value == s.value && (!best || (s.value > 0 ? *m.plies < *best->plies : *m.plies > *best->plies))) best = &m;
      ASSERT_NE(best, nullptr);
      EXPECT_EQ(*best->plies, *s.plies) << state->serialize();
      state->apply_action(best->action);
      ++plies;
    }
    EXPECT_EQ(plies, *root.plies);
    const double r = state->returns()[static_cast<std::size_t>(first)];
    EXPECT_EQ((r > 0) - (r < 0), root.value);
    ++checked;
  }
  EXPECT_GE(checked, 6);
}

TEST(SolverTest, ConnectFourImmediateWinsAndForcedBlocks) {
  const auto game = games::make_game("connect4");
  Connect4Solver solver(7, 6, 1 << 16);
  // X has three in column 1 and moves: a win in one ply.
  const auto win = game->deserialize("121212");
  const Solution s = solver.solve(*win, SolveOptions{});
  EXPECT_EQ(s.value, 1);
  EXPECT_EQ(s.plies, 1);
  EXPECT_LE(s.nodes, 1u) << "an immediate win needs no search";
  // Weak solutions carry no distances.
  const Solution weak = solver.solve(*win, SolveOptions{.distances = false});
  EXPECT_EQ(weak.value, 1);
  EXPECT_FALSE(weak.plies);
}

TEST(SolverTest, ABudgetThatRunsOutSaysSo) {
  const auto game = games::make_game("connect4");
  Connect4Solver solver(7, 6, 1 << 16);
  const Solution s = solver.solve(*game->deserialize("44"), SolveOptions{.nodes = 20000, .each_move = true});
  EXPECT_FALSE(s.complete);
  EXPECT_TRUE(s.moves.empty());
  // The table is not poisoned by the aborted search: a later full solve is exact.
  Connect4Solver fresh(7, 6, 1 << 16);
  const auto late = game->deserialize("4444443333332");
  EXPECT_EQ(solver.solve(*late, kEveryMove).value, fresh.solve(*late, kEveryMove).value);
}

// A stop flag (Ctrl-C) ends a solve as a spent budget does: unfinished, nothing claimed.
TEST(SolverTest, AStopFlagEndsTheSolveUnfinished) {
  const auto game = games::make_game("connect4");
  Connect4Solver solver(7, 6, 1 << 16);
  const std::atomic<bool> stop{true};
  const Solution s = solver.solve(*game->new_initial_state(), SolveOptions{.seconds = 3600, .each_move = true, .stop = &stop});
  EXPECT_FALSE(s.complete);
  EXPECT_TRUE(s.moves.empty());
  EXPECT_LT(s.seconds, 60);
}

TEST(SolverTest, TicTacToeIsADrawFromEveryOpening) {
  const auto game = games::make_game("tictactoe");
  MinimaxSolver solver(*game);
  const Solution s = solver.solve(*game->new_initial_state(), kEveryMove);
  EXPECT_EQ(s.value, 0);
  ASSERT_EQ(s.moves.size(), 9u);
  for (const MoveValue& m : s.moves) EXPECT_EQ(m.value, 0) << m.action;
}

// The first player wins Hex (Nash's strategy-stealing argument); on 3×3 the centre wins,
// on 4×4 the two central cells of the short diagonal do.
TEST(SolverTest, SmallHexIsAFirstPlayerWinFromTheCentre) {
  for (const auto& [spec, centre] : {std::pair<std::string, std::vector<std::string>>{"hex:size=3,swap=false", {"b2"}},
                                     {"hex:size=4,swap=false", {"c2", "b3"}}}) {
    const auto game = games::make_game(spec);
    MinimaxSolver solver(*game);
    const auto start = game->new_initial_state();
    const Solution s = solver.solve(*start, kEveryMove);
    ASSERT_TRUE(s.complete) << spec;
    EXPECT_EQ(s.value, 1) << spec;
    for (const std::string& cell : centre) {
      const auto action = start->parse_action(cell);
      ASSERT_TRUE(action) << cell;
      for (const MoveValue& m : s.moves)
        if (m.action == *action) {
          EXPECT_EQ(m.value, 1) << spec << " " << cell;
        }
    }
    int winning = 0;
    for (const MoveValue& m : s.moves) winning += m.value == 1;
    EXPECT_LT(winning, static_cast<int>(s.moves.size())) << spec << ": some openings lose";
  }
}

TEST(SolverTest, OthelloEndgamesAgreeWithPlainMinimax) {
  const auto game = games::make_game("othello:size=6");
  MinimaxSolver solver(*game);
  util::Rng rng(3);
  int checked = 0;
  for (int i = 0; i < 30 && checked < 8; ++i) {
    auto state = quiet_random_position(*game, 20 + static_cast<int>(rng.below(5)), rng);
    if (!state) continue;
    EXPECT_EQ(solver.solve(*state, SolveOptions{}).value, plain_minimax(*state)) << state->serialize();
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

TEST(SolverTest, OthelloBitboardEndgamesAgreeWithGenericAlphaBeta) {
  const auto game = games::make_game("othello");
  OthelloSolver bitboard(1 << 16);
  MinimaxSolver generic(*game);
  util::Rng rng(21);
  int checked = 0;
  for (int i = 0; i < 40 && checked < 12; ++i) {
    auto state = quiet_random_position(*game, 48 + static_cast<int>(rng.below(4)), rng);
    if (!state) continue;
    expect_same_values(bitboard.solve(*state, kEveryMove), generic.solve(*state, kEveryMove), state->serialize());
    ++checked;
  }
  EXPECT_GE(checked, 8);
  EXPECT_NE(dynamic_cast<OthelloSolver*>(make_solver(*game).get()), nullptr) << "8x8 Othello gets the bitboard solver";
  EXPECT_EQ(dynamic_cast<OthelloSolver*>(make_solver(*games::make_game("othello:size=6")).get()), nullptr);
}

TEST(SolverTest, GamesWithoutASolverAreRefusedWithTheReason) {
  std::string why;
  EXPECT_EQ(make_solver(*games::make_game("2048"), &why), nullptr);
  EXPECT_NE(why.find("two-player"), std::string::npos) << why;
  EXPECT_NE(make_solver(*games::make_game("connect4"), &why), nullptr);
  EXPECT_THROW(Connect4Solver(9, 9), std::invalid_argument);
}

}  // namespace
}  // namespace pz::solve
