// Hex boards of up to 8×8 as 64-bit cell sets, for the Hex solver (hex_solver.h).
//
// Cell (y, x) — row y from the top, column x from the left — is bit y·size + x, the action
// number of games/hex.h. Its six neighbours are (y−1, x), (y−1, x+1), (y, x−1), (y, x+1),
// (y+1, x−1), (y+1, x): shifts by ±1, ±size and ±(size − 1), masked where a shift would
// wrap around a row. Colour 0 (Black) joins the top row to the bottom row, colour 1 (White)
// the left column to the right column.
//
// Connection is a flood fill: the stones reachable from a seed set grow by one ring of
// neighbours per step until nothing changes. A winning cell of a colour is an empty cell
// that touches (or lies on) each of its two edges directly or through a chain of its stones.
#pragma once

#include <bit>
#include <cstdint>

namespace pz::solve {

using Cells = std::uint64_t;

inline Cells cell_bit(int cell) { return Cells{1} << cell; }
inline Cells lowest_cell(Cells set) { return set & (~set + 1); }

class HexBitboard {
 public:
  static constexpr int kMaxSize = 8;

  // Precondition: 1 ≤ size ≤ kMaxSize.
  explicit HexBitboard(int size) : size_(size) {
    const int cells = size * size;
    all_ = cells == 64 ? ~Cells{0} : (Cells{1} << cells) - 1;
    for (int i = 0; i < size; ++i) {
      edges_[0][0] |= cell_bit(i);                            // top row
      edges_[0][1] |= cell_bit((size - 1) * size + i);        // bottom row
      edges_[1][0] |= cell_bit(i * size);                     // left column
      edges_[1][1] |= cell_bit(i * size + size - 1);          // right column
    }
  }

  int size() const { return size_; }
  int cells() const { return size_ * size_; }
  Cells all() const { return all_; }
  // The first (side 0) or second (side 1) edge of `colour`.
  Cells edge(int colour, int side) const { return edges_[colour][side]; }

  // Every cell adjacent to a cell of `set` (cells of `set` included only where adjacent to
  // another one).
  Cells neighbours(Cells set) const {
    const Cells not_left = set & ~edges_[1][0], not_right = set & ~edges_[1][1];
    const int n = size_;
    return ((not_right << 1) | (not_left >> 1) | (set >> n) | (set << n) | (not_right >> (n - 1)) |
            (not_left << (n - 1))) &
           all_;
  }

  // The stones of `stones` joined to `seeds` through `stones` (the seeds that are stones
  // included).
  Cells reach(Cells stones, Cells seeds) const {
    Cells reached = seeds & stones;
    for (Cells before = 0; reached != before;) {
      before = reached;
      reached |= neighbours(reached) & stones;
    }
    return reached;
  }

  // True when `stones` of `colour` join its two edges.
  bool connects(Cells stones, int colour) const {
    return (reach(stones, edges_[colour][0]) & edges_[colour][1]) != 0;
  }

  // The empty cells where a stone of `colour` would join its two edges.
  Cells winning_cells(Cells own, Cells empty, int colour) const {
    return touching(own, empty, colour, 0) & touching(own, empty, colour, 1);
  }

  // What makes `cell` a winning cell of `colour`: the cell and one chain of `own` stones
  // from it to each edge it does not lie on. Precondition: `cell` is a winning cell.
  Cells win_carrier(Cells own, int colour, int cell) const {
    Cells carrier = cell_bit(cell);
    for (int side = 0; side < 2; ++side) {
      if (carrier & edges_[colour][side]) continue;
      const Cells chained = neighbours(cell_bit(cell)) & reach(own, edges_[colour][side]);
      carrier |= reach(own, lowest_cell(chained));
    }
    return carrier;
  }

  // A connection of `colour`'s edges that holds with the opponent to move: its stones
  // joined by bridges — two empty cells each adjacent to both sides, so that an intrusion
  // into one is answered by the other — whose pairs are disjoint. Grown greedily from the
  // first edge (an edge counts as adjacent to the empty cells on it); returns the stones and
  // bridge cells that the connection needs, or 0 when the growth does not reach the second
  // edge (a connection may exist all the same).
  Cells bridge_connection(Cells own, Cells empty, int colour) const {
    const Cells first = edges_[colour][0], second = edges_[colour][1];
    Piece pieces[64];
    int count = 0;
    Cells joined = reach(own, first), spent = 0;
    for (Cells rest = joined; rest;) {
      pieces[count] = {reach(own, lowest_cell(rest)), 0};
      rest &= ~pieces[count++].stones;
    }
    for (bool grew = true; grew;) {
      grew = false;
      const Cells liberties = (neighbours(joined) | first) & empty & ~spent;
      if (const Cells at_edge = liberties & second; std::popcount(at_edge) >= 2)
        return needed(pieces, count, two_cells(at_edge), first);
      for (Cells rest = own & ~joined & neighbours(liberties); rest;) {
        const Cells group = reach(own, lowest_cell(rest));
        rest &= ~group;
        const Cells common = neighbours(group) & liberties;
        if (std::popcount(common) < 2) continue;
        pieces[count++] = {group, two_cells(common)};
        joined |= group;
        spent |= pieces[count - 1].bridge;
        grew = true;
        break;  // the liberties changed
      }
    }
    return 0;
  }

  // `set` turned by half a turn about the centre: cell i ↦ cells − 1 − i, the symmetry of
  // the rules (each colour keeps its pair of edges).
  Cells half_turn(Cells set) const {
    set = ((set >> 1) & 0x5555555555555555ULL) | ((set & 0x5555555555555555ULL) << 1);
    set = ((set >> 2) & 0x3333333333333333ULL) | ((set & 0x3333333333333333ULL) << 2);
    set = ((set >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((set & 0x0F0F0F0F0F0F0F0FULL) << 4);
    return __builtin_bswap64(set) >> (64 - cells());
  }

  // The mirror image of `cell` in the long diagonal: (y, x) ↦ (x, y).
  int transposed(int cell) const { return (cell % size_) * size_ + cell / size_; }

 private:
  // A group of stones and the bridge that joined it (none for those on the first edge).
  struct Piece {
    Cells stones, bridge;
  };
  // What a bridge connection needs: the final bridge `cells`, and back through the pieces
  // (last joined first) each piece next to a cell still unsupported, with its own bridge.
  Cells needed(const Piece* pieces, int count, Cells cells, Cells first) const {
    Cells proof = cells, unsupported = cells & ~first;
    for (int k = count - 1; k >= 0 && unsupported; --k) {
      if (!(neighbours(pieces[k].stones) & unsupported)) continue;
      proof |= pieces[k].stones | pieces[k].bridge;
      unsupported = (unsupported & ~neighbours(pieces[k].stones)) | (pieces[k].bridge & ~first);
    }
    return proof;
  }
  static Cells two_cells(Cells set) {
    const Cells one = lowest_cell(set);
    return one | lowest_cell(set & ~one);
  }
  // The empty cells on the edge (colour, side) or adjacent to own stones joined to it.
  Cells touching(Cells own, Cells empty, int colour, int side) const {
    const Cells edge = edges_[colour][side];
    return (neighbours(reach(own, edge)) | edge) & empty;
  }

  int size_;
  Cells all_ = 0;
  Cells edges_[2][2] = {};
};

}  // namespace pz::solve
