// Breakthrough (Dan Troyka, 2000; winner of the 2001 8x8 Game Design Competition). Default
// 8×8; other sizes as options (rows 5..8, columns 4..8). White (seat 0, 'W') starts with
// pawns on the two bottom rows, Black (seat 1, 'B') on the two top rows.
//
// Rules: White moves first. Troyka's own rules say "choose a player to go first"; the usual
// modern convention (Little Golem, iggamecenter, Ludoteka, chess-like notation) is that the
// side with the white pieces starts, and we follow it. On each turn the mover advances one
// pawn one square forward (White up the board, Black down), straight or diagonally, onto an
// empty square; or moves it one square diagonally forward onto an enemy pawn, capturing it.
// Straight moves never capture; captures are never compulsory and never chained. A player
// wins by putting a pawn on the far row (the opponent's home row) or by capturing every
// enemy pawn. There are no draws and no passes.
// A player always has a move while the game lasts: his most advanced pawn is not on the far
// row (he would have won), nothing of his stands further up the board, so at least one of
// its (one or two) diagonal targets holds nothing of his — an empty square to move to or an
// enemy pawn to capture. So the rule "a player without a legal move loses", which some
// rule sets add, can never apply and is not implemented.
//
// Notation: chess-like squares, columns a.. from the left, rows 1..rows counted from the
// bottom (White's home row is 1). A move is "from-to" ("a2-a3"), with 'x' instead of '-'
// when it captures ("b2xc3"). Reading accepts either separator (or none: "a2a3") for any
// move, case-insensitive; the direction is taken from the squares and the colour of the
// side to move, and squares that are not one step forward for that side are refused.
//
// Representation: one 64-bit board per colour, bit y·columns + x with y the row index from
// the top of the board as displayed (y = 0 is Black's home row, White's far row). Moves are
// generated for all pawns at once with a shift and an edge mask per direction.
// Observation (3×rows×columns, absolute orientation: the board is NOT turned around for
// Black, the colour plane tells which way is forward): `player`'s pawns, the opponent's
// pawns, ones when `player` is White.
// Policy: 3×rows×columns. Action = direction·(rows·columns) + from-square, the square as
// (y, x) in the same orientation; direction is absolute on the board: 0 = one column
// towards column a, 1 = straight, 2 = one column towards the last column (forward is up
// for White, down for Black). So a move's policy cell is the square its pawn starts on.
// Symmetries: identity and the left-right mirror; the mirror maps the from-square to its
// mirror image and swaps direction planes 0 and 2 (transform_action is overridden; policy
// planes must be transformed action by action, not with transform_planes alone).
// Serialised form: the board, rows·columns characters in reading order from the top ('w',
// 'b', '.'), a space, the side to move ('w' or 'b'), a space, the move number, e.g. the
// start of the 5×4 game is "bbbbbbbb....wwwwwwww w 0".
#pragma once

#include <cstdint>

#include "games/game.h"
#include "games/registry.h"
#include "games/zobrist.h"

namespace pz::games {

class BreakthroughGame final : public Game {
 public:
  BreakthroughGame(util::Spec spec, int rows, int columns);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
  Action transform_action(Symmetry symmetry, Action action) const override;

  int rows() const { return rows_; }
  int columns() const { return columns_; }
  int cells() const { return rows_ * columns_; }
  const ZobristTable& zobrist() const { return zobrist_; }
  // Key XORed in while White is to move.
  std::uint64_t white_to_move_key() const { return zobrist_[128]; }

  // Masks of the board: every cell, column a, the last column, the top row (White's goal)
  // and the bottom row (Black's goal).
  std::uint64_t full_mask() const { return full_; }
  std::uint64_t first_column() const { return first_column_; }
  std::uint64_t last_column() const { return last_column_; }
  std::uint64_t top_row() const { return top_row_; }
  std::uint64_t bottom_row() const { return bottom_row_; }

 private:
  int rows_, columns_;
  std::uint64_t full_ = 0, first_column_ = 0, last_column_ = 0, top_row_ = 0, bottom_row_ = 0;
  ZobristTable zobrist_;
};

class BreakthroughState final : public State {
 public:
  explicit BreakthroughState(const BreakthroughGame* game);
  std::unique_ptr<State> clone() const override { return std::make_unique<BreakthroughState>(*this); }
  bool assign_from(const State& other) override { return assign_same(*this, other); }

  Player current_player() const override { return winner_ >= 0 ? kTerminalPlayer : to_move_; }
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

  // Pawns of `seat` (0 = White, 1 = Black), bit y·columns + x, y from the top.
  std::uint64_t pawns(int seat) const { return pawns_[seat]; }
  // Seat owning the square at column x, row index y from the top, or -1 when empty.
  int owner(int y, int x) const;
  // Seat that has won, or -1.
  int winner() const { return winner_; }
  // Exact: the pawn reaches the far row or takes the opponent's last pawn.
  bool may_end_game(Action action) const override;

 private:
  friend class BreakthroughGame;
  const BreakthroughGame& bt() const { return static_cast<const BreakthroughGame&>(State::game()); }
  // Target square of a pawn of `seat` leaving `from` in direction `dir` (may be off the
  // board: the caller checks).
  int target(int seat, int from, int dir) const;
  void recompute_hash_and_winner();
  // Whether `seat` has won with pawns on the squares `arrived` against `opponent_pawns`.
  bool wins(int seat, std::uint64_t arrived, std::uint64_t opponent_pawns) const;

  std::uint64_t pawns_[2] = {0, 0};
  std::uint64_t hash_ = 0;
  int moves_ = 0;
  std::int8_t to_move_ = 0;
  std::int8_t winner_ = -1;
};

GameEntry breakthrough_entry();

}  // namespace pz::games
