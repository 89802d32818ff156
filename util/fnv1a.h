// FNV-1a, 64 bits (Fowler, Noll, Vo): a hash that is the same in every build and on every
// machine, for seeds that must survive a restart, cache keys and file checksums. Not
// cryptographic: it detects damage (a truncated file, flipped bits), not tampering.
//
//   std::uint64_t h = util::fnv1a(text);                  // one piece
//   h = util::fnv1a(more, h);                             // continued over the next piece
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace pz::util {

inline constexpr std::uint64_t kFnv1aOffsetBasis = 0xCBF29CE484222325ULL;
inline constexpr std::uint64_t kFnv1aPrime = 0x100000001B3ULL;

inline std::uint64_t fnv1a(const void* data, std::size_t size, std::uint64_t hash = kFnv1aOffsetBasis) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= kFnv1aPrime;
  }
  return hash;
}

inline std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = kFnv1aOffsetBasis) {
  return fnv1a(text.data(), text.size(), hash);
}

// A hash as the 16 lowercase hex digits files and cache keys store.
inline std::string hex64(std::uint64_t hash) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

}  // namespace pz::util
