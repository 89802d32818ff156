// A search thread's unpublished statistics for the busiest nodes of a shared tree.
//
// Threads that search one tree walk the same top of it: every simulation passes the root
// and, mostly, the same few children below it. Updating those nodes' shared counters on
// every simulation moves their cache lines from core to core twice per simulation (once for
// the virtual loss on the way down, once for the backup), and with cheap evaluations that
// transfer cost as much as the rest of the simulation. At a node with many visits a few
// simulations more or less change no selection, so Search::run's threads add their backups
// of such nodes (their burst's path, and the root's visits) here and publish them when the
// burst ends (SearchConfig::burst_simulations).
//
// The buffer is the thread's own (it lives in the thread's LeafBatch); flush() is the only
// part that touches shared nodes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "mcts/node.h"

namespace pz::mcts {

class DeferredStats {
 public:
  // Counts one visit of `node` with backed-up value `value` (for the node's value_player).
  void add(Node* node, double value) {
    Entry& e = entry(node);
    ++e.visits;
    e.value_sum += value;
    e.value_sq_sum += value * value;
  }
  // Counts one visit without a value (the root: its value is never read, see Search).
  void add_visit(Node* node) { ++entry(node).visits; }

  // Adds everything to the shared nodes and empties the buffer.
  void flush();

 private:
  struct Entry {
    Node* node = nullptr;
    std::int32_t visits = 0;
    double value_sum = 0, value_sq_sum = 0;
  };
  // Open addressing over a power-of-two table; flushed early when it gets half full, so a
  // probe always ends at an empty slot.
  static constexpr std::size_t kSlots = 128;

  static std::size_t home(const Node* node);
  Entry& entry(Node* node);

  std::array<Entry, kSlots> slots_{};
  std::size_t used_ = 0;
};

}  // namespace pz::mcts
