// 2048 (Gabriele Cirulli, 2014): one player slides numbered tiles on a size×size board
// (option size 3..6, default 4). Registry name "2048"; the C++ names say Game2048 because
// an identifier cannot start with a digit.
//
// Rules (those of the official game):
//  * The game starts with two tiles spawned one after the other (two chance nodes).
//  * A move slides every tile as far as it goes in one direction (up, right, down, left).
//    Two tiles of equal value that meet merge into one of twice the value; merges are
//    resolved from the side the tiles move towards, and a tile made by a merge does not
//    merge again in the same move: a row [2,2,2,2] moved left gives [4,4,0,0], [4,4,8,0]
//    gives [8,8,0,0], [2,2,2,0] gives [4,2,0,0] moved left and [0,0,2,4] moved right.
//  * A move that changes nothing is illegal.
//  * After every move a tile spawns on an empty cell chosen uniformly at random: a 2 with
//    probability 0.9, a 4 with probability 0.1 (a chance node).
//  * The game ends when the player has no legal move (checked after the spawn), or after
//    max_moves moves when that option is set (the spawn after the last move still happens).
//  * The score, and the return, is the sum of the values of all tiles made by merges (the
//    official score). Returns are valid at every node (the score so far).
//
// Why the game is finite (the bounds in GameInfo). Sort the tiles' exponents (value = 2^e)
// in decreasing order, e_1 >= e_2 >= ... >= e_m, on a board of n cells. Invariant:
// e_i <= n + 2 - i for every i. It holds on the empty board; a spawn adds an exponent 1 or 2
// while m < n, which keeps it (the new tile lands at a position p <= n, 2 <= n + 2 - p, and
// tiles it pushes down have exponent 1 and positions <= n); a merge of two tiles of exponent
// e at sorted positions j, j+1 replaces them by e + 1 at a position p <= j, and
// e <= n + 1 - j gives e + 1 <= n + 2 - p, while the other tiles keep or improve their
// bounds (the ones it passes have exponent e <= n + 1 - j and move to positions <= j).
// Hence no tile exceeds 2^(n+1) (2^17 = 131072 on 4×4), the tile sum stays at most
// 2^(n+2) - 4, and since the sum grows by at least 2 per move from at least 4 after the two
// opening spawns, a game has at most 2^(n+1) - 4 moves (131068 on 4×4) and at most
// 2 + 2·(2^(n+1) - 4) actions counting the spawns (262138 on 4×4). A tile of value 2^e built
// from 2s scored (e - 1)·2^e (each merge in its history scores once), so the score is at
// most the sum over e = 2 .. n+1 of (e - 1)·2^e (3932164 on 4×4; the known maximum, with
// the 4s a perfect game needs, is a little lower). With max_moves = M the bounds are the
// smaller of those and: M moves, tile sum <= 4·(M + 2), score <= tile sum · (log2 of the
// largest power of two <= that sum, minus 1). On 6×6 the rules' own bound does not fit in
// an int, so there max_moves defaults to 10^9 (never reached in practice); see
// Game2048::kCapForLargeBoards.
//
// Notation: moves are "up", "right", "down", "left" (also "u", "r", "d", "l"; input is
// case-insensitive). A spawn is written value@cell, e.g. "2@c3", cells as in Hex: column
// letter a.. from the left, row number from the TOP (a1 is the top-left corner).
// parse_action reads a spawn at a chance node and a move elsewhere.
//
// Actions: 0 up, 1 right, 2 down, 3 left. Chance outcomes: cell·2 + (value == 4), cell =
// y·size + x with y counted from the top; max_chance_outcomes = 2·size².
//
// Representation: one byte per cell holding the exponent (0 = empty), 36 bytes for the
// largest board, plus counters: a state copies in a few dozen bytes. A move walks each line
// once.
//
// Observation: (size² + 2) × size × size one-hot planes, plane e marks the cells holding
// 2^e (plane 0 the empty cells). The invariant above shows no exponent exceeds size² + 1.
// Policy: 4×1×1, one logit per direction.
//
// Symmetries: all eight of the square. A symmetry maps moves to moves (the direction
// vector is transformed: a quarter turn clockwise maps up to right) and spawn cells through
// transform_chance_outcome (the value bit is kept).
//
// Hash: Zobrist keys for every (cell, exponent), and one for each number of pending spawns
// (so a board waiting for its spawn differs from the same board waiting for a move). The
// score and the move count are not hashed.
//
// Serialised form: a snapshot, since the history cannot be recomputed from the board and
// keeping it would make states expensive to copy:
//   "moves=12 score=48 spawns=1 board=0.2.4.0/0.0.0.0/0.0.8.0/2.0.0.0"
// moves = moves played, score, spawns = spawns pending before the next move (2 or 1 at the
// start, 1 after a move, else 0), board = rows from the top separated by '/', tile values
// (0 = empty) separated by '.'. deserialize checks the shape, powers of two, the counters
// and their consistency (e.g. 2 pending spawns only on the empty starting board) and throws
// util::UsageError otherwise.
#pragma once

#include <array>
#include <cstdint>

#include "games/game.h"
#include "games/registry.h"
#include "games/zobrist.h"

namespace pz::games {

class Game2048 final : public Game {
 public:
  static constexpr int kMinSize = 3, kMaxSize = 6;
  static constexpr int kMaxCells = kMaxSize * kMaxSize;
  static constexpr int kMaxExponent = kMaxCells + 1;  // see the invariant above
  static constexpr int kCapForLargeBoards = 1000000000;

  // max_moves = 0: no limit beyond the rules' own (capped at kCapForLargeBoards).
  Game2048(util::Spec spec, int size, int max_moves);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
  Action transform_action(Symmetry symmetry, Action action) const override;
  Action transform_chance_outcome(Symmetry symmetry, Action outcome) const override;

  int size() const { return size_; }
  int num_cells() const { return size_ * size_; }
  int max_moves() const { return max_moves_; }  // effective limit (never 0)
  const ZobristTable& zobrist() const { return zobrist_; }
  std::uint64_t tile_key(int cell, int exponent) const { return zobrist_[cell * (kMaxExponent + 1) + exponent]; }
  std::uint64_t pending_key(int pending) const { return zobrist_[kMaxCells * (kMaxExponent + 1) + pending]; }

 private:
  int size_, max_moves_;
  ZobristTable zobrist_;
};

class Game2048State final : public State {
 public:
  explicit Game2048State(const Game2048* game);
  using State::legal_actions;
  using State::observation;
  std::unique_ptr<State> clone() const override { return std::make_unique<Game2048State>(*this); }
  bool assign_from(const State& other) override { return assign_same(*this, other); }

  Player current_player() const override;
  int move_number() const override { return 2 + 2 * moves_ - pending_; }
  void legal_actions(std::vector<Action>& out) const override;
  std::string explain_illegal(Action action) const override;
  std::vector<std::pair<Action, double>> chance_outcomes() const override;
  void apply_action(Action action) override;
  std::vector<double> returns() const override { return {static_cast<double>(score_)}; }
  void observation(Player player, float* out) const override;
  std::string action_to_string(Player player, Action action) const override;
  std::optional<Action> parse_action(std::string_view text, std::string* error = nullptr) const override;
  std::string to_string() const override;
  std::uint64_t hash() const override { return hash_; }
  std::string serialize() const override;

  // Tile value at (y, x) (0 when empty), y from the top.
  std::int64_t tile(int y, int x) const;
  std::int64_t score() const { return score_; }
  int moves() const { return moves_; }
  int pending_spawns() const { return pending_; }

  // Test and tool hook: sets the board (exponents, row-major) of a state waiting for a move.
  void set_board(const std::array<std::uint8_t, Game2048::kMaxCells>& exponents, int size);

 private:
  friend class Game2048;
  const Game2048& g() const { return static_cast<const Game2048&>(State::game()); }
  // Slides the board in `direction`; returns false (board untouched) when nothing moves.
  bool slide(int direction, std::uint8_t* cells, std::int64_t* gained) const;
  bool has_move() const;
  void recompute_hash();

  std::uint8_t cells_[Game2048::kMaxCells] = {};  // exponents, 0 = empty
  std::int64_t score_ = 0;
  int moves_ = 0;
  std::int8_t pending_ = 2;  // spawns due before the next move
  bool stuck_ = false;       // no legal move (set after a spawn)
  std::uint64_t hash_ = 0;
};

GameEntry game2048_entry();

}  // namespace pz::games
