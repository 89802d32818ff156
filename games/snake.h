// Snake: one player steers a growing snake around a rows×columns board (options rows and
// columns 4..20, default 10×10), eating food; the score is the snake's length.
//
// Rules:
//  * The snake starts with length 3 on row rows/2 (counted from the top, 0-based): head on
//    column columns/2, body on the two cells to its left, heading right.
//  * Food appears on an empty cell chosen uniformly at random (a chance node): at the start
//    and after each meal. There is always exactly one food on the board while the game
//    goes on.
//  * Each move steers the head one cell up, right, down or left. Turning back into the
//    neck (the direction opposite to the current heading) is ILLEGAL, so a move always has
//    exactly three choices; moving into a wall or into the body is legal and ends the game.
//  * The head may move onto the cell the tail is leaving: the tail moves on in the same
//    step (it never stays while the snake grows, since food is never on the snake).
//  * Eating: the head lands on the food, the snake grows by one (the tail stays put) and
//    new food appears. When the snake fills the board the game ends (the best result).
//  * Starvation: after `hunger` consecutive moves without eating the game ends (default
//    hunger = rows·columns, enough to visit every cell: a snake that follows a closed tour
//    reaches any food in fewer moves). This bounds the game.
//  * Return: the snake's length (at every node; at the end the final length, whether it
//    crashed, starved or filled the board). min_return 3, max_return rows·columns.
//
// Game length bound: at most rows·columns - 3 meals; before each meal, and after the last,
// at most `hunger` moves without eating, plus the eating move; one chance node per food.
// So a game has at most (f+1)·hunger + f moves and f+1 chance nodes with f = cells - 3:
// max_game_length = (cells - 2)·(hunger + 2) - 1 (9995 on the default 10×10 board).
//
// Notation: moves "up", "right", "down", "left" (also "u", "r", "d", "l"; case-insensitive).
// Food outcomes are written "food@c3" (cells as in Hex: column letter from the left, row
// number from the TOP, a1 top-left); at a chance node parse_action reads "food@c3" or "c3".
//
// Actions: 0 up, 1 right, 2 down, 3 left. Chance outcomes: the food cell, y·columns + x.
//
// Representation: the body as a ring buffer of cell indices (head first) plus a bit set of
// occupied cells, so a move is O(1); about 1.1 KB of plain data per state.
//
// Observation (6 × rows × columns):
//   0 the head                1 every body cell (head and tail included)
//   2 on each body cell, the number of moves until it is vacated if nothing is eaten
//     (length - index, index 0 = head), divided by rows·columns
//   3 the food                4 moves since the last meal / hunger, on every cell
//   5 ones (marks the board, for padded convolutions)
// Policy: 4×1×1, one logit per direction.
//
// Symmetries: only those that fix the starting snake with its heading: the identity, and
// the up-down flip when rows is odd (the start row is then the middle row). The left-right
// mirror would turn the snake around, the other board symmetries move its row. The flip
// exchanges the moves up and down and maps food cells through transform_chance_outcome.
//
// Hash: Zobrist keys for each body cell with the direction to the next segment towards the
// tail, for the head cell, the tail cell, the food cell, the game status (playing, or how
// it ended) and pending food; the moves since the last meal are mixed in by hash().
//
// Serialised form: a snapshot (the food history cannot be recomputed from a position, and
// keeping it would make states costly to copy):
//   "moves=7 since_food=2 status=playing food=h3 snake=f6,f5,e5,d5"
// moves = moves made, since_food = moves since the last meal, status = playing | wall |
// self | starved | full, food = the food cell or "none" (food is about to appear when
// playing), snake = the body cells from the head to the tail, each next to the one before.
// move_number() follows from it: moves + meals (length - 3) + 1 if food is on the board.
// deserialize checks all of this and throws util::UsageError naming the problem.
#pragma once

#include <cstdint>

#include "games/game.h"
#include "games/registry.h"
#include "games/zobrist.h"

namespace pz::games {

class SnakeGame final : public Game {
 public:
  static constexpr int kMinSide = 4, kMaxSide = 20;
  static constexpr int kMaxCells = kMaxSide * kMaxSide;
  static constexpr int kWords = (kMaxCells + 63) / 64;

  enum class Status : std::uint8_t { kPlaying, kWall, kSelf, kStarved, kFull };
  static constexpr int kNumStatuses = 5;

  // hunger = 0: rows·columns.
  SnakeGame(util::Spec spec, int rows, int columns, int hunger);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
  Action transform_action(Symmetry symmetry, Action action) const override;
  Action transform_chance_outcome(Symmetry symmetry, Action outcome) const override;

  int rows() const { return rows_; }
  int columns() const { return columns_; }
  int num_cells() const { return rows_ * columns_; }
  int hunger() const { return hunger_; }

  // Zobrist keys.
  std::uint64_t segment_key(int cell, int direction) const { return zobrist_[cell * 4 + direction]; }
  std::uint64_t head_key(int cell) const { return zobrist_[4 * kMaxCells + cell]; }
  std::uint64_t tail_key(int cell) const { return zobrist_[5 * kMaxCells + cell]; }
  std::uint64_t food_key(int cell) const { return zobrist_[6 * kMaxCells + cell]; }
  std::uint64_t status_key(Status status) const { return zobrist_[7 * kMaxCells + static_cast<int>(status)]; }
  std::uint64_t pending_food_key() const { return zobrist_[7 * kMaxCells + kNumStatuses]; }

 private:
  int rows_, columns_, hunger_;
  ZobristTable zobrist_;
};

class SnakeState final : public State {
 public:
  explicit SnakeState(const SnakeGame* game);
  using State::legal_actions;
  using State::observation;
  std::unique_ptr<State> clone() const override { return std::make_unique<SnakeState>(*this); }
  bool assign_from(const State& other) override { return assign_same(*this, other); }

  Player current_player() const override;
  int move_number() const override;
  void legal_actions(std::vector<Action>& out) const override;
  std::string explain_illegal(Action action) const override;
  std::vector<std::pair<Action, double>> chance_outcomes() const override;
  void apply_action(Action action) override;
  std::vector<double> returns() const override { return {static_cast<double>(length_)}; }
  void observation(Player player, float* out) const override;
  std::string action_to_string(Player player, Action action) const override;
  std::optional<Action> parse_action(std::string_view text, std::string* error = nullptr) const override;
  std::string to_string() const override;
  std::uint64_t hash() const override;
  std::string serialize() const override;

  int length() const { return length_; }
  // Body cell `index` (0 = head, length()-1 = tail), as y·columns + x.
  int segment(int index) const { return body_[(head_ + index) & kRingMask]; }
  int food() const { return food_; }  // -1 when there is none
  int heading() const { return heading_; }
  int since_food() const { return since_food_; }
  SnakeGame::Status status() const { return status_; }

 private:
  friend class SnakeGame;
  static constexpr int kRing = 512, kRingMask = kRing - 1;  // a power of two >= kMaxCells
  const SnakeGame& g() const { return static_cast<const SnakeGame&>(State::game()); }
  bool occupied(int cell) const { return occupied_[cell >> 6] >> (cell & 63) & 1; }
  void set_occupied(int cell, bool on);
  int direction_between(int from, int to) const;  // 0..3 for neighbours
  void recompute_hash();
  void set_status(SnakeGame::Status status);

  std::uint16_t body_[kRing];
  std::uint64_t occupied_[SnakeGame::kWords] = {};
  std::int16_t head_ = 0;    // ring index of the head
  std::int16_t length_ = 0;
  std::int16_t food_ = -1;
  std::int8_t heading_ = 1;  // direction of the last move (right at the start)
  SnakeGame::Status status_ = SnakeGame::Status::kPlaying;
  int moves_ = 0;
  int since_food_ = 0;
  std::uint64_t hash_ = 0;   // without since_food_
};

GameEntry snake_entry();

}  // namespace pz::games
