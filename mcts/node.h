// One node of a search tree, and the edge that leads to it.
//
// Edge data (action, prior, whose value the node accumulates) is written once by the thread
// that expands the parent, before it publishes the parent with `status = kExpanded`
// (release); everything a selecting thread reads afterwards is either that immutable data
// or an atomic statistic. So threads share a tree without locks: the only contended words
// are the counters below.
//
// Values. `value_sum` accumulates the backed-up value *for `value_player`*, the seat that
// chose the edge into this node (the parent's mover; below a chance node, the chance node's
// own value_player; for the per-player marginal entries of a simultaneous node, that
// player). Selection at a node therefore reads its children's statistics directly from the
// mover's point of view, for any number of players, without negation tricks.
//
// Children live in one contiguous array taken from a NodeArena. A simultaneous-move node
// (two players) lays out [n0 marginals of seat 0][n1 marginals of seat 1][n0·n1 joint
// children, index i0·n1 + i1]: selection is decoupled per player over the marginals, and
// the joint child is where the game continues.
#pragma once

#include <atomic>
#include <cstdint>

#include "games/game.h"

namespace pz::mcts {

enum class NodeStatus : std::uint8_t {
  kLeaf,       // not expanded; the first thread to CAS it to kExpanding owns the expansion
  kExpanding,  // waiting for its evaluation (another thread reaching it is a collision)
  kExpanded,   // kind, children and evaluation are published
};

enum class NodeKind : std::uint8_t { kUnknown, kDecision, kChance, kSimultaneous, kTerminal };

// One cache line per node: a thread updating a node's statistics must not invalidate its
// neighbours' (child arrays of different threads' expansions sit side by side in the arena).
struct alignas(64) Node {
  // --- Edge (immutable once the parent is published) ---
  games::Action action = games::kInvalidAction;  // joint children: their index
  float prior = 0;                                // chance children: the outcome's probability
  std::int8_t value_player = 0;

  // --- Expansion (immutable once status is kExpanded) ---
  NodeKind kind = NodeKind::kUnknown;
  std::int8_t mover = 0;            // kDecision: the seat to move
  std::uint16_t num_children = 0;
  std::uint16_t split = 0;          // kSimultaneous: number of seat-0 marginals
  float eval_value = 0;             // kDecision: the evaluator's value for the mover
  Node* children = nullptr;

  // --- Statistics (atomic; relaxed except where noted) ---
  std::atomic<NodeStatus> status{NodeStatus::kLeaf};  // acquire/release: publishes expansion
  std::atomic<std::uint8_t> proven{0};                 // 1: proven_value is exact (release)
  std::atomic<float> proven_value{0};                  // for value_player
  std::atomic<std::int32_t> visits{0};
  std::atomic<std::int32_t> in_flight{0};              // descents through here not yet backed up
  // The two sums are added to with add_relaxed (below): with several threads a rare
  // simultaneous backup loses one value, never a visit.
  std::atomic<double> value_sum{0};
  std::atomic<double> value_sq_sum{0};                 // for the variance behind LCB

  // Resets every field: nodes come from recycled arena memory.
  void reset(games::Action a, float p, int value_seat) {
    action = a;
    prior = p;
    value_player = static_cast<std::int8_t>(value_seat);
    kind = NodeKind::kUnknown;
    mover = 0;
    num_children = 0;
    split = 0;
    eval_value = 0;
    children = nullptr;
    status.store(NodeStatus::kLeaf, std::memory_order_relaxed);
    proven.store(0, std::memory_order_relaxed);
    proven_value.store(0, std::memory_order_relaxed);
    visits.store(0, std::memory_order_relaxed);
    in_flight.store(0, std::memory_order_relaxed);
    value_sum.store(0, std::memory_order_relaxed);
    value_sq_sum.store(0, std::memory_order_relaxed);
  }

  bool is_expanded() const { return status.load(std::memory_order_acquire) == NodeStatus::kExpanded; }
  bool is_proven() const { return proven.load(std::memory_order_acquire) != 0; }
  std::int32_t visit_count() const { return visits.load(std::memory_order_relaxed); }
  // Mean backed-up value for value_player (0 when unvisited).
  double mean_value() const {
    const auto n = visits.load(std::memory_order_relaxed);
    return n > 0 ? value_sum.load(std::memory_order_relaxed) / n : 0.0;
  }

  // Simultaneous nodes: the marginal entries of seat 0 and 1, and the joint children.
  int marginal_count(int seat) const {
    const int n0 = split;
    return seat == 0 ? n0 : (num_children - n0) / (n0 + 1);
  }
  Node* marginals(int seat) const { return seat == 0 ? children : children + split; }
  Node* joint_child(int i0, int i1) const {
    return children + split + marginal_count(1) + i0 * marginal_count(1) + i1;
  }
};
// A plain load and store, not a compare-and-swap loop: exact for one thread; with several,
// two backups through the same node within the same few nanoseconds can lose one of the two
// values (never a visit, which stays an atomic add). Lock-free MCTS accepts that
// (Enzenberger & Müller, 2009): a locked read-modify-write stalls the thread until it owns
// the cache line, and the top of the tree is on every thread's every path.
inline void add_relaxed(std::atomic<double>& target, double value) {
  target.store(target.load(std::memory_order_relaxed) + value, std::memory_order_relaxed);
}

static_assert(sizeof(Node) == 64, "Node should fill exactly one cache line");

}  // namespace pz::mcts
