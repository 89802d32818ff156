#include "mcts/deferred_stats.h"

namespace pz::mcts {

std::size_t DeferredStats::home(const Node* node) {
  constexpr int kBits = 7;
  static_assert(kSlots == std::size_t{1} << kBits);
  // Nodes are 64-byte aligned: the low six bits of the address carry nothing.
  return static_cast<std::size_t>(((reinterpret_cast<std::uintptr_t>(node) >> 6) * 0x9E3779B97F4A7C15ULL) >> (64 - kBits));
}

DeferredStats::Entry& DeferredStats::entry(Node* node) {
  for (std::size_t i = home(node);; i = (i + 1) & (kSlots - 1)) {
    Entry& e = slots_[i];
    if (e.node == node) return e;
    if (e.node == nullptr) {
      if (used_ >= kSlots / 2) {
        flush();
        return entry(node);
      }
      ++used_;
      e.node = node;
      return e;
    }
  }
}

void DeferredStats::flush() {
  for (Entry& e : slots_) {
    if (e.node == nullptr) continue;
    e.node->visits.fetch_add(e.visits, std::memory_order_relaxed);
    if (e.value_sum != 0 || e.value_sq_sum != 0) {
      add_relaxed(e.node->value_sum, e.value_sum);
      add_relaxed(e.node->value_sq_sum, e.value_sq_sum);
    }
    e = Entry{};
  }
  used_ = 0;
}

}  // namespace pz::mcts
