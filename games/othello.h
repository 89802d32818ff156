// Othello (Reversi) on a size×size board (option size: even, 6..16, default 8).
//
// Rules (standard Othello). Black (seat 0, 'X') moves first. The game starts with the four
// centre cells filled: with c = size/2 and cells written (row y from the top, column x),
// White on (c-1, c-1) and (c, c), Black on (c-1, c) and (c, c-1) — on 8×8 White d4 and e5,
// Black e4 and d5. A move places a disc of the mover's colour on an empty cell so that at
// least one straight line (horizontal, vertical or diagonal) of one or more contiguous
// opponent discs runs from it to another disc of the mover's; every such line in all eight
// directions is flipped. A player with no such move must pass — then, and only then, the
// only legal action is "pass", which is a ply of its own (it counts in move_number() and in
// perft). When neither player can move (in particular when the board is full) the game
// ends: more discs wins (+1 / -1), equal counts draw (0 / 0). Empty cells are not counted.
//
// Every ply, pass included, hands the move to the other colour, so the side to move is
// always move_number() % 2 (0 = Black).
//
// Notation: column letter a, b, ... and row number counted from the TOP, a1 = top-left
// (the usual Othello convention: Black's four opening moves are f5, d3, c4 and e6); "pass".
// Output is lower case, input case-insensitive.
//
// Representation: bit y·size + x of a bitset is cell (y, x) — the action index — one
// bitset per colour. On 8×8 the bitset is one uint64_t and the legal moves come from a
// Kogge-Stone occluded fill per direction (shift, mask the opponent's discs to the inner
// six columns for directions that move sideways so nothing wraps between rows), and the
// flips from the same fill started at the move, kept per direction when the cell past the
// run holds a disc of the mover's. Other sizes use a plain shift loop per direction with
// the shifts and masks computed for the size: on one word for 6×6, on Bitset256 — four
// uint64_t words with multi-word shifts, enough for 16×16 — above; sideways directions mask
// out columns 0 and size-1 in the same way, and bits past size² are kept clear by masking
// with the board. A state holds one Bitset256 per colour whatever the size (only word 0 is
// used up to 8×8) and caches the mover's legal-move set, so current_player() and
// legal_actions() do not generate moves; it is ~130 bytes of plain data.
//
// Observation (4×size×size, from `player`'s point of view; row 0 = top row):
//   0: `player`'s discs      1: the opponent's discs
//   2: `player`'s legal moves if `player` is to move (all zero otherwise, and when the only
//      legal action is pass)
//   3: ones when `player` is Black
// Policy: 2×size×size; action y·size + x places on (y, x) (plane 0); pass = size² is plane 1,
// cell (0, 0). The rest of plane 1 is unused.
//
// Symmetries: identity, rotate180, transpose and antitranspose — the ones that map the
// starting square onto itself (the two quarter turns and the two axis mirrors swap the
// colours of the centre discs). Pass maps to itself.
//
// Hash: Zobrist keys for each (colour, cell) disc, plus one for White to move.
//
// Serialised form: "<board> <side> <move number>", e.g. the start on 8×8 is
//   "...........................ox......xo........................... x 0"
// <board> is size² characters in reading order (a1, b1, ..., then row 2, ...): 'x' Black,
// 'o' White, '.' empty. <side> is 'x' or 'o', the side to move (for a finished game, the
// side that would be next). <move number> is the number of plies played since the initial
// position (passes included); it must have the parity of <side> (even for x) and be at least
// discs - 4 (each placement adds one disc). It may be omitted: it is then the smallest such
// number, i.e. discs - 4 (+1 if needed for the parity), which is exact for games without
// passes. Any arrangement of discs is accepted (Othello's future depends only on the discs
// and the side to move); a position whose side to move has no move but whose opponent has
// one is a forced-pass position, and one where neither can move is terminal.
#pragma once

#include <bit>
#include <cstdint>

#include "games/game.h"
#include "games/registry.h"
#include "games/zobrist.h"

namespace pz::games {

// 256 bits, bit i in word i / 64. Shifts are by 0 < k < 64 bits; bits shifted past either
// end are lost.
struct Bitset256 {
  std::uint64_t w[4] = {0, 0, 0, 0};

  bool any() const { return (w[0] | w[1] | w[2] | w[3]) != 0; }
  bool test(int i) const { return w[i >> 6] >> (i & 63) & 1; }
  void set(int i) { w[i >> 6] |= std::uint64_t{1} << (i & 63); }
  int count() const { return std::popcount(w[0]) + std::popcount(w[1]) + std::popcount(w[2]) + std::popcount(w[3]); }
  bool operator==(const Bitset256&) const = default;

  friend Bitset256 operator&(const Bitset256& a, const Bitset256& b) {
    return {{a.w[0] & b.w[0], a.w[1] & b.w[1], a.w[2] & b.w[2], a.w[3] & b.w[3]}};
  }
  friend Bitset256 operator|(const Bitset256& a, const Bitset256& b) {
    return {{a.w[0] | b.w[0], a.w[1] | b.w[1], a.w[2] | b.w[2], a.w[3] | b.w[3]}};
  }
  friend Bitset256 operator^(const Bitset256& a, const Bitset256& b) {
    return {{a.w[0] ^ b.w[0], a.w[1] ^ b.w[1], a.w[2] ^ b.w[2], a.w[3] ^ b.w[3]}};
  }
  Bitset256 operator~() const { return {{~w[0], ~w[1], ~w[2], ~w[3]}}; }
  Bitset256 shl(int k) const {
    return {{w[0] << k, (w[1] << k) | (w[0] >> (64 - k)), (w[2] << k) | (w[1] >> (64 - k)),
             (w[3] << k) | (w[2] >> (64 - k))}};
  }
  Bitset256 shr(int k) const {
    return {{(w[0] >> k) | (w[1] << (64 - k)), (w[1] >> k) | (w[2] << (64 - k)), (w[2] >> k) | (w[3] << (64 - k)),
             w[3] >> k}};
  }
  // Calls f(i) for every set bit, ascending.
  template <class F>
  void for_each(F&& f) const {
    for (int k = 0; k < 4; ++k) {
      for (std::uint64_t b = w[k]; b; b &= b - 1) f(k * 64 + std::countr_zero(b));
    }
  }
};

class OthelloGame final : public Game {
 public:
  OthelloGame(util::Spec spec, int size);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
  Action transform_action(Symmetry symmetry, Action action) const override;

  int size() const { return size_; }
  Action pass_action() const { return size_ * size_; }

  // Zobrist keys.
  std::uint64_t disc_key(int player, int cell) const { return disc_key_[player][cell]; }
  std::uint64_t flip_key(int cell) const { return disc_key_[0][cell] ^ disc_key_[1][cell]; }
  std::uint64_t white_to_move_key() const { return white_key_; }

  // Move generation (see the header comment): the cells where the owner of `own` may
  // play, and the discs of `opp` that a move on `cell` flips.
  Bitset256 moves(const Bitset256& own, const Bitset256& opp) const;
  Bitset256 flips(int cell, const Bitset256& own, const Bitset256& opp) const;

 private:
  int size_;
  std::uint64_t disc_key_[2][256];
  std::uint64_t white_key_;
  // For sizes other than 8, per direction: the bit shift (positive = towards higher bits)
  // and the mask applied to the opponent's discs along it (board cells, minus columns 0 and
  // size-1 for directions with a sideways step); as one word too when size² <= 64.
  int shift_[8];
  Bitset256 inner_mask_[8];
  Bitset256 board_;
  std::uint64_t inner_mask64_[8];
  std::uint64_t board64_;
};

class OthelloState final : public State {
 public:
  explicit OthelloState(const OthelloGame* game);
  std::unique_ptr<State> clone() const override { return std::make_unique<OthelloState>(*this); }
  bool assign_from(const State& other) override { return assign_same(*this, other); }

  Player current_player() const override { return terminal_ ? kTerminalPlayer : to_move_; }
  int move_number() const override { return move_number_; }
  void legal_actions(std::vector<Action>& out) const override;
  void apply_action(Action action) override;
  std::string explain_illegal(Action action) const override;
  std::vector<double> returns() const override;
  // Game API auxiliary targets (game.h): each cell's disc, and the disc difference.
  bool final_ownership(Player player, float* out) const override;
  bool final_score(Player player, double* out) const override;
  void observation(Player player, float* out) const override;
  std::string action_to_string(Player player, Action action) const override;
  std::optional<Action> parse_action(std::string_view text, std::string* error) const override;
  std::string to_string() const override;
  std::uint64_t hash() const override { return hash_; }
  std::string serialize() const override;

  // Number of discs of `player` (0 = Black, 1 = White) on the board.
  int discs(Player player) const { return discs_[player].count(); }
  // Seat whose disc is on cell y·size + x, or -1 when empty.
  int owner(int cell) const;
  // True when the side to move has no placement and must pass (not at terminal states).
  bool must_pass() const { return !terminal_ && !moves_.any(); }

 private:
  friend class OthelloGame;
  const OthelloGame& og() const { return static_cast<const OthelloGame&>(State::game()); }
  Bitset256 moves_of(int player) const { return og().moves(discs_[player], discs_[1 - player]); }
  // Recomputes moves_ and terminal_ for to_move_ after the discs changed.
  void update_status();

  Bitset256 discs_[2];  // per seat
  Bitset256 moves_;     // legal placements of to_move_ (empty when passing or terminal)
  std::uint64_t hash_ = 0;
  int move_number_ = 0;
  std::int8_t to_move_ = 0;
  bool terminal_ = false;
  bool size8_ = false;  // cached game().size() == 8: the single-word fast path
};

GameEntry othello_entry();

}  // namespace pz::games
