// The cost model's version guard (PolycOptions::keep_source_without_gain, inner_loops.h):
// where a scop's arrays fit in L2/2 and the schedule gives its deepest statements no better
// innermost loop than the source's, the region runs as written. With symbolic sizes a test
// on the bytes touched chooses at run time; both versions must compute the source's results
// on both sides of the threshold, at odd, prime and non-square extents. With concrete sizes
// the output is the region itself.
#include <gtest/gtest.h>

#include <string>

#include "polyhedral/analysis/inner_loops.h"
#include "polyhedral/polyc.h"
#include "tests/polyhedral/compile_run.h"

namespace pz::poly {
namespace {

using test_support::compile_and_run;
using test_support::Workdir;

PolycOptions options(long l2) {
  PolycOptions o;
  o.tile.mode = TileOptions::Mode::kAuto;
  o.tile.cache.l1 = 32 * 1024;
  o.tile.cache.l2 = l2;
  o.parallel = o.vectorize = true;
  o.matmul.enabled = true;  // as the command runs it
  o.data_movement = false;
  return o;
}

// The source and polyc's output, compiled alike, print the same bits.
void expect_same_output(const std::string& name, const std::string& source, const PolycOptions& o) {
  const PolycResult r = polyc(source, o);
  Workdir dir("source_version_" + name);
  const std::string flags = "-O2 -fopenmp -ffp-contract=off";
  const auto want = compile_and_run(dir.path(), "source", source, flags);
  ASSERT_TRUE(want.ok) << want.error;
  const auto got = compile_and_run(dir.path(), "polyc", r.output, flags);
  ASSERT_TRUE(got.ok) << got.error << "\n" << r.output;
  EXPECT_EQ(want.output, got.output) << r.output;
}

// Gauss-Seidel sweeps over an m x n grid (PolyBench's seidel-2d, not square): every
// iteration of every loop reads the value the previous one wrote, so no schedule gets a
// better innermost loop; its large version is time-tiled.
std::string seidel(const std::string& sizes, const std::string& calls) {
  return "#include <stdio.h>\n" + sizes + R"(static double A[64][80];
static void kernel(int tsteps, int m, int n) {
  int t, i, j;
#pragma scop
  for (t = 0; t < tsteps; t++)
    for (i = 1; i < m - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] + A[i][j - 1] + A[i][j] + A[i][j + 1] +
                   A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 64; i++) for (int j = 0; j < 80; j++) A[i][j] = (double)((i * 7 + j * 3) % 19) / 19;
)" + calls + R"(
  for (int i = 0; i < 64; i++) for (int j = 0; j < 80; j++) printf("%a\n", A[i][j]);
  return 0;
}
)";
}

constexpr const char* kSeidelLoops =
    "  for (t = 0; t < tsteps; t++)\n    for (i = 1; i < m - 1; i++)\n      for (j = 1; j < n - 1; j++)\n";

// Symbolic sizes: a run-time guard, the region as written under it, the transformed code
// beside it, and the guard in the report. L2 of 8 KiB puts the threshold (L2 for a
// time-tiled stencil) between 13 x 17 and 37 x 41 doubles.
TEST(PolycSourceVersion, SymbolicSizesGetAGuardAndBothVersionsAgreeWithTheSource) {
  const std::string source =
      seidel("", "  kernel(3, 13, 17);\n  kernel(2, 7, 5);\n  kernel(1, 3, 3);\n  kernel(2, 2, 9);\n  kernel(0, 61, 79);\n"
                 "  kernel(2, 37, 41);\n  kernel(3, 61, 79);\n  kernel(2, 13, 17);\n  kernel(1, 64, 80);");
  const PolycOptions o = options(8 * 1024);
  const PolycResult r = polyc(source, o);
  const ScopReport& report = r.scops.at(0);
  EXPECT_NE(report.source_guard, "");
  EXPECT_NE(report.source_guard, "1");
  EXPECT_NE(report.source_guard.find("<= 8192LL"), std::string::npos) << report.source_guard;
  EXPECT_NE(r.output.find("if (" + report.source_guard + ") {\n" + kSeidelLoops), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("for (int c0"), std::string::npos) << r.output;  // the transformed version
  EXPECT_NE(format_report_text(r.scops).find("take the region as written"), std::string::npos) << format_report_text(r.scops);
  EXPECT_NE(format_report_text(r.scops).find("version guard: as written where "), std::string::npos);
  EXPECT_NE(format_report_json(r.scops).find("\"version_guard\""), std::string::npos);
  expect_same_output("seidel", source, o);
}

// Concrete sizes within the threshold: the output is the region as written.
TEST(PolycSourceVersion, SmallConstantSizesPrintTheRegionAsWritten) {
  const std::string source = R"(#include <stdio.h>
#define TS 3
#define M 13
#define N 17
static double A[M][N];
static void kernel(void) {
  int t, i, j;
#pragma scop
  for (t = 0; t < TS; t++)
    for (i = 1; i < M - 1; i++)
      for (j = 1; j < N - 1; j++)
        A[i][j] = (A[i - 1][j] + A[i][j - 1] + A[i][j] + A[i][j + 1] + A[i + 1][j]) / 5.0;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < M; i++) for (int j = 0; j < N; j++) A[i][j] = (double)((i * 7 + j * 3) % 19) / 19;
  kernel();
  for (int i = 0; i < M; i++) for (int j = 0; j < N; j++) printf("%a\n", A[i][j]);
  return 0;
}
)";
  const PolycOptions o = options(8 * 1024);
  const PolycResult r = polyc(source, o);
  EXPECT_EQ(r.scops.at(0).source_guard, "1");
  EXPECT_NE(r.output.find("kept as written: cost model: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  for (t = 0; t < TS; t++)\n    for (i = 1; i < M - 1; i++)\n      for (j = 1; j < N - 1; j++)\n"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("c0"), std::string::npos) << r.output;
  expect_same_output("seidel_constant", source, o);
  // In a cache of a quarter of these arrays, the same sizes are transformed.
  const PolycResult large = polyc(source, options(1024));
  EXPECT_EQ(large.scops.at(0).source_guard, "");
  EXPECT_NE(large.output.find("c0"), std::string::npos) << large.output;
}

// A schedule that gains an innermost loop keeps its code at every size: gemm's k loop
// carries the sum, the schedule's innermost j walks B and C by unit steps.
TEST(PolycSourceVersion, AnInnermostLoopGainedKeepsTheTransformedCode) {
  const std::string source = R"(static double A[40][50], B[50][60], C[40][60];
void kernel(int ni, int nj, int nk) {
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      for (k = 0; k < nk; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
)";
  PolycOptions o = options(1024 * 1024);
  o.matmul.enabled = false;
  const PolycResult r = polyc(source, o);
  EXPECT_EQ(r.scops.at(0).source_guard, "") << format_report_text(r.scops);
  EXPECT_EQ(r.output.find("as written"), std::string::npos) << r.output;
}

// Row sums (atax's and gesummv's form) over an m x n matrix: the schedule only accumulates
// each sum in a vector. Every row has n elements, so the accumulator pays from runs of
// kAccumulatedMinEqualTrips on: the region runs as written below, the accumulating code from
// there. Integer-valued data make every order of the additions exact, so both versions print
// the source's bits.
TEST(PolycSourceVersion, VectorAccumulatorsOverEqualRunsWaitForShortRows) {
  const std::string source = R"(#include <stdio.h>
static double A[100][128], x[128], y[100];
static void kernel(int m, int n) {
  int i, j;
#pragma scop
  for (i = 0; i < m; i++) {
    y[i] = 0.0;
    for (j = 0; j < n; j++)
      y[i] += A[i][j] * x[j];
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 100; i++) for (int j = 0; j < 128; j++) A[i][j] = (double)((i * 5 + j * 11) % 23 - 11);
  for (int j = 0; j < 128; j++) x[j] = (double)(j % 7 - 3);
  kernel(7, 13); for (int i = 0; i < 100; i++) printf("%a\n", y[i]);
  kernel(97, 7); for (int i = 0; i < 100; i++) printf("%a\n", y[i]);
  kernel(11, 8); for (int i = 0; i < 100; i++) printf("%a\n", y[i]);
  kernel(3, 127); for (int i = 0; i < 100; i++) printf("%a\n", y[i]);
  kernel(0, 5); kernel(5, 0); for (int i = 0; i < 100; i++) printf("%a\n", y[i]);
  return 0;
}
)";
  const PolycOptions o = options(1024 * 1024);
  const PolycResult r = polyc(source, o);
  const std::string& guard = r.scops.at(0).source_guard;
  EXPECT_NE(guard.find("<= 524288LL && "), std::string::npos) << guard << "\n" << format_report_text(r.scops);
  EXPECT_NE(guard.find("((n)) < " + std::to_string(kAccumulatedMinEqualTrips)), std::string::npos) << guard;
  EXPECT_NE(r.output.find("pz_acc"), std::string::npos) << r.output;  // the accumulating version
  expect_same_output("row_sums", source, o);
}

// Sums over a triangle (trisolv's and cholesky's form): runs of 0 to n - 1 iterations, most
// of them far shorter than the longest, so the accumulator waits for a longest run of
// kAccumulatedMinTrips.
TEST(PolycSourceVersion, VectorAccumulatorsOverATriangleWaitForLongRuns) {
  const std::string source = R"(#include <stdio.h>
static double L[128][128], x[128], b[128];
static void kernel(int n) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 128; i++) for (int j = 0; j < 128; j++) L[i][j] = (double)((i * 5 + j * 11) % 5 - 2);
  for (int i = 0; i < 128; i++) b[i] = (double)(i % 7 - 3);
  kernel(9); for (int i = 0; i < 128; i++) printf("%a\n", x[i]);
  kernel(64); for (int i = 0; i < 128; i++) printf("%a\n", x[i]);
  kernel(65); for (int i = 0; i < 128; i++) printf("%a\n", x[i]);
  kernel(100); for (int i = 0; i < 128; i++) printf("%a\n", x[i]);
  return 0;
}
)";
  const PolycOptions o = options(1024 * 1024);
  const PolycResult r = polyc(source, o);
  const std::string& guard = r.scops.at(0).source_guard;
  EXPECT_NE(guard.find(") < " + std::to_string(kAccumulatedMinTrips)), std::string::npos)
      << guard << "\n" << format_report_text(r.scops);
  expect_same_output("triangle_sums", source, o);
}

// The option off (or the cost model off) leaves the transformed code alone.
TEST(PolycSourceVersion, TheOptionTurnsTheGuardOff) {
  const std::string source = seidel("", "  kernel(3, 13, 17);");
  PolycOptions o = options(8 * 1024);
  o.keep_source_without_gain = false;
  EXPECT_EQ(polyc(source, o).scops.at(0).source_guard, "");
  o = options(8 * 1024);
  o.cost_model = false;
  EXPECT_EQ(polyc(source, o).scops.at(0).source_guard, "");
}

}  // namespace
}  // namespace pz::poly
