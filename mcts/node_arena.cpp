#include "mcts/node_arena.h"

#include <algorithm>

namespace pz::mcts {

NodeArena::NodeArena(std::size_t block_nodes) : block_nodes_(std::max<std::size_t>(block_nodes, 64)) {
  blocks_.push_back(std::make_unique<Block>(block_nodes_));
  current_.store(blocks_[0].get(), std::memory_order_release);
}

Node* NodeArena::take(std::size_t count) {
  for (;;) {
    Block* block = current_.load(std::memory_order_acquire);
    const std::size_t offset = block->used.fetch_add(count, std::memory_order_relaxed);
    if (offset + count <= block->capacity) return block->nodes.get() + offset;
    next_block(block, count);
  }
}

Node* NodeArena::allocate(std::size_t count) {
  Node* nodes = take(count);
  for (std::size_t i = 0; i < count; ++i) nodes[i].reset(games::kInvalidAction, 0.0f, 0);
  return nodes;
}

Node* NodeArena::allocate(std::size_t count, ArenaCursor& cursor) {
  if (count > kCursorChunk / 4) return allocate(count);  // a wide node: not worth a chunk
  if (cursor.arena != this || cursor.generation != generation_ || cursor.left < count) {
    cursor.arena = this;
    cursor.generation = generation_;
    cursor.next = take(kCursorChunk);
    cursor.left = kCursorChunk;
  }
  Node* nodes = cursor.next;
  cursor.next += count;
  cursor.left -= count;
  for (std::size_t i = 0; i < count; ++i) nodes[i].reset(games::kInvalidAction, 0.0f, 0);
  return nodes;
}

NodeArena::Block* NodeArena::next_block(Block* full, std::size_t count) {
  std::lock_guard lock(mutex_);
  // Another thread may already have moved on while this one waited for the lock.
  if (current_.load(std::memory_order_relaxed) != full) return current_.load(std::memory_order_relaxed);
  ++current_index_;
  if (current_index_ < blocks_.size() && blocks_[current_index_]->capacity >= count) {
    blocks_[current_index_]->used.store(0, std::memory_order_relaxed);
  } else {
    blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(current_index_),
                   std::make_unique<Block>(std::max(block_nodes_, count)));
  }
  Block* next = blocks_[current_index_].get();
  current_.store(next, std::memory_order_release);
  return next;
}

void NodeArena::clear() {
  std::lock_guard lock(mutex_);
  ++generation_;
  for (auto& block : blocks_) block->used.store(0, std::memory_order_relaxed);
  current_index_ = 0;
  current_.store(blocks_[0].get(), std::memory_order_release);
}

std::size_t NodeArena::nodes_in_use() const {
  std::lock_guard lock(mutex_);
  std::size_t total = 0;
  for (std::size_t i = 0; i <= current_index_ && i < blocks_.size(); ++i) {
    total += std::min(blocks_[i]->used.load(std::memory_order_relaxed), blocks_[i]->capacity);
  }
  return total;
}

std::size_t NodeArena::bytes_reserved() const {
  std::lock_guard lock(mutex_);
  std::size_t total = 0;
  for (const auto& block : blocks_) total += block->capacity * sizeof(Node);
  return total;
}

}  // namespace pz::mcts
