// Leaves waiting for evaluation, possibly from many searches (lockstep self-play puts the
// leaves of every tree a thread owns into one batch).
//
// A PendingLeaf is a descent that stopped at an unexpanded node it claimed: the position
// there, the path (under virtual loss) to back up through, and the buffers the evaluator
// fills. Slots are reused from batch to batch so their vectors keep their capacity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "games/game.h"
#include "mcts/deferred_stats.h"
#include "mcts/evaluator.h"
#include "mcts/node.h"
#include "mcts/node_arena.h"

namespace pz::mcts {

class Search;

struct PendingLeaf {
  Search* owner = nullptr;
  std::unique_ptr<games::State> state;
  std::vector<Node*> path;            // root first; simultaneous marginals precede their joint child
  std::vector<games::Action> legal;   // decision: the mover's; simultaneous: seat 0's then seat 1's
  int split = -1;                     // simultaneous: how many of `legal` are seat 0's (else -1)
  std::vector<float> priors, values;
  std::vector<games::Action> joint;   // scratch for apply_joint_action during the descent
  std::unique_ptr<games::State> probe;  // scratch for trying moves at expansion (immediate wins)
  // Bit i set: path[i] is a busy node whose statistics this thread defers (deferred_stats.h);
  // it took no virtual loss. Only the first 64 levels are ever deferred.
  std::uint64_t deferred = 0;
  bool is_deferred(std::size_t depth) const { return depth < 64 && ((deferred >> depth) & 1U) != 0; }
};

// A thread's current burst (Search::run with several threads, SearchConfig::burst_simulations):
// the busy nodes below the root it runs its next `left` simulations through.
struct Burst {
  std::vector<Node*> path;
  int length = 0;  // its simulations, and the virtual losses it holds on each path node
  int left = 0;
  std::int64_t started = 0;  // bursts this thread began
};

class LeafBatch {
 public:
  // A slot to fill; it joins the batch only on commit().
  PendingLeaf& next();
  void commit() { ++size_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::span<PendingLeaf> leaves() { return {leaves_.data(), size_}; }
  void clear() { size_ = 0; }

  // A descent that collided keeps its virtual loss until the batch is evaluated, so the
  // next descents of this batch steer around the leaf being expanded (Leela's collision
  // handling) instead of running into it again.
  void hold_collision(const PendingLeaf& leaf);
  // Removes the held virtual losses.
  void release_collisions();

  // Node allocation of the thread that owns this batch (Search::run's workers).
  ArenaCursor arena_cursor;
  // Search::run with several threads: the thread's burst, and the statistics of its path
  // (and the root's visits) not yet published.
  Burst burst;
  DeferredStats deferred_stats;

 private:
  friend void evaluate_batch(Evaluator& evaluator, LeafBatch& batch);
  std::vector<PendingLeaf> leaves_;
  std::size_t size_ = 0;
  std::vector<EvalRequest> requests_;
  std::vector<Node*> collided_;
};

// Evaluates every leaf of the batch in one call, expands them and backs their values up
// through their own search; leaves the batch empty.
void evaluate_batch(Evaluator& evaluator, LeafBatch& batch);

}  // namespace pz::mcts
