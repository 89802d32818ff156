// Minesweeper, single player. Options: `rows` (2–24, default 9), `columns` (2–30, default
// 9), `mines` (default 10; from 1 to rows·columns − 9). Beginner is the default 9×9/10,
// intermediate 16×16/40, expert rows=16,columns=30,mines=99.
//
// Rules: the player reveals cells. A revealed cell shows how many of its (up to eight)
// neighbours hold a mine; a cell showing 0 reveals its neighbours, recursively (flood
// reveal). Revealing a mine loses; revealing every safe cell wins. Flags are not actions:
// they never change the outcome, so the player's only move is "reveal".
// First click safe: the mines are placed after the first click, away from the clicked cell
// and its neighbours (so the first click always opens a 0 and a region around it; this is
// why mines ≤ rows·columns − 9). The placement is modelled exactly with the Game API's
// chance nodes: after the first click come `mines` chance nodes, each putting one mine on a
// cell drawn uniformly among the cells that are still free and outside the first click's
// neighbourhood (drawing without replacement one at a time gives every set of mines the
// same probability); then the first click is revealed.
// Return (chosen so that progress is visible to search, where Polygames scores win/loss):
// +1 for a win; for a loss, (safe cells revealed)/(safe cells) − 1, in [−1, 0); 0 before the
// end. min_return −1, max_return 1. A near-complete loss is worth almost 0, a win 1, so a
// win always beats any loss by at least the width of the whole loss range.
//
// Notation: cells are named by a column (letters a, b, … z, then aa, ab, … for columns 27–30)
// and a row number from the top: "a1" is the top-left cell. A move is the cell to reveal
// ("e5"). A chance outcome is written "mine c3" (reading also accepts "*c3" or "c3").
// Action = chance outcome = cell index y·columns + x (y the row from the top).
//
// Hidden information: the mines. observation() shows the revealed cells with their numbers
// and which cells are unrevealed, never the mines. resample(0, rng) returns a state whose
// mines are drawn uniformly among all placements consistent with what has been revealed
// (numbers, safe cells, the mine count), by the method in minesweeper_sampler.h: exact
// enumeration of the constrained frontier when it is small enough (almost always), else a
// Markov chain that is always consistent and approximately uniform. to_string() shows the
// mines only once the game is over.
//
// Representation: bitsets of mines and revealed cells (12 words, up to 768 cells), the
// first click and a few counters: a copy is about 220 bytes; numbers are counted from the
// mine bitset when needed.
// Observation (12 × rows × columns): planes 0–8 a revealed cell showing 0–8 (one-hot),
// plane 9 unrevealed cells, plane 10 the mine that exploded (at a loss), plane 11 ones.
// Policy: 1 × rows × columns, one logit per cell.
// Symmetries: the symmetries of the rectangle (identity, the mirrors and the half turn; all
// eight for a square board); the chance outcomes (mine cells) are moved with the board by
// transform_chance_outcome.
// Serialised form: the board rows from the top joined by '/', one character per cell: '.'
// unrevealed safe, '*' unrevealed mine, '0'–'8' a revealed cell (its number, checked), 'X'
// the exploded mine; then the first click (a cell, or '-' before it) and the number of
// actions played (chance included), e.g. "..../..*./..../.... b2 2" on a 4×4 board with one
// mine placed and nothing revealed yet.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "games/game.h"
#include "games/registry.h"
#include "games/zobrist.h"

namespace pz::games {

class MinesweeperGame final : public Game {
 public:
  static constexpr int kMaxRows = 24, kMaxColumns = 30, kMaxCells = kMaxRows * kMaxColumns;
  static constexpr int kWords = (kMaxCells + 63) / 64;
  using Bits = std::array<std::uint64_t, kWords>;

  MinesweeperGame(util::Spec spec, int rows, int columns, int mines);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
  Action transform_chance_outcome(Symmetry symmetry, Action outcome) const override {
    return transform_action(symmetry, outcome);
  }

  int rows() const { return rows_; }
  int columns() const { return columns_; }
  int cells() const { return rows_ * columns_; }
  int mines() const { return mines_; }
  int safe_cells() const { return cells() - mines_; }
  // Neighbours of a cell (up to 8).
  int num_neighbours(int cell) const { return neighbour_count_[static_cast<size_t>(cell)]; }
  int neighbour(int cell, int i) const { return neighbours_[static_cast<size_t>(cell)][static_cast<size_t>(i)]; }
  // The cell and its neighbours, where no mine may go after a first click on the cell.
  const Bits& neighbourhood(int cell) const { return neighbourhood_[static_cast<size_t>(cell)]; }
  const Bits& board_mask() const { return board_mask_; }
  const ZobristTable& zobrist() const { return zobrist_; }

  std::string cell_name(int cell) const;
  // Nullopt with a reason in `error` when `text` is not a cell of this board.
  std::optional<int> parse_cell(std::string_view text, std::string* error) const;

 private:
  int rows_, columns_, mines_;
  std::vector<std::array<std::int16_t, 8>> neighbours_;
  std::vector<std::uint8_t> neighbour_count_;
  std::vector<Bits> neighbourhood_;
  Bits board_mask_{};
  ZobristTable zobrist_;
};

class MinesweeperState final : public State {
 public:
  using Bits = MinesweeperGame::Bits;
  explicit MinesweeperState(const MinesweeperGame* game);
  std::unique_ptr<State> clone() const override { return std::make_unique<MinesweeperState>(*this); }
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
  std::unique_ptr<State> resample(Player player, util::Rng& rng) const override;
  std::string action_to_string(Player player, Action action) const override;
  std::optional<Action> parse_action(std::string_view text, std::string* error) const override;
  std::string to_string() const override;
  std::uint64_t hash() const override { return hash_; }
  std::string serialize() const override;

  // The resampling behind resample() (minesweeper_sampler.h): exact counting of the
  // frontier's consistent assignments when the tables hold at most `enumeration_budget`
  // numbers, else block Gibbs sampling. `exact` (if given) tells which path was taken.
  static constexpr std::int64_t kDefaultEnumerationBudget = 100000;
  std::unique_ptr<MinesweeperState> resample_mines(util::Rng& rng, std::int64_t enumeration_budget,
                                                   bool* exact = nullptr) const;

  bool is_mine(int cell) const { return test(mines_, cell); }
  bool is_revealed(int cell) const { return test(revealed_, cell); }
  // The number a revealed cell shows: mines among its neighbours.
  int number(int cell) const;
  int first_click() const { return first_click_; }
  int mines_placed() const { return mines_placed_; }
  int revealed_count() const { return revealed_count_; }
  int exploded() const { return exploded_; }
  bool won() const { return revealed_count_ == ms().safe_cells() && mines_placed_ == ms().mines(); }

  static bool test(const Bits& b, int i) { return b[static_cast<size_t>(i >> 6)] >> (i & 63) & 1; }
  static void set(Bits& b, int i) { b[static_cast<size_t>(i >> 6)] |= 1ULL << (i & 63); }
  static void clear(Bits& b, int i) { b[static_cast<size_t>(i >> 6)] &= ~(1ULL << (i & 63)); }

 private:
  friend class MinesweeperGame;
  const MinesweeperGame& ms() const { return static_cast<const MinesweeperGame&>(State::game()); }
  bool placing() const { return first_click_ >= 0 && mines_placed_ < ms().mines(); }
  void reveal(int cell);
  void place_mine(int cell);
  void recompute_hash();

  Bits mines_{}, revealed_{};
  std::uint64_t hash_ = 0;
  std::int16_t first_click_ = -1;
  std::int16_t mines_placed_ = 0;
  std::int16_t revealed_count_ = 0;
  std::int16_t exploded_ = -1;
  std::int16_t moves_ = 0;
};

GameEntry minesweeper_entry();

}  // namespace pz::games
