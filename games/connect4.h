// Connect Four: drop discs into columns; four in a row (any direction) wins. Default 7
// columns × 6 rows; other sizes as options while width·(height+1) ≤ 64. The first player
// (seat 0) is Red ('X'), the second Yellow ('O').
//
// Notation: a move is its column, 1 = leftmost. The serialised form is the sequence of
// columns played ("4453"), the convention of Pascal Pons' solver and its test positions.
//
// Representation: the bitboard of John Tromp / Pascal Pons — a column is height+1 bits
// (one sentinel bit on top), one board for the mover's discs and one mask of occupied
// cells; a four is found with three shift-and-AND steps per direction.
// Observation (3×H×W, row 0 at the top): the mover's discs, the opponent's discs, ones when
// the mover is the first player. Policy: 1×1×W (one logit per column). Symmetries:
// identity and the left-right mirror.
#pragma once

#include <cstdint>

#include "games/game.h"
#include "games/registry.h"
#include "games/zobrist.h"

namespace pz::games {

class Connect4Game final : public Game {
 public:
  Connect4Game(util::Spec spec, int width, int height);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
  int width() const { return width_; }
  int height() const { return height_; }
  const ZobristTable& zobrist() const { return zobrist_; }

 private:
  int width_, height_;
  ZobristTable zobrist_;
};

class Connect4State final : public State {
 public:
  explicit Connect4State(const Connect4Game* game);
  std::unique_ptr<State> clone() const override { return std::make_unique<Connect4State>(*this); }
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
  std::string serialize() const override { return history_text_; }

  // Exact: the disc makes four in a row, or fills the board.
  bool may_end_game(Action column) const override;
  // Seat owning the cell at `column`, `row` (0 = bottom), or -1 when empty.
  int owner(int column, int row) const;
  int winner() const { return winner_; }

 private:
  const Connect4Game& c4() const { return static_cast<const Connect4Game&>(State::game()); }
  static bool has_four(std::uint64_t discs, int height);
  // The cell a disc dropped into `column` (not full) lands on, as a bit of mask_.
  std::uint64_t landing_bit(int column) const;

  std::uint64_t discs_[2] = {0, 0};  // per seat
  std::uint64_t mask_ = 0;           // occupied cells
  int moves_ = 0;
  int winner_ = -1;
  std::uint64_t hash_ = 0;
  // Columns played, as digits: short, so the small-string buffer holds it without heap
  // allocation for the common 7×6 game.
  std::string history_text_;
};

GameEntry connect4_entry();

}  // namespace pz::games
