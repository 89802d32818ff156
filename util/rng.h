// A small, fast, seedable random generator (xoshiro256**, Blackman & Vigna).
//
// std::mt19937 is 5 KB of state: too heavy to keep one per search tree or to copy with
// game states. This one is 32 bytes, satisfies UniformRandomBitGenerator, and gives the
// same sequence on every platform for a given seed (tests depend on that).
#pragma once

#include <cstdint>
#include <limits>

namespace pz::util {

class Rng {
 public:
  using result_type = std::uint64_t;

  explicit Rng(std::uint64_t seed = 0x9E3779B97F4A7C15ULL) { this->seed(seed); }

  void seed(std::uint64_t seed) {
    // SplitMix64 expands one word into a well-mixed full state (never all zero).
    for (auto& word : s_) {
      seed += 0x9E3779B97F4A7C15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      word = z ^ (z >> 31);
    }
  }

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  result_type operator()() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; the bias is below 2^-32
  // for every n this project uses).
  std::uint32_t below(std::uint32_t n) {
    return static_cast<std::uint32_t>(((operator()() >> 32) * static_cast<std::uint64_t>(n)) >> 32);
  }

  // Uniform double in [0, 1).
  double uniform() { return static_cast<double>(operator()() >> 11) * 0x1.0p-53; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace pz::util
