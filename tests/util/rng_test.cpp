#include "util/rng.h"

#include <gtest/gtest.h>

#include <array>

namespace pz::util {
namespace {

TEST(Rng, SameSeedSameSequence) {
  Rng a(17), b(17), c(18);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    auto x = a();
    EXPECT_EQ(x, b());
    differs |= x != c();
  }
  EXPECT_TRUE(differs);
}

TEST(Rng, BelowIsRoughlyUniform) {
  Rng rng(1);
  std::array<int, 6> counts{};
  const int n = 60000;
  for (int i = 0; i < n; ++i) {
    auto v = rng.below(6);
    ASSERT_LT(v, 6u);
    counts[v]++;
  }
  // Each bucket expects 10000 with sd ~91: 6 sd is far beyond chance.
  for (int c : counts) EXPECT_NEAR(c, 10000, 550);
}

TEST(Rng, UniformInUnitInterval) {
  Rng rng(2);
  double sum = 0;
  for (int i = 0; i < 10000; ++i) {
    double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);
}

}  // namespace
}  // namespace pz::util
