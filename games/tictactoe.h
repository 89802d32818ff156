// Tic-tac-toe on 3×3. X (seat 0) moves first. Cells are named a1..c3, column letter then
// row number counted from the top; the digits 1..9 (reading order) are accepted too.
//
// Representation: one 9-bit mask per player; a win is one of eight line masks.
// Observation (3×3×3): the mover's marks, the opponent's marks, and a plane of ones when
// the mover is X. Policy: 1×3×3. Symmetries: all eight of the square.
// Serialised form: nine characters in reading order, 'x', 'o' or '.'.
#pragma once

#include <cstdint>

#include "games/game.h"
#include "games/registry.h"
#include "games/zobrist.h"

namespace pz::games {

class TicTacToeGame final : public Game {
 public:
  explicit TicTacToeGame(util::Spec spec);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
  const ZobristTable& zobrist() const { return zobrist_; }

 private:
  ZobristTable zobrist_;
};

class TicTacToeState final : public State {
 public:
  explicit TicTacToeState(const TicTacToeGame* game) : State(game) {}
  std::unique_ptr<State> clone() const override { return std::make_unique<TicTacToeState>(*this); }
  bool assign_from(const State& other) override { return assign_same(*this, other); }

  Player current_player() const override;
  int move_number() const override;
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

  // Seat whose mark is on cell (0..8), or -1.
  int owner(int cell) const;
  // Seat that completed a line, or -1.
  int winner() const { return winner_; }

 private:
  friend class TicTacToeGame;
  void place(int player, int cell);
  std::uint16_t marks_[2] = {0, 0};
  int winner_ = -1;
  std::uint64_t hash_ = 0;
};

GameEntry tictactoe_entry();

}  // namespace pz::games
