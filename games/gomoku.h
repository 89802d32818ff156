// Gomoku (freestyle five in a row) and Connect6 on a square board.
//
// Options: size 7..19 (default 15, for both variants: Connect6 is usually played on 19×19,
// ask for it with size=19), variant gomoku|connect6 (default gomoku).
//
// Rules, gomoku (freestyle). Black (seat 0, 'X') and White (seat 1, 'O') alternately place
// one stone on an empty cell, Black first. A player who makes an unbroken line of FIVE OR
// MORE own stones — horizontal, vertical or diagonal — wins at once ("freestyle": overlines
// win too; there are no Renju restrictions on Black). When the board fills up without such
// a line the game is a draw.
//
// Rules, connect6. Black places one stone on its first turn; from then on every turn
// places two stones: White, White, Black, Black, White, White, ... A line of SIX OR MORE
// own stones wins at once (also when it is made by the first stone of a turn: the second
// stone is then not played); five do not. A full board is a draw (a turn cut short by the
// last empty cell simply ends the game). Each stone is one action: on the second stone of
// a turn current_player() is the same seat as on the first. The mover of action k
// (0-based) is k mod 2 in gomoku and, in connect6, Black for k = 0 and otherwise
// ((k+1)/2) mod 2; the second stone of a turn is k even and k > 0. So perft counts stones,
// not turns.
//
// Returns: +1 for the winner, -1 for the loser, 0/0 for a draw.
//
// Notation (Renju / Gomoku convention): a column letter a.. from the left (no letter is
// skipped: a..o on 15×15, a..s on 19×19), then the row number counted from the BOTTOM, so
// a1 is the bottom-left corner and h8 the centre of 15×15. Output lower case, input
// case-insensitive. Actions: y·size + x for row y counted from the TOP (y = size - row) and
// column x, so the policy plane is the board as drawn.
//
//    15 . . . . . . . . . . . . . . .
//    ...
//     2 . . . . . . . . . . . . . . .
//     1 . . . . . . . . . . . . . . .
//       a b c d e f g h i j k l m n o
//
// Representation: one byte per cell (0 empty, 1 Black, 2 White), a bit mask of the empty
// cells (legal_actions walks its set bits), and the list of cells in the order played (the
// game record). A move checks only the four lines through the new stone: O(length) per
// move. All arrays are fixed-size for 19×19, about 1.2 KB, copied with the state.
//
// Observation (4 × size × size, from `player`'s point of view, row 0 = top row as drawn):
//   0: `player`'s stones   1: the opponent's stones   2: ones when `player` is Black
//   3: connect6 only: ones when the next stone is the second stone of a turn (all zeros in
//      gomoku, so both variants have the same planes)
// Policy: 1 × size × size, action = cell. Symmetries: all eight of the square (the rules
// and the empty board are invariant).
//
// Hash: Zobrist keys for every (colour, cell), one for White to move and one for "second
// stone of a turn" (connect6).
//
// Serialised form: the stones in notation separated by single spaces in the order played
// ("h8 h9 i9"), "" at the start; any whitespace separates tokens on input. deserialize
// replays with full legality checks and throws util::UsageError naming the move (1-based)
// and why it is refused.
#pragma once

#include <cstdint>

#include "games/game.h"
#include "games/registry.h"
#include "games/zobrist.h"

namespace pz::games {

class GomokuGame final : public Game {
 public:
  static constexpr int kMinSize = 7, kMaxSize = 19;
  static constexpr int kMaxCells = kMaxSize * kMaxSize;
  static constexpr int kObservationPlanes = 4;
  enum class Variant { kGomoku, kConnect6 };

  GomokuGame(util::Spec spec, int size, Variant variant);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;

  int size() const { return size_; }
  int num_cells() const { return size_ * size_; }
  Variant variant() const { return variant_; }
  bool connect6() const { return variant_ == Variant::kConnect6; }
  // Stones in a row that win: 5 in gomoku, 6 in connect6.
  int win_length() const { return connect6() ? 6 : 5; }
  // Seat placing the stone of action number k (0-based), and whether it is the second
  // stone of a connect6 turn.
  Player mover(int k) const { return connect6() ? (k == 0 ? 0 : ((k + 1) / 2) & 1) : (k & 1); }
  bool second_stone(int k) const { return connect6() && k > 0 && (k & 1) == 0; }
  const ZobristTable& zobrist() const { return zobrist_; }

 private:
  int size_;
  Variant variant_;
  ZobristTable zobrist_;  // 2·kMaxCells stones (colour-major), White to move, second stone
};

class GomokuState final : public State {
 public:
  explicit GomokuState(const GomokuGame* game);
  std::unique_ptr<State> clone() const override { return std::make_unique<GomokuState>(*this); }
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

  // Seat whose stone is on `cell` (an action), or -1.
  int owner(int cell) const { return cell_[cell] - 1; }
  // Seat that made the winning line, or -1 (also for a draw).
  int winner() const { return winner_; }
  // Exact: the stone makes the winning line, or fills the board. A mover with fewer than
  // win_length - 1 stones on the board cannot make a line: no scan then (the search asks this
  // for every move of every position it expands, most of them early in the game).
  bool may_end_game(Action action) const override {
    const int mover = gomoku().mover(moves_);
    if (moves_ + 1 == gomoku().num_cells()) return true;
    return stones_[mover] + 1 >= gomoku().win_length() && longest_line(action, mover + 1) >= gomoku().win_length();
  }
  // True when the next stone is the second of a connect6 turn.
  bool second_stone() const { return gomoku().second_stone(moves_); }

 private:
  friend class GomokuGame;
  const GomokuGame& gomoku() const { return static_cast<const GomokuGame&>(State::game()); }
  bool over() const { return winner_ >= 0 || moves_ == gomoku().num_cells(); }
  // Longest line of `colour` (1/2) through `cell` in any of the four directions.
  int longest_line(int cell, int colour) const;

  static constexpr int kWords = (GomokuGame::kMaxCells + 63) / 64;
  std::uint64_t empty_[kWords];
  std::int8_t cell_[GomokuGame::kMaxCells];      // 0 empty, 1 Black, 2 White
  std::int16_t history_[GomokuGame::kMaxCells];  // cells in the order played
  std::int16_t moves_ = 0;
  std::int16_t stones_[2] = {0, 0};  // per seat
  std::int8_t winner_ = -1;
  std::uint64_t hash_ = 0;
};

GameEntry gomoku_entry();

}  // namespace pz::games
