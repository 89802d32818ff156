// Tron light cycles: two players ride across a rows×columns grid at the same time, each
// leaving a wall behind; whoever crashes loses. Options rows and columns 5..20, default
// 11×11 (odd, so the start row is the middle row and the up-down flip is a symmetry).
//
// Rules:
//  * Player 1 (seat 0, 'X') starts on row (rows-1)/2 (0-based, from the top), column
//    columns/4; player 2 (seat 1, 'O') on the same row, column columns-1-columns/4 — the
//    mirror image. The start cells are the first cells of their trails.
//  * Every step both players choose up, right, down or left at the same time (a
//    simultaneous node; all four are always legal) and both heads advance one cell; the new
//    cell joins the player's trail.
//  * A player crashes when its new cell is off the board or already part of a trail (its
//    own or the other's, heads included) — so turning back into the cell just left is legal
//    and fatal, and so is driving into the other's head (two adjacent players swapping
//    cells both crash). When both new cells are the same free cell (head-on), both crash.
//  * The game ends at the first step with a crash: one crash is a loss for that player
//    (-1) and a win for the other (+1); two crashes are a draw (0, 0). A crashed player's
//    head stays where it was.
//
// Game length bound: each step without a crash fills two new cells, and the board starts
// with two filled, so at most (cells - 2) / 2 steps go by without a crash and the next one
// must end the game: max_game_length = (rows·columns - 2) / 2 + 1 (60 on 11×11).
//
// Notation: "up", "right", "down", "left" (also "u", "r", "d", "l"; case-insensitive), the
// same for both players. Actions: 0 up, 1 right, 2 down, 3 left.
//
// Representation: one bit set of trail cells per player (400 bits for the largest board),
// both head cells, the crash flags and the joint moves so far (one byte per step), about
// 330 bytes of plain data.
//
// Observation (5 × rows × columns, from `player`'s point of view; row 0 at the top):
//   0 `player`'s trail (head included)   1 `player`'s head
//   2 the opponent's trail (head incl.)   3 the opponent's head
//   4 ones (marks the board, for padded convolutions)
// Policy: 4×1×1, one logit per direction.
//
// Symmetries: those that keep each player's start cell: the identity and, when rows is
// odd, the up-down flip (it exchanges up and down). The left-right mirror and the half turn
// exchange the two start cells, so they would swap the seats and are not symmetries of the
// game for a fixed seat.
//
// Hash: Zobrist keys for each (player, trail cell), each (player, head cell) and each
// player's crash flag.
//
// Serialised form: the steps separated by spaces, each the two players' moves as letters
// (player 1's first), e.g. "rl ul uu"; "" at the start. deserialize replays it and throws
// util::UsageError naming the step for anything unreadable or played after the end.
#pragma once

#include <cstdint>

#include "games/game.h"
#include "games/registry.h"
#include "games/zobrist.h"

namespace pz::games {

class TronGame final : public Game {
 public:
  static constexpr int kMinSide = 5, kMaxSide = 20;
  static constexpr int kMaxCells = kMaxSide * kMaxSide;
  static constexpr int kWords = (kMaxCells + 63) / 64;
  static constexpr int kMaxSteps = (kMaxCells - 2) / 2 + 1;

  TronGame(util::Spec spec, int rows, int columns);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
  Action transform_action(Symmetry symmetry, Action action) const override;

  int rows() const { return rows_; }
  int columns() const { return columns_; }
  int num_cells() const { return rows_ * columns_; }
  int start_cell(int player) const;

  std::uint64_t trail_key(int player, int cell) const { return zobrist_[player * kMaxCells + cell]; }
  std::uint64_t head_key(int player, int cell) const { return zobrist_[(2 + player) * kMaxCells + cell]; }
  std::uint64_t crash_key(int player) const { return zobrist_[4 * kMaxCells + player]; }

 private:
  int rows_, columns_;
  ZobristTable zobrist_;
};

class TronState final : public State {
 public:
  explicit TronState(const TronGame* game);
  using State::legal_actions;
  using State::observation;
  std::unique_ptr<State> clone() const override { return std::make_unique<TronState>(*this); }
  bool assign_from(const State& other) override { return assign_same(*this, other); }

  Player current_player() const override;
  int move_number() const override { return steps_; }
  // No single mover: empty at simultaneous (and terminal) nodes.
  void legal_actions(std::vector<Action>& out) const override { out.clear(); }
  void legal_actions(Player player, std::vector<Action>& out) const override;
  std::string explain_illegal(Action action) const override;
  void apply_action(Action action) override;
  void apply_joint_action(const std::vector<Action>& actions) override;
  std::vector<double> returns() const override;
  void observation(Player player, float* out) const override;
  std::string action_to_string(Player player, Action action) const override;
  std::optional<Action> parse_action(std::string_view text, std::string* error = nullptr) const override;
  std::string to_string() const override;
  std::uint64_t hash() const override { return hash_; }
  std::string serialize() const override;

  int head(int player) const { return head_[player]; }
  bool crashed(int player) const { return crashed_[player]; }
  // Seat whose trail covers `cell`, or -1.
  int owner(int cell) const;

 private:
  const TronGame& g() const { return static_cast<const TronGame&>(State::game()); }
  bool on_trail(int player, int cell) const { return trail_[player][cell >> 6] >> (cell & 63) & 1; }

  std::uint64_t trail_[2][TronGame::kWords] = {};
  std::int16_t head_[2] = {0, 0};
  std::int16_t steps_ = 0;
  bool crashed_[2] = {false, false};
  std::uint8_t joint_[TronGame::kMaxSteps] = {};  // player 1's move | player 2's << 2
  std::uint64_t hash_ = 0;
};

GameEntry tron_entry();

}  // namespace pz::games
