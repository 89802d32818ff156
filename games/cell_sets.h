// Small pieces shared by the connection games (Hex, Havannah, Gomoku): enumerating a cell
// bitset and a union-find over cells. Inline: both sit on the move-generation hot path.
#pragma once

#include <bit>
#include <cstdint>
#include <utility>

namespace pz::games {

// Writes the indices of the set bits of words[0..] below `limit`, ascending, to `out`;
// returns how many. Walking set bits visits only the empty cells, not every cell.
inline int write_set_bits(const std::uint64_t* words, int limit, std::int32_t* out) {
  int k = 0;
  for (int w = 0; w * 64 < limit; ++w) {
    for (std::uint64_t bits = words[w]; bits != 0; bits &= bits - 1) out[k++] = w * 64 + std::countr_zero(bits);
  }
  return k;
}

// Union-find over cells: parent[c] is c's parent, or minus the size of c's set when c is a
// root (union by size keeps the trees shallow; int16 keeps a state small to copy).
inline int union_root(const std::int16_t* parent, int c) {
  while (parent[c] >= 0) c = parent[c];
  return c;
}

// The root, halving the path on the way (mutates, unlike union_root).
inline int union_find(std::int16_t* parent, int c) {
  while (parent[c] >= 0) {
    const int p = parent[c];
    const int g = parent[p];
    if (g < 0) return p;
    parent[c] = static_cast<std::int16_t>(g);
    c = g;
  }
  return c;
}

// Merges the sets of a and b; returns {kept root, absorbed root}, equal when they were one set.
inline std::pair<int, int> union_unite(std::int16_t* parent, int a, int b) {
  int ra = union_find(parent, a), rb = union_find(parent, b);
  if (ra == rb) return {ra, rb};
  if (parent[ra] > parent[rb]) std::swap(ra, rb);  // ra is the larger tree (more negative)
  parent[ra] = static_cast<std::int16_t>(parent[ra] + parent[rb]);
  parent[rb] = static_cast<std::int16_t>(ra);
  return {ra, rb};
}

}  // namespace pz::games
