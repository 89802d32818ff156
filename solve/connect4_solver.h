// Connect Four solved exactly on bitboards (Allis, "A knowledge-based approach of
// Connect-Four", 1988, first solved it; this is the search approach of Pascal Pons' solver
// tutorial, written anew here):
//  - negamax with alpha-beta over the score (+ when the mover wins: the sooner, the larger),
//    found by null-window searches that bisect the score interval (MTD-style);
//  - a transposition table of upper bounds keyed by the position;
//  - only moves that do not lose at once are searched (a forced block is played; never
//    under an opponent's winning cell), ordered by the winning cells they create, centre
//    columns first;
//  - an immediate win is recognised before any search.
// Any board with width·(height+1) ≤ 64 (the bitboard of games/connect4.h).
#pragma once

#include <cstdint>
#include <vector>

#include "solve/search_budget.h"
#include "solve/solver.h"

namespace pz::solve {

class Connect4Solver final : public Solver {
 public:
  // `table_entries`: transposition-table size (rounded to a prime; 9 bytes each), allocated
  // by the first solve(), so that asking make_solver() whether a game has one costs nothing.
  Connect4Solver(int width, int height, std::size_t table_entries = std::size_t{1} << 23);
  std::string name() const override { return "connect4 bitboard negamax"; }
  Solution solve(const games::State& state, const SolveOptions& options) override;

 private:
  // Scores are for the mover: (W·H + 1 − n)/2 > 0 when it wins with disc n + 1, 0 a draw,
  // the opposite of the opponent's score when it loses. The plies to the end of the game
  // for a score at a position where `moves` discs are down:
  int plies_for_score(int score, int moves) const;
  struct Position {
    std::uint64_t current = 0, mask = 0;  // the mover's discs, every disc
    int moves = 0;
  };
  std::uint64_t winning_cells(std::uint64_t discs, std::uint64_t mask) const;
  std::uint64_t possible(const Position& p) const { return (p.mask + bottom_) & board_; }
  std::uint64_t non_losing_moves(const Position& p) const;
  bool can_win_next(const Position& p) const { return (winning_cells(p.current, p.mask) & possible(p)) != 0; }
  static Position played(const Position& p, std::uint64_t move);
  int negamax(const Position& p, int alpha, int beta);
  int solve_position(const Position& p, bool weak);
  std::uint64_t column_mask(int column) const;

  int width_, height_, cells_;
  std::uint64_t bottom_ = 0, board_ = 0;
  std::vector<int> order_;  // columns, centre first
  std::size_t table_entries_;
  std::vector<std::uint64_t> keys_;
  std::vector<std::int8_t> values_;  // upper bound + cells/2 + 1; 0: empty
  SearchBudget budget_;
};

}  // namespace pz::solve
