// The Game API: one abstract interface for every game polyzero plays.
//
// A *Game* is the rules with their parameters (board size, komi, ...): immutable, shared
// by every state, created by name from the registry (games/registry.h) and always owned by
// a std::shared_ptr. A *State* is one position of that game. Search clones states
// constantly, so states are plain values that copy without heap churn; each State shares
// ownership of its Game, so a state stays valid however long it outlives the code that made
// the game (`make_game("go")->new_initial_state()` is safe).
//
// The model follows OpenSpiel's, which has proven general enough for every game family:
//
//  * Node kinds. current_player() is a seat (0 .. num_players-1) when one player decides,
//    kChancePlayer at a chance node (the state lists outcomes with probabilities; applying
//    one is an ordinary apply_action), kSimultaneousPlayer when every player submits an
//    action and the joint action is applied at once (apply_joint_action), and
//    kTerminalPlayer when the game is over.
//  * Actions are integers in a fixed space [0, num_distinct_actions). Chance outcomes are
//    integers in [0, max_chance_outcomes), a separate space.
//  * Returns are a vector, one entry per player, so zero-sum games (+1/-1/0), scored
//    single-player games (2048's score) and multi-player games share one type. returns()
//    is valid at every node: the total so far for scored games, zeros for win/loss games
//    that have not ended.
//  * Hidden information. observation(p) shows only what player p may see. resample(p, rng)
//    returns a state that agrees with everything p has observed, with the hidden part drawn
//    from its posterior; search runs on such samples (Polygames' approach for Minesweeper
//    and Mastermind). For perfect-information games it is a clone.
//  * Neural-network views. observation planes are C×H×W floats, from the point of view of
//    the player asked for (plane 0 is "mine" in board games). The policy is A×H×W planes and
//    action a is flat index a of those planes (plane a / (H·W), row, column), so a move's
//    policy cell is where it happens on the board; non-spatial actions (pass, swap) get a
//    cell of their own in an extra plane. A game may leave policy cells unused.
//  * Symmetries are board transformations under which the rules — and the initial state —
//    are invariant: data augmentation applies them to observation and policy together.
//    Symmetry 0 is always the identity.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "games/symmetry.h"
#include "util/rng.h"
#include "util/spec.h"

namespace pz::games {

using Action = std::int32_t;
using Player = int;

inline constexpr Player kChancePlayer = -1;
inline constexpr Player kSimultaneousPlayer = -2;
inline constexpr Player kTerminalPlayer = -3;
inline constexpr Action kInvalidAction = -1;

enum class Family { kBoard, kStrategy, kAction };
const char* family_name(Family family);

// Planes × height × width.
struct Shape {
  int channels = 0, height = 0, width = 0;
  int size() const { return channels * height * width; }
  int plane_size() const { return height * width; }
  bool operator==(const Shape&) const = default;
};

// What a game is, independent of any position. Filled in by each game's constructor.
struct GameInfo {
  std::string name;          // registry name, e.g. "hex"
  std::string long_name;     // e.g. "Hex"
  Family family = Family::kBoard;
  int num_players = 2;
  int num_distinct_actions = 0;  // size of the action space
  int max_chance_outcomes = 0;   // 0 for deterministic games
  Shape observation_shape;
  Shape policy_shape;            // policy_shape.size() >= num_distinct_actions
  bool zero_sum = true;
  bool perfect_information = true;
  bool simultaneous = false;     // has simultaneous-move nodes
  double min_return = -1.0, max_return = 1.0;  // bounds of any player's return
  int max_game_length = 0;       // upper bound on the number of actions in a game (incl. chance)
  // The game is scored on its board (Go's area, Othello's discs): its terminal states answer
  // final_ownership() and final_score(), the auxiliary training targets of KataGo.
  bool board_ownership = false;
};

class State;

class Game : public std::enable_shared_from_this<Game> {
 public:
  virtual ~Game() = default;

  const GameInfo& info() const { return info_; }
  // The spec this game was created from, with every option spelled out: "hex:size=11,swap=true".
  const util::Spec& spec() const { return spec_; }
  // The spec without the options a network never sees (they change neither its observations
  // nor what its actions mean): a checkpoint trained for one game plays every game with the
  // same network_spec(). Default: spec(). Go drops ko and max_moves, so a network trained
  // under GNU Go's simple ko plays under positional superko too.
  virtual util::Spec network_spec() const { return spec_; }

  virtual std::unique_ptr<State> new_initial_state() const = 0;

  // Rebuilds a state from State::serialize(). Throws util::UsageError on malformed text.
  virtual std::unique_ptr<State> deserialize(std::string_view text) const = 0;

  // Symmetries valid for this game (see the header comment); element 0 is kIdentity.
  const std::vector<Symmetry>& symmetries() const { return symmetries_; }
  // The action that `action` becomes when the board is transformed by `symmetry`.
  // Default: move the action's policy cell; games override for non-spatial actions.
  virtual Action transform_action(Symmetry symmetry, Action action) const;
  // The chance outcome that `outcome` becomes under `symmetry` (e.g. the cell where 2048
  // spawns a tile). Default: unchanged, right for dice and other non-spatial outcomes.
  virtual Action transform_chance_outcome(Symmetry symmetry, Action outcome) const {
    (void)symmetry;
    return outcome;
  }
  // Transforms observation planes (C×H×W) cell by cell: `out` must not alias `in`.
  void transform_planes(Symmetry symmetry, const Shape& shape, const float* in, float* out) const;
  // Transforms a policy (one value per policy cell, policy_shape.size() floats) action by
  // action through transform_action, so direction planes (Breakthrough) and non-spatial
  // actions (pass, swap) move correctly. Cells that are no action are zero in `out`.
  void transform_policy(Symmetry symmetry, const float* in, float* out) const;

 protected:
  Game(GameInfo info, util::Spec spec, std::vector<Symmetry> symmetries = {Symmetry::kIdentity});
  GameInfo info_;
  util::Spec spec_;
  std::vector<Symmetry> symmetries_;
};

class State {
 public:
  virtual ~State() = default;

  const Game& game() const { return *game_; }
  virtual std::unique_ptr<State> clone() const = 0;
  // Makes this state a copy of `other` when both are the same class, reusing this object's
  // memory, and returns true; returns false and changes nothing otherwise. Search loops use
  // it in place of clone(): a clone is a heap allocation plus two atomic updates of the
  // game's reference count, a cache line that every search thread would then write on every
  // simulation (it halved 2-thread MCTS throughput). Games implement it with assign_same().
  virtual bool assign_from(const State& other) { (void)other; return false; }

  // --- Whose turn --------------------------------------------------------------------
  virtual Player current_player() const = 0;
  bool is_terminal() const { return current_player() == kTerminalPlayer; }
  bool is_chance_node() const { return current_player() == kChancePlayer; }
  bool is_simultaneous_node() const { return current_player() == kSimultaneousPlayer; }
  // Number of actions (including chance outcomes) applied since the initial state.
  virtual int move_number() const = 0;

  // --- Moves ---------------------------------------------------------------------------
  // Legal actions of the player to move, sorted ascending; at a chance node, the outcomes;
  // empty at terminal and simultaneous nodes. Writes into `out` (cleared first) so hot
  // loops reuse one buffer.
  virtual void legal_actions(std::vector<Action>& out) const = 0;
  std::vector<Action> legal_actions() const {
    std::vector<Action> out;
    legal_actions(out);
    return out;
  }
  // At a simultaneous node: player p's legal actions. Elsewhere: the mover's actions when
  // p is the mover, otherwise none.
  virtual void legal_actions(Player p, std::vector<Action>& out) const;
  bool is_legal(Action action) const;
  // Why `action` is not legal here, in words a player understands ("column 3 is full",
  // "suicide", "repeats an earlier position (superko)"). Only called for illegal actions.
  virtual std::string explain_illegal(Action action) const;

  // Chance outcomes with their probabilities (summing to 1) at a chance node.
  virtual std::vector<std::pair<Action, double>> chance_outcomes() const;

  // Applies a decision or chance action. Precondition: legal (checked in debug builds
  // and by apply_checked).
  virtual void apply_action(Action action) = 0;
  // At a simultaneous node: one action per player, in seat order.
  virtual void apply_joint_action(const std::vector<Action>& actions);
  // apply_action with a legality check that throws util::UsageError naming the move.
  void apply_checked(Action action);
  // Whether the game may be over right after the legal decision action `action`. The
  // search asks before it tries a move for an immediate win (search_config.h); the default
  // says yes to every action. Games whose endings are few and easy to recognise answer
  // exactly and save the trial (Go: only a pass after a pass, or the move limit).
  virtual bool may_end_game(Action action) const {
    (void)action;
    return true;
  }

  // --- Outcome -------------------------------------------------------------------------
  virtual std::vector<double> returns() const = 0;

  // Auxiliary targets (KataGo, Wu 2019: predicting the final board speeds up learning), for
  // games with GameInfo::board_ownership, at terminal states:
  //  * final_ownership: who owns each board cell at the end from `player`'s side, +1 for
  //    `player`, −1 for the opponent, 0 for neither, H×W floats in the observation planes'
  //    cell order (so symmetries transform it as one more plane);
  //  * final_score: the margin the game was decided by, from `player`'s side, in cells
  //    (Go: area difference with komi; Othello: disc difference).
  // Both return false (and write nothing) at other states and in other games.
  virtual bool final_ownership(Player player, float* out) const {
    (void)player;
    (void)out;
    return false;
  }
  virtual bool final_score(Player player, double* out) const {
    (void)player;
    (void)out;
    return false;
  }

  // --- Views -----------------------------------------------------------------------------
  // Writes game().info().observation_shape.size() floats for `player`'s point of view.
  virtual void observation(Player player, float* out) const = 0;
  std::vector<float> observation(Player player) const;

  // A state consistent with everything `player` has observed, hidden parts resampled.
  virtual std::unique_ptr<State> resample(Player player, util::Rng& rng) const;

  // --- Text ----------------------------------------------------------------------------
  // The move in the game's usual notation ("4" in Connect Four, "c3" in Hex and Go,
  // "pass"). `player` is the seat making it (or kChancePlayer).
  virtual std::string action_to_string(Player player, Action action) const = 0;
  // Reads a move in that notation (case-insensitive). On failure returns nullopt and, if
  // `error` is given, says why. Legality is not checked here; use is_legal.
  virtual std::optional<Action> parse_action(std::string_view text, std::string* error = nullptr) const = 0;
  // A human-readable board with coordinates.
  virtual std::string to_string() const = 0;

  // --- Identity ------------------------------------------------------------------------
  // Zobrist hash of everything that decides the future of the game (position, player to
  // move, and rule state such as ko or the swap right).
  virtual std::uint64_t hash() const = 0;
  // A text form that game().deserialize() turns back into an equivalent state.
  virtual std::string serialize() const = 0;

 protected:
  // `game` must be owned by a std::shared_ptr (games always are: see Game).
  explicit State(const Game* game) : game_(game->shared_from_this()) {}
  State(const State&) = default;
  State& operator=(const State&) = default;

 private:
  std::shared_ptr<const Game> game_;
};

// The usual assign_from(): `self = other` when `other` is an S too (same-game copy
// assignment leaves the shared game pointer, and so its reference count, untouched).
template <class S>
bool assign_same(S& self, const State& other) {
  if (typeid(other) != typeid(S)) return false;
  self = static_cast<const S&>(other);
  return true;
}

// Player names used in text ("Black", "White", ...) come from each game's to_string; these
// helpers are for generic code.
std::string player_label(Player player);

}  // namespace pz::games
