// Hex solved exactly on bitboards (hex_bitboard.h), boards up to 8×8: win/loss for the
// mover (Hex has no draws), no distances.
//
// The search is negamax on win/loss — an AND/OR search — where every result carries a
// proof set, after the mustplay of the Hex solvers of Hayward, Björnsson, Johanson et al.
// ("Solving 7×7 Hex", 2003) and Arneson, Hayward & Henderson ("Solving Hex: beyond
// humans", 2010), with bridge connections in place of their virtual-connection engine:
//  - Proof set. C proves a win of W at P when W still wins after every cell outside C is
//    filled with the loser's stones. An immediate win is proved by the winning cell and one
//    chain of stones to each edge; a bridge connection by its stones and bridge cells; a
//    win by move m by m plus the proof of the child; a loss by the union of the proofs of
//    the children and of the threats that ruled moves out.
//  - Mustplay. Once a move m of the mover loses with proof C, every move outside C loses too
//    (the opponent's win survives the filled cells, and a stone is never worse for its owner
//    than an empty cell — monotonicity), so only moves in the intersection of the proofs of
//    the losing moves so far are tried.
//  - Connections and threats, before any move is tried (hex_bitboard.h): a mover with a
//    winning cell or a bridge connection wins; an opponent with a bridge connection or two
//    winning cells wins; one winning cell of the opponent must be blocked; a cell that
//    would give the opponent a bridge connection confines the mover to that connection.
//  - A transposition table of fixed size (two-entry buckets: the costlier result kept, the
//    newest beside it) keyed by both colours' stones, the smaller of the position and its
//    half turn, storing the value and the proof set. Every stored result is exact, so a hit
//    ends the node (there is no table move to try first).
//  - Move order: nearest the centre first.
//
// The pie rule (swap=true) is played out at the top: the first move of the game and the
// reply that may swap are enumerated (a swap puts White's stone on the mirror image of
// Black's), and the positions after them are searched as above.
//
// Refuses (std::invalid_argument) boards larger than 8×8: the cell sets are 64 bits.
#pragma once

#include <cstdint>
#include <vector>

#include "solve/hex_bitboard.h"
#include "solve/search_budget.h"
#include "solve/solver.h"

namespace pz::solve {

class HexSolver final : public Solver {
 public:
  // `table_entries`: transposition-table entries (rounded up to a power of two, 32 bytes
  // each), allocated by the first solve().
  explicit HexSolver(int size, std::size_t table_entries = std::size_t{1} << 21);
  std::string name() const override { return "hex bitboard proof-set search"; }
  Solution solve(const games::State& state, const SolveOptions& options) override;

 private:
  // A position between the pie-rule stages: the stones of each colour and who moves.
  struct Position {
    Cells stones[2] = {0, 0};
    int mover = 0;
    Cells empty(Cells all) const { return all & ~(stones[0] | stones[1]); }
  };
  enum class Stage { kPlain, kFirstMoveBeforeSwap, kSwapAvailable };
  struct Result {
    bool win = false;  // for the mover
    Cells proof = 0;
  };
  struct Entry {
    Cells black = 0, white = 0, proof = 0;
    std::uint8_t flags = 0;  // bit 0: used, bit 1: White to move, bit 2: the mover wins
    std::uint8_t cost = 0;   // bit width of the nodes searched below
  };

  // The value for the mover of the position after `move` (a cell, or the swap) at `stage`.
  int move_value(const Position& p, Stage stage, int move);
  int stage_value(const Position& p, Stage stage);  // for the mover
  Result search(const Position& p);
  int ordered_moves(Cells candidates, int* out) const;
  const Entry* probe(const Position& p, std::size_t slot) const;
  void store(const Position& p, std::size_t slot, bool win, Cells proof, std::uint64_t nodes);
  std::size_t bucket(const Position& p) const;

  HexBitboard board_;
  std::vector<int> centre_order_;  // cells, nearest the centre first
  std::size_t table_entries_;
  std::vector<Entry> table_;
  SearchBudget budget_;
  std::uint64_t nodes_ = 0;
};

}  // namespace pz::solve
