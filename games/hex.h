// Hex on a size×size rhombus (options: size 2..19, default 11; swap, default true).
//
// Rules. Players alternately place a stone on an empty cell. Black (seat 0, 'X') moves
// first and wins by joining the top edge (row 1) to the bottom edge (row size) with a chain
// of black stones; White (seat 1, 'O') joins the left edge (column a) to the right edge.
// Cell (y, x) — row y from the top, column x from the left, both 0-based — touches six
// cells: (y-1,x), (y-1,x+1), (y,x-1), (y,x+1), (y+1,x-1), (y+1,x). A full board always has
// exactly one winning chain, so there are no draws; the winner gets +1, the loser -1.
//
// Swap rule (swap=true): on the second move of the game only, White may play "swap"
// instead of placing a stone. This is "swap pieces": Black's single stone at (y, x) is
// removed, a WHITE stone is placed on the mirrored cell (x, y) (the reflection in the long
// diagonal, the one through a1 and the opposite corner), and it is Black's turn again.
// Seats keep their colours and their goals. The result is the position "swap colours"
// would give, relabelled by that reflection (which exchanges the two colours' goals), so
// the move is the pie rule. Swap counts as a move: after it move_number() is 2, Black has
// no stone, White has one, and the mover is still seat move_number() % 2.
//
// Notation: column letter + row number counted from the top, a1 = the top-left corner
// (HexGui and Little Golem convention), and "swap". Output is lower case; input is
// case-insensitive.
//
// Representation: one int16 per cell, 0 for empty or (index of the move that placed the
// stone) + 1 — the colour is that index's parity, and the swap stone counts as placed by
// move 1 (White's). Sorting the stones by that index gives back the move history, so the
// board doubles as the game record. Connection is a union-find over the cells plus four
// virtual edge nodes (top, bottom for Black; left, right for White), with union by size
// (a root stores minus its size) and path halving: a move unites the new stone with its
// same-coloured neighbours and its own edges, and the game is won when the two edges of
// the mover share a root — O(α(n)) per move. A bit mask of the empty cells makes
// legal_actions a walk over set bits. All arrays are fixed-size for 19×19 (int16 where
// they hold cells), so a state is about 1.5 KB of plain data and copies with a memcpy.
//
// Observation (6×size×size, from `player`'s point of view; row 0 = top row):
//   0: `player`'s stones       1: the opponent's stones
//   2: ones when `player` is Black (the colours' goals differ, and the planes are not
//      transposed to make them alike)
//   3: ones when `player` is to move and may still swap (move 2 with swap=true)
//   4: `player`'s stones already joined (through own stones) to either of `player`'s edges
//   5: the opponent's stones joined to either of the opponent's edges
// Planes 4 and 5 merge both edges of a colour so that they commute with the half turn.
//
// Policy: 2×size×size. Plane 0 cell (y, x) = placing at (y, x), action y·size + x; the
// swap is action size·size, policy plane 1 cell 0. Plane 1's other cells are unused. The
// action space always includes swap (also with swap=false, where it is never legal) so
// the network's shape does not depend on the option.
//
// Symmetries: identity and the half turn (rotate180), the only transformations that keep
// the rhombus with each colour's pair of edges. (The transpose maps the rhombus onto
// itself but exchanges top/bottom with left/right, i.e. Black's goal with White's, so it
// is not a symmetry of the rules.) The swap action is its own image.
//
// Hash: Zobrist keys for every (colour, cell), one for Black to move and one for "swap
// still available".
//
// Serialised form: the moves in notation separated by single spaces ("c3 swap d4"), empty
// for the initial position (tokens may be separated by any whitespace on input).
// deserialize replays it with full legality checks and throws util::UsageError naming the
// move (1-based) and why it is refused: unreadable, occupied, swap misplaced or switched
// off, or played after the game ended.
#pragma once

#include <cstdint>

#include "games/game.h"
#include "games/registry.h"
#include "games/zobrist.h"
#include "games/swap_rule.h"

namespace pz::games {

class HexGame final : public Game {
 public:
  static constexpr int kMinSize = 2, kMaxSize = 19;
  static constexpr int kMaxCells = kMaxSize * kMaxSize;
  // Virtual edge nodes of the union-find, after the largest board's cells.
  static constexpr int kTop = kMaxCells, kBottom = kMaxCells + 1, kLeft = kMaxCells + 2, kRight = kMaxCells + 3;
  static constexpr int kNumNodes = kMaxCells + 4;
  static constexpr int kObservationPlanes = 6;

  HexGame(util::Spec spec, int size, bool swap);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
  Action transform_action(Symmetry symmetry, Action action) const override;

  int size() const { return size_; }
  int num_cells() const { return num_cells_; }
  const SwapRule& swap_rule() const { return swap_; }
  bool swap_allowed() const { return swap_.allowed; }
  Action swap_action() const { return swap_.action; }
  const ZobristTable& zobrist() const { return zobrist_; }

  // Neighbouring cells of `cell` on the board (up to six), and the edge nodes a stone of
  // each colour on it joins (-1 padded).
  struct Adjacency {
    std::int16_t cells[6];
    std::int8_t num_cells;
    std::int16_t edge[2][2];  // [colour][k]
  };
  const Adjacency& adjacency(int cell) const { return adjacency_[static_cast<size_t>(cell)]; }

 private:
  int size_, num_cells_;
  SwapRule swap_;
  ZobristTable zobrist_;  // 2·cells stones (colour-major), Black to move, swap available
  std::vector<Adjacency> adjacency_;
};

class HexState final : public State {
 public:
  explicit HexState(const HexGame* game);
  std::unique_ptr<State> clone() const override { return std::make_unique<HexState>(*this); }
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

  // Colour (seat) of the stone on `cell` (y·size + x), or -1 when empty.
  int owner(int cell) const { return stamp_[cell] == 0 ? -1 : (stamp_[cell] - 1) & 1; }
  // Seat that has connected its edges, or -1.
  int winner() const { return winner_; }
  // True when the mover may play "swap" now.
  bool swap_available() const;
  // True when the stone on `cell` is joined to edge node `edge` (HexGame::kTop, ...).
  bool connected_to(int cell, int edge) const { return root(cell) == root(edge); }
  // Exact: true when a stone on the cell joins the mover's two edges.
  bool may_end_game(Action action) const override;

 private:
  friend class HexGame;
  const HexGame& hex() const { return static_cast<const HexGame&>(State::game()); }
  int root(int node) const;    // without path compression (const)
  int find(int node);          // with path halving
  void unite(int a, int b);
  void place(int player, int cell, int stamp);

  static constexpr int kWords = (HexGame::kMaxCells + 63) / 64;
  std::uint64_t empty_[kWords];              // bit per empty cell, for legal_actions
  std::int16_t stamp_[HexGame::kMaxCells];  // 0 empty, else placing move index + 1
  std::int16_t parent_[HexGame::kNumNodes];  // union-find: parent, or -(size) at a root
  std::int16_t moves_ = 0;
  std::int8_t winner_ = -1;
  bool swapped_ = false;
  std::uint64_t hash_ = 0;
};

GameEntry hex_entry();

}  // namespace pz::games
