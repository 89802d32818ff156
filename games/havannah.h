// Havannah on a hexagonal board of base (cells per side) 4..10, default 8 (option `base`),
// with the swap rule (option `swap`, default true).
//
// Rules. Black (seat 0, 'X') and White (seat 1, 'O') alternately place a stone on an empty
// cell, Black first; stones never move. A player wins at once on completing, with one
// connected group of own stones:
//  * a ring: a closed loop of own stones around at least one cell; the enclosed cells may
//    be empty or hold stones of either colour (a loop around own stones — a "filled" ring
//    — counts too);
//  * a bridge: a group touching two of the six corner cells;
//  * a fork: a group touching three of the six edges (corner cells belong to no edge).
// A full board without a winner is a draw (0/0); otherwise the winner gets +1, the loser -1.
//
// Swap rule (swap=true), the convention of games/hex.h: on the second move of the game
// only, White may play "swap" instead of placing a stone: Black's single stone is removed
// and a WHITE stone put in its place, and it is Black's turn again. Hex reflects the stone
// because its colours have different goals; Havannah's goals are the same for both
// colours, so the stone stays on its cell and the result is exactly the position "swap
// colours" would give. Seats keep their colours. Swap counts as a move: afterwards
// move_number() is 2, Black has no stone, White has one, and the mover is still seat
// move_number() % 2.
//
// Board and coordinates. The hexagon lives in a (2b-1)×(2b-1) array, row y from the top
// and column x from the left (both 0-based, S = 2b-1); cell (y, x) is on the board when
// b-1 <= x+y <= 3(b-1), and it touches the six cells (y-1,x), (y-1,x+1), (y,x+1), (y+1,x),
// (y+1,x-1), (y,x-1) — in that circular order — that are on the board (Hex's neighbours).
// The two array corners outside the hexagon are unused. Notation (Little Golem /
// HavannahGUI style): the column letter (a = x 0, left) and the row NUMBER counted from the
// bottom (number = S - y), so a1 is the bottom-left corner. With L(k) the k-th letter, the
// six corners are a1, a{b}, L(b){S}, L(S){S}, L(S){b} and L(b)1 — for base 4: a1, a4, d7,
// g7, g4, d1; for base 8: a1, a8, h15, o15, o8, h1. Column letter c holds the
// numbers 1..b+c for the first b letters (c counted from 0) and c-b+2..2b-1 after. The
// neighbours of e5 are e6, f6, f5, e4, d4 and d5 (d4 and f6 touch it, d6 and f4 do not).
// Base 4 as to_string() draws it, left, with the cell names, right (each column letter
// sits at the lower end of its column, which runs down to the right):
//
//    7    . . . .              d7  e7  f7  g7
//    6   . . . . .           c6  d6  e6  f6  g6
//    5  . . . . . .        b5  c5  d5  e5  f5  g5
//    4 . . . . . . .     a4  b4  c4  d4  e4  f4  g4
//    3  . . . . . . g      a3  b3  c3  d3  e3  f3
//    2   . . . . . f         a2  b2  c2  d2  e2
//    1    . . . . e            a1  b1  c1  d1
//          a b c d
//
// Output is lower case; input is case-insensitive; "swap" is the swap.
//
// Representation. One int16 per array cell: 0 empty, or (index of the move that placed
// the stone) + 1 — the colour is that index's parity, the swap stone counts as move 1's
// (White's) — so the board doubles as the game record. A union-find over the cells (union
// by size, path halving) keeps, at each root, a 12-bit mask of the corners (bits 0-5) and
// edges (bits 6-11) its group touches: bridge and fork are popcounts after the union,
// O(α(n)) per move. Rings are found in O(1) from the new stone's neighbourhood. Let c be
// the new stone, of colour p; no ring existed before it. p's neighbours of c form arcs
// (runs of consecutive positions in the circular order). The move makes a ring exactly
// when
//  (a) two different arcs hold stones of ONE group from before the move, or
//  (b) one of c's p neighbours now has six p neighbours (a "filled" ring around it).
// Why (a) suffices: take u, w in the two arcs and a path P between them inside their
//   group (it avoids c, which was empty); the cycle c-u-P-w-c is simple. Between u and w,
//   on each side around c, is a non-p position (else u and w would share an arc); the
//   positions on the side facing the inside of the cycle lie strictly inside it (edges of
//   the cell lattice do not cross), and they are cells of the board because the hexagon
//   is convex: an enclosed cell, a ring.
// Why (a) or (b) is necessary: a new ring's loop L runs through c (a loop avoiding c
//   existed, and enclosed a cell, before). Let u, w be c's neighbours on L. In different
//   arcs they are in one group through L minus c: (a). In one arc, replace c on L by the
//   arc's cells between u and w: if they pass outside L, that older loop enclosed L's
//   inside and c; if inside, it enclosed L's inside less those cells — either way a ring
//   before the move unless L's inside consists only of those cells: p stones adjacent to
//   c, whose six neighbours (inside L or on L) are all p's: (b).
// A flood fill is never needed. The tests check this against a brute-force reference
// (a cell that cannot reach the rim of the board through non-p cells, treating itself as
// passable, is enclosed) on thousands of random games. A bit mask of the empty cells makes
// legal_actions a walk over set bits. All arrays are fixed-size for base 10 (19×19), about
// 2.2 KB per state, copied with a memcpy.
//
// Observation (5 × S × S, from `player`'s point of view; row 0 = the top row as drawn):
//   0: `player`'s stones     1: the opponent's stones
//   2: ones on the cells of the board (the hexagon mask; zeros in the unused corners)
//   3: ones when `player` is Black (first player)
//   4: ones when `player` is to move and may still swap (move 2 with swap=true)
// Policy: 2 × S × S. Plane 0 cell (y, x) = placing at (y, x), action y·S + x (actions of the
// unused corner cells are never legal); the swap is action S·S, policy plane 1 cell 0, the
// rest of plane 1 unused.
//
// Symmetries: the hexagon has twelve, but only four are D4 transformations of the square
// array that keep the neighbour relation: identity, the half turn (rotate180), the
// transpose ((y, x) -> (x, y): the reflection in the axis through the midpoints of the
// upper-left and lower-right sides) and the anti-transpose (the reflection in the axis
// through the top-right and bottom-left corners, a1 and the opposite one). Being
// automorphisms of the board graph they map corners to corners and edges to edges, so the
// rules are invariant; the swap action is its own image. (The quarter turns, mirror and
// flip turn the neighbour direction (y-1, x+1) into (y-1, x-1) or (y+1, x+1), which are
// not neighbours.)
//
// Hash: Zobrist keys for every (colour, cell), one for Black to move and one for "swap
// still available".
//
// Serialised form: the moves in notation separated by single spaces ("h8 swap d4"), empty
// for the initial position (any whitespace separates tokens on input). deserialize replays
// it with full legality checks and throws util::UsageError naming the move (1-based) and
// why it is refused.
#pragma once

#include <cstdint>

#include "games/game.h"
#include "games/registry.h"
#include "games/zobrist.h"
#include "games/swap_rule.h"

namespace pz::games {

class HavannahGame final : public Game {
 public:
  static constexpr int kMinBase = 4, kMaxBase = 10;
  static constexpr int kMaxSide = 2 * kMaxBase - 1;
  static constexpr int kMaxCells = kMaxSide * kMaxSide;  // array cells, used or not
  static constexpr int kObservationPlanes = 5;
  // Win kinds (bits of HavannahState::win_kinds()).
  static constexpr int kRing = 1, kBridge = 2, kFork = 4;

  HavannahGame(util::Spec spec, int base, bool swap);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
  Action transform_action(Symmetry symmetry, Action action) const override;

  int base() const { return base_; }
  int side() const { return side_; }                    // S = 2·base - 1
  int num_array_cells() const { return side_ * side_; }  // S²
  int num_cells() const { return num_cells_; }          // cells on the board: 3b² - 3b + 1
  const SwapRule& swap_rule() const { return swap_; }
  bool swap_allowed() const { return swap_.allowed; }
  Action swap_action() const { return swap_.action; }
  const ZobristTable& zobrist() const { return zobrist_; }

  struct CellInfo {
    std::int16_t neighbours[6];  // circular order (see the header comment); -1 off the board
    std::uint16_t mask;          // corner bits 0-5, edge bits 6-11 (0 for interior cells)
    bool on_board;
    bool rim;                    // on the board with fewer than six neighbours
  };
  const CellInfo& cell(int c) const { return cells_[static_cast<size_t>(c)]; }
  // Action of the cell named by column letter index `x` and 1-based row number (from the
  // bottom), which may be off the board.
  Action action_of(int x, int number) const { return (side_ - number) * side_ + x; }

 private:
  int base_, side_, num_cells_;
  SwapRule swap_;
  ZobristTable zobrist_;  // 2·kMaxCells stones (colour-major), Black to move, swap available
  std::vector<CellInfo> cells_;
};

class HavannahState final : public State {
 public:
  explicit HavannahState(const HavannahGame* game);
  std::unique_ptr<State> clone() const override { return std::make_unique<HavannahState>(*this); }
  bool assign_from(const State& other) override { return assign_same(*this, other); }

  Player current_player() const override;
  int move_number() const override { return moves_; }
  void legal_actions(std::vector<Action>& out) const override;
  void apply_action(Action action) override;
  std::string explain_illegal(Action action) const override;
  std::vector<double> returns() const override;
  void observation(Player player, float* out) const override;
  std::string action_to_string(Player player, Action action) const override;
  std::optional<Action> parse_action(std::string_view text, std::string* error) const override;
  std::string to_string() const override;
  std::uint64_t hash() const override { return hash_; }
  std::string serialize() const override;

  // Colour (seat) of the stone on array cell `c`, or -1 when empty (or off the board).
  int owner(int c) const { return stamp_[c] == 0 ? -1 : (stamp_[c] - 1) & 1; }
  // Seat that has won, or -1 (also for a draw).
  int winner() const { return winner_; }
  // The kinds of structure the winning move completed (HavannahGame::kRing | kBridge | kFork).
  int win_kinds() const { return win_kinds_; }
  bool swap_available() const;
  // Exact: the stone completes a ring, bridge or fork, or fills the board.
  bool may_end_game(Action action) const override;
  // Corner/edge mask of the group holding the stone on `c` (0 for an empty cell).
  std::uint16_t group_mask(int c) const { return stamp_[c] == 0 ? 0 : mask_[root(c)]; }

 private:
  friend class HavannahGame;
  const HavannahGame& havannah() const { return static_cast<const HavannahGame&>(State::game()); }
  bool over() const { return winner_ >= 0 || stones_ == havannah().num_cells(); }
  int root(int c) const;
  int find(int c);
  void unite(int a, int b);
  // The win kinds a stone of `player` on the empty cell c would complete.
  int win_kinds_of(int player, int c) const;
  // Places a stone of `player` on c with the given stamp and returns the win kinds made.
  int place(int player, int c, int stamp);
  // True when the stone just placed on c (colour p) encloses a region of non-p cells.
  bool encloses(int c, int p) const;

  static constexpr int kWords = (HavannahGame::kMaxCells + 63) / 64;
  std::uint64_t empty_[kWords];                  // empty cells of the board
  std::int16_t stamp_[HavannahGame::kMaxCells];  // 0 empty, else placing move index + 1
  std::int16_t parent_[HavannahGame::kMaxCells];  // union-find: parent, or -(size) at a root
  std::uint16_t mask_[HavannahGame::kMaxCells];   // corner/edge bits, valid at roots
  std::int16_t moves_ = 0;
  std::int16_t stones_ = 0;
  std::int8_t winner_ = -1;
  std::int8_t win_kinds_ = 0;
  bool swapped_ = false;
  std::uint64_t hash_ = 0;
};

GameEntry havannah_entry();

}  // namespace pz::games
