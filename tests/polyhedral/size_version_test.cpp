// The code of each region once more at the sizes its arrays are declared with
// (PolycOptions::size_versions): the largest sizes every access allows (in_bounds_sizes.h),
// as constants of the parameters' own types, chosen at run time beside the code for every
// size. Both must compute the source's results, at the declared sizes and at odd, prime
// and smaller ones.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "polyhedral/analysis/in_bounds_sizes.h"
#include "polyhedral/frontend/builder.h"
#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/polyc.h"
#include "tests/polyhedral/compile_run.h"
#include "tests/polyhedral/doitgen_source.h"

namespace pz::poly {
namespace {

using test_support::compile_and_run;
using test_support::Workdir;

PolycOptions options() {
  PolycOptions o;
  o.tile.mode = TileOptions::Mode::kAuto;
  o.parallel = o.vectorize = true;
  o.matmul.enabled = true;  // as the command runs it
  o.reassociate = false;    // the source's sums, bit for bit
  o.data_movement = false;
  return o;
}

// The source and polyc's output, compiled alike, print the same bits.
void expect_same_output(const std::string& name, const std::string& source, const PolycOptions& o,
                        const std::string& defines = "") {
  const PolycResult r = polyc(source, o);
  Workdir dir("size_version_" + name);
  const std::string flags = "-O2 -fopenmp -ffp-contract=off" + defines;
  const auto want = compile_and_run(dir.path(), "source", source, flags);
  ASSERT_TRUE(want.ok) << want.error;
  const auto got = compile_and_run(dir.path(), "polyc", r.output, flags);
  ASSERT_TRUE(got.ok) << got.error << "\n" << r.output;
  EXPECT_EQ(want.output, got.output) << r.output;
}

// PolyBench's doitgen: the sizes are arguments, the extents #defines; `sum` becomes an
// array per q (scalar_expansion.h), whose copy-out runs only where nq >= 1.
const std::string kDoitgen = test_support::doitgen_source(6, 7, 11, R"(static void fill(void) {
  for (int r = 0; r < NR; r++) for (int q = 0; q < NQ; q++) for (int p = 0; p < NP; p++)
    A[r][q][p] = (double)((r * q + p) % 13) / 13;
  for (int s = 0; s < NP; s++) for (int p = 0; p < NP; p++) C4[s][p] = (double)((s * p + 3) % 11) / 11;
}
static void print(void) {
  for (int r = 0; r < NR; r++) for (int q = 0; q < NQ; q++) for (int p = 0; p < NP; p++) printf("%a\n", A[r][q][p]);
  for (int p = 0; p < NP; p++) printf("%a\n", sum[p]);
}
int main(void) {
  fill(); kernel(NR, NQ, NP); print();
  fill(); kernel(5, 3, 7); print();
  fill(); kernel(1, 7, 11); print();
  fill(); kernel(6, 7, 2); print();
  return 0;
}
)");

Scop lower_first_region(IslContext& ctx, const std::string& source) {
  auto regions = parse_c_regions(source);
  return lower(ctx.ctx(), *regions.at(0).tree, regions.at(0).options);
}

TEST(InBoundsSizes, ExtentsThroughDefinesAndAStatementOfSizesUnderOne) {
  IslContext ctx;
  const Scop scop = lower_first_region(ctx, kDoitgen);
  std::vector<std::string> unresolved;
  const auto sizes = in_bounds_sizes(scop, {}, unresolved);
  EXPECT_TRUE(unresolved.empty());
  EXPECT_EQ(sizes, (std::map<std::string, long long>{{"np", 11}, {"nq", 7}, {"nr", 6}}));
}

TEST(SizeVersions, TheDeclaredSizesGetTheirOwnCopy) {
  const PolycResult r = polyc(kDoitgen, options());
  EXPECT_NE(r.output.find("if (np == 11 && nq == 7 && nr == 6) {\n  const int np = 11;\n  (void)np;\n"
                          "  const int nq = 7;\n  (void)nq;\n  const int nr = 6;\n  (void)nr;\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("} else {"), std::string::npos) << r.output;
  const std::string report = format_report_text(r.scops);
  EXPECT_NE(report.find("sizes: the code again for np == 11 && nq == 7 && nr == 6"), std::string::npos) << report;
  expect_same_output("doitgen", kDoitgen, options());
}

// A size spelled through a macro (PolyBench's _PB_N without --cpp) cannot be declared again.
TEST(SizeVersions, AMacroSizeGetsNoCopy) {
  const std::string source = R"(#include <stdio.h>
static double A[40], B[40];
static void kernel(int n) {
  int i;
#pragma scop
  for (i = 1; i < _PB_N - 1; i++)
    B[i] = 0.5 * (A[i - 1] + A[i + 1]);
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 40; i++) A[i] = (double)(i % 7) / 7, B[i] = 0;
  kernel(40);
  kernel(17);
  for (int i = 0; i < 40; i++) printf("%a\n", B[i]);
  return 0;
}
)";
  const PolycResult r = polyc(source, options());
  EXPECT_EQ(r.output.find("_PB_N =="), std::string::npos) << r.output;
  expect_same_output("macro_size", source, options(), " -D_PB_N=n");
}

// A count of repetitions bounds no access: the copy fixes the matrices' sizes only, in the
// parameters' declared types.
TEST(SizeVersions, ASizeNoExtentBoundsStaysSymbolic) {
  const std::string source = R"(#include <stdio.h>
static double A[20][28], B[28][24], C[20][24];
static void kernel(int reps, int ni, int nj, long nk) {
  int r, i, j, k;
#pragma scop
  for (r = 0; r < reps; r++)
    for (i = 0; i < ni; i++)
      for (j = 0; j < nj; j++)
        for (k = 0; k < nk; k++)
          C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 20; i++) for (int k = 0; k < 28; k++) A[i][k] = (double)((i * 7 + k * 3) % 19) / 19;
  for (int k = 0; k < 28; k++) for (int j = 0; j < 24; j++) B[k][j] = (double)((k * 5 + j) % 13) / 13;
  kernel(2, 20, 24, 28);
  kernel(1, 17, 23, 5);
  kernel(3, 1, 24, 28);
  for (int i = 0; i < 20; i++) for (int j = 0; j < 24; j++) printf("%a\n", C[i][j]);
  return 0;
}
)";
  const PolycResult r = polyc(source, options());
  EXPECT_NE(r.output.find("if (ni == 20 && nj == 24 && nk == 28) {\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("const long nk = 28;"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("reps =="), std::string::npos) << r.output;
  expect_same_output("gemm_repeated", source, options());
}

// Where the cost model runs the region as written (a stencil within L2, whose schedule
// gains nothing on long rows), there is no copy: gcc's code for the source with constant
// bounds can be the slower one.
TEST(SizeVersions, ARegionKeptAsWrittenGetsNoCopy) {
  const std::string source = R"(#include <stdio.h>
static double A[40][50], B[40][50];
static void kernel(int tsteps, int m, int n) {
  int t, i, j;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < m - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
    for (i = 1; i < m - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 40; i++) for (int j = 0; j < 50; j++) A[i][j] = (double)((i * 7 + j * 3) % 19) / 19, B[i][j] = 0;
  kernel(3, 40, 50);
  kernel(2, 37, 41);
  for (int i = 0; i < 40; i++) for (int j = 0; j < 50; j++) printf("%a %a\n", A[i][j], B[i][j]);
  return 0;
}
)";
  const PolycResult r = polyc(source, options());
  ASSERT_NE(r.scops.at(0).source_guard, "");
  EXPECT_EQ(r.output.find("m == 40"), std::string::npos) << r.output;
  EXPECT_NE(format_report_text(r.scops).find("sizes: no copy at the declared sizes"), std::string::npos);
  expect_same_output("jacobi", source, options());
}

TEST(SizeVersions, TheOptionTurnsThemOff) {
  PolycOptions o = options();
  o.size_versions = false;
  const PolycResult r = polyc(kDoitgen, o);
  EXPECT_EQ(r.output.find("np == 11"), std::string::npos) << r.output;
  EXPECT_EQ(format_report_text(r.scops).find("sizes: the code again"), std::string::npos);
  expect_same_output("doitgen_generic", kDoitgen, o);
}

}  // namespace
}  // namespace pz::poly
