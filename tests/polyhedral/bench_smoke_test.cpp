// `bench polyc` end to end on one kernel at its tiny test sizes: the harness builds, every
// available compiler runs, polyc's output matches gcc -O3's; and the source rewriting the
// harness relies on (sizes, timers) on its own.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "bench/polyc_bench.h"

namespace pz::bench {
namespace {

TEST(PolycBench, ResizesDefinesAndTimesEachScop) {
  const std::string src = "#define N 10\n#define NM 3\nint f(void) {\n  int i;\n  #pragma scop\n  x = 1;\n  #pragma endscop\n}\n";
  std::string sized = resize_kernel(src, {{"N", "2000"}});
  EXPECT_NE(sized.find("#define N 2000\n#define NM 3\n"), std::string::npos) << sized;
  EXPECT_THROW(resize_kernel(src, {{"M", "1"}}), std::invalid_argument);
  std::string timed = add_timers(sized);
  EXPECT_NE(timed.find("  pz_bench_start();\n  #pragma scop\n"), std::string::npos) << timed;
  EXPECT_NE(timed.find("#pragma endscop\n  pz_bench_stop();\n}"), std::string::npos) << timed;
  EXPECT_THROW(polyc_bench_sizes("no-such-kernel", "large"), std::invalid_argument);
  for (const auto& k : default_polyc_kernels()) EXPECT_FALSE(polyc_bench_sizes(k, "large").empty()) << k;
}

TEST(PolycBench, SummariseTimesMedianOrBest) {
  EXPECT_EQ(summarise_times({3, 1, 2}, "median"), 2);
  EXPECT_EQ(summarise_times({3, 1, 2}, "best"), 1);
  EXPECT_EQ(summarise_times({4, 1, 3, 2}, "median"), 2.5);
  EXPECT_EQ(summarise_times({}, "median"), 0);
  EXPECT_THROW(summarise_times({1}, "mean"), std::invalid_argument);
}

TEST(PolycBench, StackShiftsVisitEveryAlignmentOfAPage) {
  EXPECT_EQ(stack_shift_bytes(0), 0);
  std::set<int> shifts;
  for (int round = 0; round < 256; ++round) {
    const int s = stack_shift_bytes(round);
    EXPECT_EQ(s % 16, 0) << round;
    EXPECT_LT(s, 4096) << round;
    shifts.insert(s);
  }
  EXPECT_EQ(shifts.size(), 256u);
  // Consecutive rounds land far apart in the page, so a short run still spans it.
  EXPECT_GE(std::abs(stack_shift_bytes(2) - stack_shift_bytes(1)), 512);
}

TEST(PolycBench, SmokeGemmSmallSizes) {
  PolycBenchOptions o;
  o.kernels = {"gemm"};
  o.size = "small";
  o.repeats = 1;
  o.threads = 2;
  PolycBenchResult r = run_polyc_bench(o);
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelResult& k = r.kernels[0];
  ASSERT_NE(k.run("gcc"), nullptr);
  EXPECT_TRUE(k.run("gcc")->ok) << k.run("gcc")->error;
  ASSERT_NE(k.run("polyc"), nullptr);
  EXPECT_TRUE(k.run("polyc")->ok) << k.run("polyc")->error;
  EXPECT_TRUE(r.polyc_ok);
  EXPECT_GT(k.speedup_over("gcc"), 0);
  EXPECT_EQ(r.geomean_count["gcc"], 1);
  std::string table = format_polyc_table(r);
  EXPECT_NE(table.find("gemm"), std::string::npos);
  EXPECT_NE(table.find("geomean"), std::string::npos);
  EXPECT_NE(format_polyc_json(r).find("\"speedup_over\""), std::string::npos);
}

}  // namespace
}  // namespace pz::bench
