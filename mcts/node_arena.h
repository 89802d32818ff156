// Node storage without per-node heap traffic.
//
// A search allocates one contiguous child array per expansion. NodeArena hands those arrays
// out of large blocks with one atomic add (several threads expand concurrently), takes a
// mutex only to move to the next block, and on clear() keeps every block for the next
// search, so a player that searches move after move stops allocating after a few moves.
// Nodes are never freed one by one: tree reuse copies the kept subtree into a second arena
// and clears the first (see Tree), which also keeps the live tree compact in memory.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "mcts/node.h"

namespace pz::mcts {

class NodeArena;

// A thread's private run of nodes carved from an arena, so that threads expanding the same
// tree take the arena's shared counter once per chunk instead of once per expansion.
struct ArenaCursor {
  const NodeArena* arena = nullptr;
  std::uint64_t generation = 0;  // the arena's clear() count when the run was taken
  Node* next = nullptr;
  std::size_t left = 0;
};

class NodeArena {
 public:
  static constexpr std::size_t kCursorChunk = 256;

  explicit NodeArena(std::size_t block_nodes = std::size_t{1} << 14);
  NodeArena(const NodeArena&) = delete;
  NodeArena& operator=(const NodeArena&) = delete;

  // `count` consecutive nodes in their reset() state with value_player 0. Thread-safe.
  Node* allocate(std::size_t count);
  // The same from the thread's `cursor`, refilled with kCursorChunk nodes when it runs out
  // (what is left of the old run is wasted) or belongs to another arena or generation. Use
  // it when several threads expand one tree; a thread alternating between many arenas
  // would waste a chunk per switch.
  Node* allocate(std::size_t count, ArenaCursor& cursor);
  // Forgets every node (not thread-safe: no search may be running). Keeps the memory.
  void clear();
  // Nodes handed out since the last clear (an upper bound while threads allocate).
  std::size_t nodes_in_use() const;
  std::size_t bytes_reserved() const;

 private:
  struct Block {
    explicit Block(std::size_t n) : nodes(new Node[n]), capacity(n) {}
    std::unique_ptr<Node[]> nodes;
    std::size_t capacity;
    std::atomic<std::size_t> used{0};
  };
  Block* next_block(Block* full, std::size_t count);
  Node* take(std::size_t count);  // without reset()

  std::size_t block_nodes_;
  mutable std::mutex mutex_;                    // guards blocks_ and current_index_
  std::vector<std::unique_ptr<Block>> blocks_;
  std::size_t current_index_ = 0;
  std::atomic<Block*> current_{nullptr};
  std::uint64_t generation_ = 0;  // clear() count
};

}  // namespace pz::mcts
