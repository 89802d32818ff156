// EinStein würfelt nicht! (Ingo Althöfer, 2004). A 5×5 board; each player has six stones
// numbered 1 to 6 in the triangle of their corner: Red (seat 0, moves first) in the top-left
// corner a1, Blue (seat 1) in the bottom-right corner e5.
//
// Rules: a turn is a die roll (a chance node, faces 1–6 with probability 1/6 each) and a
// move. The mover must move the stone with the rolled number; if it is no longer on the
// board, they choose between the stone with the next-higher number and the stone with the
// next-lower number still on the board (whichever exist). The chosen stone steps one cell
// towards the opponent's corner: Red right, down or diagonally down-right; Blue left, up or
// diagonally up-left. A stone on the destination cell — the opponent's or the mover's own —
// is captured (removed). A player wins by moving a stone onto the opponent's corner cell
// (Red onto e5, Blue onto a1) or by capturing every stone of the opponent. A player always
// has a move (a stone can only be stuck on the opponent's corner, which has already won),
// and the game always ends: every move brings one of the mover's stones closer to the goal.
//
// Setup (option `setup`): `fixed` (the default) puts the stones in this arrangement, Blue's
// being Red's turned half a turn:
//
//      a b c d e
//    1 1 2 3 . .      Red's stones are written 1–6 here,
//    2 4 5 . . .      Blue's a–f (a = Blue's stone 1).
//    3 6 . . . f
//    4 . . . e d
//    5 . . c b a
//
// `random` begins with two chance nodes, Red's then Blue's arrangement, each uniform over
// the 720 orders of the six stones in the player's triangle (as when players shuffle).
//
// Notation: cells are a1 (top-left) to e5, columns a–e from the left and rows 1–5 from the
// top. A move is "from-to" ("b2-c3"), with 'x' instead of '-' when it captures ("b2xc3");
// reading accepts '-', 'x' or nothing between the cells. Chance outcomes: the die is
// outcome 0–5 for faces 1–6, written "roll 3" ("3" is also read); an arrangement is outcome
// 6 + (its rank among the 720 orders in lexicographic order), written "setup 123456": the
// numbers on the player's triangle cells in the order corner, the two cells next to it
// along the edge row, then the rest: a1 b1 c1 a2 b2 a3 for Red and e5 d5 c5 e4 d4 e3 for
// Blue (so "setup 123456" is the fixed arrangement for either player).
//
// Representation: a 25-cell board of stone codes and each stone's cell, so a copy is a few
// dozen bytes. Cell index y·5 + x, y = row from the top, x = column from the left.
// Observation (14×5×5, absolute orientation: the board is not turned for Blue, the colour
// plane tells which way is forward): planes 0–5 the observer's stones 1–6, planes 6–11 the
// opponent's stones 1–6, plane 12 the stones the mover may move after the roll (empty
// before the roll), plane 13 ones when the observer is Red.
// Policy: 3×5×5, action = direction·25 + from-cell, where direction 0 is along the row
// (right for Red, left for Blue), 1 along the column (down for Red, up for Blue) and 2 the
// diagonal. So a move's policy cell is the cell its stone leaves.
// Symmetries: the transpose (reflection in the a1–e5 diagonal) maps each corner triangle to
// itself and turns moves along rows into moves along columns, so the rules are invariant
// (transform_action swaps direction planes 0 and 1 and transposes the cell; an arrangement
// outcome maps to the transposed arrangement via transform_chance_outcome). The fixed
// arrangement is not symmetric under it (2 and 4, 3 and 6 would swap), so the transpose is
// declared only with setup=random; with setup=fixed the only symmetry is the identity.
// Serialised form: the board as five rows of five characters from the top joined by '/'
// ('.', Red's '1'–'6', Blue's 'a'–'f'), the side to move ('r' or 'b'), the rolled face
// ('1'–'6', or '-' before the roll) and the number of actions played (chance included),
// e.g. the fixed start is "123../45.../6...f/...ed/..cba r - 0".
#pragma once

#include <array>
#include <cstdint>

#include "games/game.h"
#include "games/registry.h"
#include "games/zobrist.h"

namespace pz::games {

class EinsteinGame final : public Game {
 public:
  static constexpr int kSize = 5, kCells = 25, kStones = 6;
  static constexpr int kDieOutcomes = 6, kSetupOutcomes = 720;

  EinsteinGame(util::Spec spec, bool random_setup);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
  Action transform_action(Symmetry symmetry, Action action) const override;
  Action transform_chance_outcome(Symmetry symmetry, Action outcome) const override;

  bool random_setup() const { return random_setup_; }
  const ZobristTable& zobrist() const { return zobrist_; }

  // The triangle cells of `seat` in arrangement order (corner first).
  static const std::array<int, 6>& triangle(int seat);
  // Arrangement <-> rank (0..719): arrangement[i] is the stone number (1..6) on triangle cell i.
  static std::array<int, 6> arrangement_from_rank(int rank);
  static int rank_of_arrangement(const std::array<int, 6>& arrangement);

 private:
  bool random_setup_;
  ZobristTable zobrist_;
};

class EinsteinState final : public State {
 public:
  explicit EinsteinState(const EinsteinGame* game);
  std::unique_ptr<State> clone() const override { return std::make_unique<EinsteinState>(*this); }
  bool assign_from(const State& other) override { return assign_same(*this, other); }

  Player current_player() const override;
  int move_number() const override { return moves_; }
  using State::legal_actions;
  using State::observation;
  void legal_actions(std::vector<Action>& out) const override;
  std::vector<std::pair<Action, double>> chance_outcomes() const override;
  void apply_action(Action action) override;
  std::string explain_illegal(Action action) const override;
  std::vector<double> returns() const override;
  void observation(Player player, float* out) const override;
  std::string action_to_string(Player player, Action action) const override;
  std::optional<Action> parse_action(std::string_view text, std::string* error) const override;
  std::string to_string() const override;
  std::uint64_t hash() const override { return hash_; }
  std::string serialize() const override;

  // Seat owning the cell (y·5 + x), or -1; and the stone number there (1..6, 0 if empty).
  int owner(int cell) const { return board_[cell] < 0 ? -1 : board_[cell] / kStones; }
  int number(int cell) const { return board_[cell] < 0 ? 0 : board_[cell] % kStones + 1; }
  // Cell of `seat`'s stone `number` (1..6), or -1 when captured.
  int stone_cell(int seat, int number) const { return cell_of_[seat * kStones + number - 1]; }
  int die() const { return die_; }  // 1..6, or 0 before the roll
  int to_move() const { return to_move_; }
  int winner() const { return winner_; }
  // The stone numbers the mover may move after rolling `face` (one or two of them).
  int movable_stones(int face, int out[2]) const;

 private:
  friend class EinsteinGame;
  static constexpr int kSize = EinsteinGame::kSize, kCells = EinsteinGame::kCells, kStones = EinsteinGame::kStones;
  const EinsteinGame& eg() const { return static_cast<const EinsteinGame&>(State::game()); }
  bool in_setup() const { return eg().random_setup() && moves_ < 2; }
  // Destination of a step of `seat` from `cell` in direction `dir`, or -1 off the board.
  static int destination(int seat, int cell, int dir);
  void put(int seat, int number, int cell);
  void remove(int cell);
  void recompute_hash();

  std::array<std::int8_t, kCells> board_;         // -1 empty, else seat·6 + number-1
  std::array<std::int8_t, 2 * kStones> cell_of_;  // by seat·6 + number-1; -1 captured
  std::uint64_t hash_ = 0;
  std::int16_t moves_ = 0;
  std::int8_t to_move_ = 0;
  std::int8_t die_ = 0;
  std::int8_t winner_ = -1;
};

GameEntry einstein_entry();

}  // namespace pz::games
