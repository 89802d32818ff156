// Zobrist keys: one random 64-bit word per (feature, value), XORed into a position hash.
// Keys come from a fixed seed so hashes are identical across runs and machines (records,
// caches and tests may store them).
#pragma once

#include <cstdint>
#include <vector>

#include "util/rng.h"

namespace pz::games {

class ZobristTable {
 public:
  ZobristTable() = default;
  ZobristTable(int num_keys, std::uint64_t seed) : keys_(static_cast<size_t>(num_keys)) {
    util::Rng rng(seed);
    for (auto& k : keys_) k = rng();
  }
  std::uint64_t operator[](int i) const { return keys_[static_cast<size_t>(i)]; }
  int size() const { return static_cast<int>(keys_.size()); }

 private:
  std::vector<std::uint64_t> keys_;
};

}  // namespace pz::games
