#include "mcts/node_arena.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace pz::mcts {
namespace {

TEST(NodeArena, HandsOutResetContiguousArrays) {
  NodeArena arena(128);
  Node* a = arena.allocate(10);
  a[3].visits.store(5);
  Node* b = arena.allocate(10);
  EXPECT_EQ(b, a + 10);  // same block, consecutive
  for (int i = 0; i < 10; ++i) EXPECT_EQ(b[i].visits.load(), 0);
  Node* big = arena.allocate(1000);  // larger than a block: a block of its own
  big[999].prior = 1;
  EXPECT_GE(arena.nodes_in_use(), 1020u);
}

TEST(NodeArena, ClearRecyclesMemory) {
  NodeArena arena(256);
  Node* first = arena.allocate(100);
  for (int i = 0; i < 50; ++i) arena.allocate(100);
  const std::size_t reserved = arena.bytes_reserved();
  arena.clear();
  EXPECT_EQ(arena.nodes_in_use(), 0u);
  Node* again = arena.allocate(100);
  EXPECT_EQ(again, first);
  EXPECT_EQ(again[0].visits.load(), 0);
  for (int i = 0; i < 50; ++i) arena.allocate(100);
  EXPECT_EQ(arena.bytes_reserved(), reserved);  // no new blocks the second time
}

TEST(NodeArena, ThreadsGetDisjointRanges) {
  NodeArena arena(512);
  constexpr int kThreads = 4, kPerThread = 2000;
  std::vector<std::vector<Node*>> got(kThreads);
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        Node* n = arena.allocate(3);
        n[0].action = t;
        got[static_cast<std::size_t>(t)].push_back(n);
      }
    });
  }
  for (auto& th : pool) th.join();
  std::vector<std::uintptr_t> all;
  for (auto& g : got) {
    for (Node* n : g) all.push_back(reinterpret_cast<std::uintptr_t>(n));
  }
  std::sort(all.begin(), all.end());
  for (std::size_t i = 1; i < all.size(); ++i) ASSERT_GE(all[i] - all[i - 1], 3 * sizeof(Node)) << "overlapping ranges";
}

}  // namespace
}  // namespace pz::mcts
