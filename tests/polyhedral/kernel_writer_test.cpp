// poly::KernelWriter (kernel_writer.h): the nests' order before polyc's passes. A nest
// written as one sweep on purpose keeps its statements in one loop with Order::kAsWritten,
// where isl's scheduler distributes them. Views place intermediate arrays in a workspace
// argument (their behaviour is checked by the Winograd kernels, tests/nn/).
#include <gtest/gtest.h>

#include <string>

#include "polyhedral/codegen/kernel_writer.h"
#include "polyhedral/frontend/builder.h"

namespace pz::poly {
namespace {

// A mask and two channel sums over the batch and the board, in one sweep (the ReLU and
// batch-norm backward of nn/poly/layer_kernels.cpp).
KernelWriter one_sweep(KernelWriter::Order order) {
  KernelWriter w("pz_sweep", {{"y", "[9][32]"}, {"dy", "[9][32]"}, {"g", "[9][32]", true}, {"sum", "", true}, {"sq", "", true}});
  w.nest(
      [](ScopBuilder& b) {
        b.for_("c", "0", "32").stmt("sum[c] = 0.0f").stmt("sq[c] = 0.0f").end();
        b.for_("n", "0", "N").for_("s", "0", "9").for_("c", "0", "32");
        b.stmt("g[n][s][c] = y[n][s][c] > 0.0f ? dy[n][s][c] : 0.0f");
        b.stmt("sum[c] += g[n][s][c]").stmt("sq[c] += g[n][s][c] * y[n][s][c]").end().end().end();
      },
      order);
  return w;
}

TEST(KernelWriter, AsWrittenKeepsTheSweepInOneLoop) {
  KernelReport report;
  const std::string code = one_sweep(KernelWriter::Order::kAsWritten).source(report);
  EXPECT_EQ(report.schedule, "source order") << code;
  // The three statements sit in one innermost loop over the channels, vectorised.
  const std::size_t mask = code.find("g[c0][c1][c2] = ");
  ASSERT_NE(mask, std::string::npos) << code;
  const std::size_t sum = code.find("sum[c2] += g[c0][c1][c2]", mask);
  const std::size_t sq = code.find("sq[c2] += g[c0][c1][c2]", mask);
  ASSERT_NE(sum, std::string::npos) << code;
  ASSERT_NE(sq, std::string::npos) << code;
  EXPECT_EQ(code.find("for (", mask), std::string::npos) << "no loop between the statements:\n" << code;
  const std::size_t simd = code.rfind("#pragma omp simd", mask);
  ASSERT_NE(simd, std::string::npos) << code;
  EXPECT_NE(code.find("for (int c2 = 0; c2 <= 31; c2++)", simd), std::string::npos) << code;
}

TEST(KernelWriter, ViewsAreArraysInsideAWorkspaceNotParameters) {
  KernelWriter w("pz_twice", {{"x", "[4]"},
                              {"work", "", true},
                              {"y", "[4]", true},
                              {"t", "[4]", true, "work", "N * 8"}});
  w.nest([](ScopBuilder& b) {
    b.for_("n", "0", "N").for_("i", "0", "4").stmt("t[n][i] = 2.0f * x[n][i]").end().end();
    b.for_("n", "0", "N").for_("i", "0", "4").stmt("y[n][i] = t[n][i] + x[n][i]").end().end();
  });
  KernelReport report;
  const std::string code = w.source(report);
  EXPECT_NE(code.find("void pz_twice(int N, const float* restrict x_, float* restrict work_, float* restrict y_) {"),
            std::string::npos)
      << code;
  EXPECT_NE(code.find("float (*restrict t)[4] = (float (*)[4])(work_ + (N * 8));"), std::string::npos) << code;
  EXPECT_NE(code.find("t[c0][c1] = "), std::string::npos) << code;
}

TEST(KernelWriter, ScheduledNestsGoThroughIsl) {
  KernelReport report;
  const std::string code = one_sweep(KernelWriter::Order::kScheduled).source(report);
  EXPECT_EQ(report.schedule.rfind("isl", 0), 0u) << report.schedule;
}

}  // namespace
}  // namespace pz::poly
