#include "nn/poly/buffer_pool.h"

#include <gtest/gtest.h>

namespace pz::nn {
namespace {

TEST(BufferPool, GivesBackTheBufferOfTheSizeAskedFor) {
  BufferPool pool;
  pool.start_step();
  std::vector<float> a = pool.take(100);
  ASSERT_EQ(a.size(), 100u);
  EXPECT_EQ(a[99], 0.0f) << "a new buffer is zeros";
  a[0] = 7.0f;
  const float* storage = a.data();
  pool.give(a);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(pool.kept_floats(), 100u);
  std::vector<float> other = pool.take(50);
  EXPECT_NE(other.data(), storage) << "a buffer of another size is new";
  std::vector<float> again = pool.take(100);
  EXPECT_EQ(again.data(), storage) << "the kept buffer is reused as it was left";
  EXPECT_EQ(again[0], 7.0f);
  EXPECT_EQ(pool.kept_floats(), 0u);
}

TEST(BufferPool, HoldsNoMoreThanTheLastStepUsed) {
  BufferPool pool;
  pool.start_step();
  std::vector<float> big = pool.take(1000), small = pool.take(10);
  pool.give(big);
  pool.give(small);
  pool.start_step();  // the next step takes only the small one
  std::vector<float> s = pool.take(10);
  pool.give(s);
  EXPECT_EQ(pool.kept_floats(), 1010u) << "kept until a whole step went by without it";
  pool.start_step();
  EXPECT_EQ(pool.kept_floats(), 10u) << "the big buffer was not taken in the last step: freed";
}

TEST(BufferPool, AnEmptyBufferIsNotKept) {
  BufferPool pool;
  std::vector<float> none;
  pool.give(none);
  EXPECT_EQ(pool.kept_floats(), 0u);
}

}  // namespace
}  // namespace pz::nn
