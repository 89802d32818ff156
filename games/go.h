// Go on a square board of side 5..19 (default 9), under Tromp-Taylor-style rules:
//
//  * Black (seat 0, 'X') moves first; White (seat 1, 'O') receives komi (default 7.5).
//  * A move places a stone on an empty point; opponent chains left without liberties are
//    removed, then the mover's own chain must have a liberty: suicide is illegal.
//  * Repetition, by the option ko. positional (the default): positional superko, a move may
//    not recreate a board position (stones only, whoever is to move) that occurred earlier
//    in the game, the empty start included. simple: the simple ko rule GNU Go plays, a move
//    may not recreate the position before the opponent's previous move (which is only
//    possible by retaking a single stone that just captured a single stone); other
//    repetitions are legal, and a game that cycles ends at max_moves.
//  * Pass is always legal; two consecutive passes end the game. So does reaching max_moves
//    actions (passes included). Either way the board is scored as it stands — no dead-stone
//    removal — by area: a player's stones plus the empty points whose region borders only
//    that player's stones. score() = Black area − White area − komi; its sign decides the
//    game (+1/−1), and 0 (possible with integer komi) is a draw (0/0).
//
// Options: size (5..19, default 9), komi (−400..400, default 7.5), ko (positional or
// simple, default positional) and max_moves (0..10000, default 0). max_moves = 0 means 4·size² (324 on 9×9, 1444 on 19×19). There is no uncapped
// setting on purpose: GameInfo::max_game_length must be a finite bound that buffers and
// tests rely on, and a superko-finite game of random moves can still run for many
// thousands of moves, which self-play cannot afford. Real games end by passes long before
// 4·size². A smaller cap gives short games for tests and experiments.
//
// Notation (GTP): a column letter a..t skipping i, then the row number counted from the
// bottom, so "a1" is the bottom-left corner and "j1" the ninth column; "pass". Read
// case-insensitively, written in lower case. Actions: y·size + x for the point in row y
// counted from the TOP and column x; pass = size². Serialised form: the moves in GTP
// notation separated by spaces ("d4 e5 pass"), "" at the start — the history, because
// the repetition rule makes the legal moves depend on it; deserialize() replays it with full
// legality checks.
//
// Representation (the one GNU Go, Pachi and Leela use): a padded 1-D board of
// (size+2)² points with a border ring, so neighbours are p±1 and p±(size+2) without bounds
// checks. Stones of a chain form a circular list (next_), each stone knows its chain's head
// (head_), and the head holds the chain's stone count and pseudo-liberties (each
// stone–empty-point adjacency counted once) with their sum and sum of squares: a chain is
// in atari exactly when count·sumsq = sum², so captures, suicide and atari tests are O(1)
// per neighbour and a move costs O(stones it merges or captures). Copying a state copies
// only the (size+2)² used entries of the fixed arrays, plus the history vector.
//
// History and repetition: history_ holds one 64-bit entry per position (the start and after
// every action), packing the high 46 bits of the position's Zobrist key, the action that
// led there (9 bits) and the number of stones on the board (9 bits); the packed actions are
// the move list serialize() writes. The positions a move may not recreate are the whole
// history under positional superko, the entry before the last one under simple ko
// (earlier_positions()). A move can only repeat a position with as many stones
// as it would leave, so legal_actions makes one pass over those entries collecting the keys
// with stones+1 stones (for moves that capture nothing) and with stones (for moves that
// capture one stone) — usually a handful — and only when a candidate captures more, or a
// count has over 64 earlier positions, builds a hash set of them all (one per thread,
// reused). Repeats are found with no capture too ("send two, return one").
// A false repetition needs a 46-bit collision between positions of equal stone count:
// around 1e-10 per game.
//
// hash(): Zobrist key of the stones, XOR a key when White is to move, XOR a key for one or
// for two consecutive passes. The history and the number of moves played towards
// max_moves are NOT hashed: two states with the same hash may differ in which repeating
// moves are forbidden or in how close the cap is (transposition tables accept this, as in
// every Go engine).
//
// Observation (12 × size × size, row 0 at the top, from `player`'s point of view):
//   0  player's stones              1  opponent's stones
//   2  empty points where `player` may not play (suicide or repetition), filled only when
//      `player` is the one to move in a non-terminal state; zeros otherwise
//   3  player's chains with 1 liberty    4  … 2 liberties    5  … 3 or more
//   6  opponent's chains with 1 liberty  7  … 2 liberties    8  … 3 or more
//   9  ones if `player` is Black    10  komi/15 from `player`'s side (+ for White, − for Black)
//  11  ones if the last action was a pass
// Policy: 2 × size × size; plane 0 is the board, pass is plane 1 cell 0 (the rest of
// plane 1 unused). Symmetries: all eight of the square; pass maps to itself.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "games/game.h"
#include "games/registry.h"
#include "games/zobrist.h"

namespace pz::games {

class GoGame final : public Game {
 public:
  static constexpr int kMinSize = 5, kMaxSize = 19;
  static constexpr int kMaxPoints = (kMaxSize + 2) * (kMaxSize + 2);
  static constexpr int kNumPlanes = 12;

  // The repetition rule (option ko; see the header comment).
  enum class KoRule { kPositional, kSimple };

  GoGame(util::Spec spec, int size, double komi, int max_moves, KoRule ko = KoRule::kPositional);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
  Action transform_action(Symmetry symmetry, Action action) const override;
  util::Spec network_spec() const override;  // without ko and max_moves

  int size() const { return size_; }
  double komi() const { return komi_; }
  int max_moves() const { return max_moves_; }  // the effective cap (0 already resolved)
  KoRule ko_rule() const { return ko_; }
  Action pass_action() const { return size_ * size_; }

  // Padded board geometry.
  int stride() const { return size_ + 2; }
  int num_points() const { return stride() * stride(); }
  int point_of(Action action) const { return (action / size_ + 1) * stride() + action % size_ + 1; }
  Action action_of(int point) const { return (point / stride() - 1) * size_ + point % stride() - 1; }

  // Zobrist keys: colour 1 = Black, 2 = White.
  std::uint64_t stone_key(int colour, int point) const { return zobrist_[(colour - 1) * kMaxPoints + point]; }
  std::uint64_t white_to_move_key() const { return zobrist_[2 * kMaxPoints]; }
  std::uint64_t passes_key(int passes) const { return zobrist_[2 * kMaxPoints + passes]; }  // passes 1 or 2

 private:
  int size_;
  double komi_;
  int max_moves_;
  KoRule ko_;
  ZobristTable zobrist_;
};

class GoState final : public State {
 public:
  explicit GoState(const GoGame* game);
  GoState(const GoState& other);
  GoState& operator=(const GoState& other);
  std::unique_ptr<State> clone() const override { return std::make_unique<GoState>(*this); }
  bool assign_from(const State& other) override { return assign_same(*this, other); }

  Player current_player() const override;
  int move_number() const override { return static_cast<int>(history_.size()) - 1; }
  void legal_actions(std::vector<Action>& out) const override;
  void apply_action(Action action) override;
  std::string explain_illegal(Action action) const override;
  std::vector<double> returns() const override;
  void observation(Player player, float* out) const override;
  std::string action_to_string(Player player, Action action) const override;
  std::optional<Action> parse_action(std::string_view text, std::string* error) const override;
  std::string to_string() const override;
  std::uint64_t hash() const override;
  std::string serialize() const override;

  // Black area − White area − komi of the board as it stands (Tromp-Taylor: stones plus
  // empty regions bordering only one colour; nothing is removed as dead).
  double score() const;
  // Game API auxiliary targets (game.h): the area of score() per point, and score().
  bool final_ownership(Player player, float* out) const override;
  bool final_score(Player player, double* out) const override;
  // Why the player to move may not play `action`, or "" when it is legal.
  std::string illegal_reason(Action action) const;
  // Seat whose stone is on the point of `action` (a board action, not pass), or -1.
  int owner(Action action) const;
  // Liberties (distinct empty neighbours) of the chain on the point of `action`; 0 if empty.
  int liberties(Action action) const;
  // Stones captured so far by `player`.
  int captures(Player player) const { return captures_[player]; }
  int consecutive_passes() const { return passes_; }
  bool may_end_game(Action action) const override {
    return (action == go().pass_action() && passes_ == 1) || move_number() + 1 >= go().max_moves();
  }
  // The actions played so far, in order.
  std::vector<Action> moves() const;

 private:
  static constexpr std::uint8_t kEmpty = 0, kBlack = 1, kWhite = 2, kBorder = 3;
  struct Chain {
    std::uint16_t plibs;   // pseudo-liberties
    std::uint16_t stones;
    std::uint32_t lib_sum, lib_sumsq;
  };

  const GoGame& go() const { return static_cast<const GoGame&>(State::game()); }
  int to_move_colour() const { return (move_number() & 1) + 1; }
  bool game_over() const { return passes_ >= 2 || move_number() >= go().max_moves(); }
  static bool in_atari(const Chain& c) {
    return static_cast<std::uint64_t>(c.plibs) * c.lib_sumsq == static_cast<std::uint64_t>(c.lib_sum) * c.lib_sum;
  }
  static void add_lib(Chain& c, int p) {
    ++c.plibs;
    c.lib_sum += static_cast<std::uint32_t>(p);
    c.lib_sumsq += static_cast<std::uint32_t>(p * p);
  }
  static void remove_lib(Chain& c, int p) {
    --c.plibs;
    c.lib_sum -= static_cast<std::uint32_t>(p);
    c.lib_sumsq -= static_cast<std::uint32_t>(p * p);
  }
  // Who owns each point (action order) by area: kBlack, kWhite, or kEmpty for neither.
  void area_owners(std::uint8_t* owner) const;
  // Playing `colour` on empty point p: false when it is suicide; otherwise the resulting
  // position's Zobrist key and stone count.
  bool try_point(int p, int colour, std::uint64_t* new_hash, int* new_stones) const;
  // The history entries of the positions a move may not recreate (the ko rule's).
  std::span<const std::uint64_t> earlier_positions() const;
  // True when one of earlier_positions() has this key and stone count.
  bool seen_before(std::uint64_t position_hash, int stones) const;
  // Calls f(action) for every legal board move of the player to move, ascending.
  template <class F>
  void for_each_legal_point(F&& f) const;
  void merge(int a, int b);
  void capture(int head, int capturer);
  void push_history(Action action);
  void copy_from(const GoState& other);

  std::uint8_t color_[GoGame::kMaxPoints];
  std::uint16_t head_[GoGame::kMaxPoints];
  std::uint16_t next_[GoGame::kMaxPoints];
  Chain chains_[GoGame::kMaxPoints];  // valid at chain heads
  std::uint64_t position_hash_ = 0;   // stones only
  int stones_ = 0;
  int passes_ = 0;
  int captures_[2] = {0, 0};
  std::vector<std::uint64_t> history_;  // see the header comment
};

GameEntry go_entry();

}  // namespace pz::games
