// The Hex solver (solve/hex_solver.h): its bitboard geometry against the game's own
// adjacency and win test, known values of small boards, agreement with the generic
// alpha-beta solver on late positions and under the pie rule, budgets and refusals.
#include <gtest/gtest.h>

#include <chrono>
#include <set>

#include "games/hex.h"
#include "games/registry.h"
#include "solve/hex_bitboard.h"
#include "solve/hex_solver.h"
#include "solve/minimax_solver.h"
#include "solve/position_set.h"
#include "tests/solve/solution_checks.h"
#include "util/rng.h"

namespace pz::solve {
namespace {

constexpr std::size_t kSmallTable = std::size_t{1} << 16;
const SolveOptions kEveryMove{.seconds = 60, .each_move = true};

std::set<std::string> winning_moves(const games::State& state, const Solution& s) {
  std::set<std::string> cells;
  for (const MoveValue& m : s.moves)
    if (m.value > 0) cells.insert(state.action_to_string(state.current_player(), m.action));
  return cells;
}

TEST(HexBitboardTest, NeighboursAreTheGamesAdjacency) {
  for (int size = 2; size <= HexBitboard::kMaxSize; ++size) {
    const games::HexGame game(util::Spec{}, size, false);
    const HexBitboard board(size);
    for (int cell = 0; cell < size * size; ++cell) {
      Cells expected = 0;
      const auto& adjacency = game.adjacency(cell);
      for (int k = 0; k < adjacency.num_cells; ++k) expected |= cell_bit(adjacency.cells[k]);
      EXPECT_EQ(board.neighbours(cell_bit(cell)), expected) << size << "x" << size << " cell " << cell;
      EXPECT_EQ(board.half_turn(cell_bit(cell)), cell_bit(size * size - 1 - cell)) << size << " cell " << cell;
    }
  }
}

TEST(HexBitboardTest, WinningCellsAreTheMovesThatEndTheGame) {
  util::Rng rng(17);
  for (int size : {3, 5, 8}) {
    const auto game = games::make_game("hex:swap=false,size=" + std::to_string(size));
    const HexBitboard board(size);
    for (int i = 0; i < 40; ++i) {
      const auto state = quiet_random_position(*game, static_cast<int>(rng.below(size * size - 1)), rng);
      if (!state) continue;
      const auto& hex = static_cast<const games::HexState&>(*state);
      Cells stones[2] = {0, 0};
      for (int c = 0; c < size * size; ++c)
        if (hex.owner(c) >= 0) stones[hex.owner(c)] |= cell_bit(c);
      const int mover = state->current_player();
      const Cells empty = board.all() & ~(stones[0] | stones[1]);
      const Cells wins = board.winning_cells(stones[mover], empty, mover);
      for (games::Action a : state->legal_actions())
        EXPECT_EQ((wins & cell_bit(a)) != 0, state->may_end_game(a)) << state->serialize() << " " << a;
      EXPECT_FALSE(board.connects(stones[0], 0) || board.connects(stones[1], 1)) << state->serialize();
    }
  }
}

TEST(HexBitboardTest, BridgeConnectionsAreFoundAndBroken) {
  // 4×4, Black (top to bottom) on b2 and b3, which touch: b2 is bridged to the top edge by
  // b1 and c1, b3 to the bottom edge by a4 and b4.
  const HexBitboard board(4);
  const auto at = [](int y, int x) { return cell_bit(y * 4 + x); };
  const Cells black = at(1, 1) | at(2, 1);
  const Cells empty = board.all() & ~black;
  EXPECT_EQ(board.bridge_connection(black, empty, 0), black | at(0, 1) | at(0, 2) | at(3, 0) | at(3, 1));
  // White intrudes at b1: the connection is gone until Black answers at c1.
  const Cells white = at(0, 1);
  EXPECT_EQ(board.bridge_connection(black, empty & ~white, 0), 0u);
  EXPECT_EQ(board.bridge_connection(black | at(0, 2), empty & ~white & ~at(0, 2), 0),
            black | at(0, 2) | at(3, 0) | at(3, 1));
  // White's stones do not connect White's edges by bridges here.
  EXPECT_EQ(board.bridge_connection(white, empty & ~white, 1), 0u);
}

// Without the pie rule the first player wins. The winning openings of 3×3 and 4×4 below are
// those the generic alpha-beta solver finds (3×3 is checked against it here; 4×4 takes it
// seconds): 3×3 the short diagonal plus the middles of White's edges, 4×4 the short diagonal.
TEST(HexSolverTest, SmallBoardsAreFirstPlayerWinsAtTheKnownCells) {
  {
    const auto game = games::make_game("hex:size=3,swap=false");
    const auto start = game->new_initial_state();
    HexSolver solver(3, kSmallTable);
    const Solution s = solver.solve(*start, kEveryMove);
    ASSERT_TRUE(s.complete);
    EXPECT_EQ(s.value, 1);
    EXPECT_EQ(winning_moves(*start, s), (std::set<std::string>{"c1", "a2", "b2", "c2", "a3"}));
    MinimaxSolver generic(*game);
    expect_same_values(s, generic.solve(*start, kEveryMove), "3x3");
  }
  {
    const auto game = games::make_game("hex:size=4,swap=false");
    const auto start = game->new_initial_state();
    HexSolver solver(4, kSmallTable);
    const Solution s = solver.solve(*start, kEveryMove);
    ASSERT_TRUE(s.complete);
    EXPECT_EQ(s.value, 1);
    EXPECT_EQ(winning_moves(*start, s), (std::set<std::string>{"d1", "c2", "b3", "a4"}));
    EXPECT_LT(s.seconds, 1.0);
  }
}

TEST(HexSolverTest, TheCentreOfFiveByFiveWins) {
  const auto game = games::make_game("hex:size=5,swap=false");
  HexSolver solver(5, std::size_t{1} << 20);
  EXPECT_EQ(solver.solve(*game->new_initial_state(), SolveOptions{}).value, 1);
  const Solution after_centre = solver.solve(*game->deserialize("c3"), SolveOptions{});
  ASSERT_TRUE(after_centre.complete);
  EXPECT_EQ(after_centre.value, -1) << "White to move loses after c3";
}

TEST(HexSolverTest, AgreesWithGenericAlphaBetaOnLatePositions) {
  util::Rng rng(23);
  int checked = 0;
  for (const auto& [size, min_ply] : {std::pair{4, 5}, std::pair{5, 13}}) {
    const auto game = games::make_game("hex:swap=false,size=" + std::to_string(size));
    HexSolver solver(size, kSmallTable);
    MinimaxSolver generic(*game);
    for (int i = 0; i < 100; ++i) {
      const int ply = min_ply + static_cast<int>(rng.below(static_cast<std::uint64_t>(size * size - 2 - min_ply)));
      const auto state = quiet_random_position(*game, ply, rng);
      if (!state) continue;
      expect_same_values(solver.solve(*state, kEveryMove), generic.solve(*state, kEveryMove), state->serialize());
      ++checked;
    }
  }
  EXPECT_GE(checked, 180);
}

// The pie rule: the first player loses every opening (a winning stone is swapped, a losing
// one kept), and the positions where White may swap agree with the generic solver.
TEST(HexSolverTest, ThePieRuleIsPlayedOut) {
  for (int size : {3, 4}) {
    const auto game = games::make_game("hex:swap=true,size=" + std::to_string(size));
    HexSolver solver(size, kSmallTable);
    const Solution start = solver.solve(*game->new_initial_state(), kEveryMove);
    ASSERT_TRUE(start.complete);
    EXPECT_EQ(start.value, -1) << size;
    for (const MoveValue& m : start.moves) EXPECT_EQ(m.value, -1) << size << " opening " << m.action;
  }
  const auto game = games::make_game("hex:swap=true,size=3");
  HexSolver solver(3, kSmallTable);
  MinimaxSolver generic(*game);
  for (const char* moves : {"", "a1", "b2", "c1", "b3", "b2 swap", "a3 swap c2"}) {
    const auto state = game->deserialize(moves);
    expect_same_values(solver.solve(*state, kEveryMove), generic.solve(*state, kEveryMove), std::string("'") + moves + "'");
  }
}

TEST(HexSolverTest, ABudgetThatRunsOutSaysSoQuickly) {
  const auto game = games::make_game("hex:size=7,swap=false");
  HexSolver solver(7, kSmallTable);
  const auto start = std::chrono::steady_clock::now();
  const Solution s = solver.solve(*game->new_initial_state(), SolveOptions{.seconds = 0.05, .each_move = true});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(s.complete);
  EXPECT_TRUE(s.moves.empty());
  EXPECT_LT(seconds, 1.0);
  EXPECT_FALSE(solver.solve(*game->new_initial_state(), SolveOptions{.nodes = 5000}).complete);
  // Nothing unfinished was stored: the same solver then solves a late position exactly.
  const auto late5 = games::make_game("hex:size=5,swap=false");
  util::Rng rng(4);
  const auto late = quiet_random_position(*late5, 15, rng);
  ASSERT_TRUE(late);
  HexSolver five(5, kSmallTable);
  EXPECT_FALSE(five.solve(*late5->new_initial_state(), SolveOptions{.nodes = 20000, .each_move = true}).complete);
  MinimaxSolver generic(*late5);
  expect_same_values(five.solve(*late, kEveryMove), generic.solve(*late, kEveryMove), late->serialize());
}

TEST(HexSolverTest, MakeSolverPicksItUpToEightByEight) {
  EXPECT_NE(dynamic_cast<HexSolver*>(make_solver(*games::make_game("hex:size=5")).get()), nullptr);
  EXPECT_NE(dynamic_cast<HexSolver*>(make_solver(*games::make_game("hex:size=8,swap=false")).get()), nullptr);
  // Larger boards keep the generic solver, which still solves their endgames.
  EXPECT_NE(dynamic_cast<MinimaxSolver*>(make_solver(*games::make_game("hex:size=9")).get()), nullptr);
  try {
    HexSolver too_large(9);
    FAIL() << "a 9x9 board does not fit 64 bits";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("8x8"), std::string::npos) << e.what();
  }
}

TEST(HexSolverTest, RefusesWhatItCannotTake) {
  HexSolver solver(3, kSmallTable);
  EXPECT_THROW(solver.solve(*games::make_game("hex:size=4")->new_initial_state(), SolveOptions{}),
               std::invalid_argument);
  EXPECT_THROW(solver.solve(*games::make_game("tictactoe")->new_initial_state(), SolveOptions{}),
               std::invalid_argument);
  const auto won = games::make_game("hex:size=3,swap=false")->deserialize("b1 a1 b2 a2 b3");
  ASSERT_TRUE(won->is_terminal());
  EXPECT_THROW(solver.solve(*won, SolveOptions{}), std::invalid_argument);
}

}  // namespace
}  // namespace pz::solve
