// Array expansion (scalar_expansion.h): an array whose values live within one iteration of
// the innermost loop around all its accesses gets a copy per iteration, and its final values
// are copied back after the region; PolyBench's doitgen then becomes a batched contraction,
// packed under its batch loop (outer_loop.h). Programs compute bit for bit what they did.
#include <gtest/gtest.h>

#include <string>

#include "polyhedral/polyc.h"
#include "tests/polyhedral/doitgen_source.h"
#include "tests/polyhedral/exact_polyc.h"

namespace pz::poly {
namespace {

using test_support::expect_same_output;
using test_support::passes_of;

// doitgen at 3 x 20 x 28 (doitgen_source.h).
const std::string kBatchedProduct = test_support::doitgen_source(3, 20, 28, R"(int main(void) {
  for (int r = 0; r < NR; r++)
    for (int q = 0; q < NQ; q++)
      for (int p = 0; p < NP; p++) A[r][q][p] = (double)((r * q + p) % 13) / 13.0;
  for (int s = 0; s < NP; s++)
    for (int p = 0; p < NP; p++) C4[s][p] = (double)((s * p) % 7) / 7.0 - 0.3;
  for (int p = 0; p < NP; p++) sum[p] = -1.0;
  kernel(NR, 0, NP);  /* nothing runs: sum keeps its values */
  for (int p = 0; p < NP; p++) printf("%.17g\n", sum[p]);
  kernel(NR, NQ, NP);
  kernel(2, NQ - 3, NP - 5);  /* the last iteration writes fewer elements of sum */
  for (int r = 0; r < NR; r++)
    for (int q = 0; q < NQ; q++)
      for (int p = 0; p < NP; p++) printf("%.17g\n", A[r][q][p]);
  for (int p = 0; p < NP; p++) printf("%.17g\n", sum[p]);
  return 0;
}
)");

TEST(ArrayExpansion, ABatchedProductGetsARowPerIterationAndIsPacked) {
  PolycOptions o = test_support::exact_polyc();
  o.matmul.enabled = true;
  o.matmul.min_multiply_adds = 0;  // packed at these test sizes too
  const PolycResult r = polyc(kBatchedProduct, o);
  const std::string log = passes_of(r);
  EXPECT_NE(log.find("scalar expansion: sum along q into pz_sum[20][28] (when (nq - 1) < 20); q is parallel; final values "
                     "copied out"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("batched over r: matmul packing:"), std::string::npos) << log;
  EXPECT_NE(r.output.find("batched contractions packed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("for (int r = (0); r <= (nr - 1); r++)"), std::string::npos) << r.output;
  expect_same_output("array_expansion_batched", kBatchedProduct, r);
}

// Symbolic sizes: batches of 20 x 28 x 28 multiply-adds are packed, of 17 x 23 x 23 (and
// of none) the whole scop takes the plain pipeline, decided once for the batch loop.
TEST(ArrayExpansion, UnderThePackingThresholdTheWholeScopTakesThePlainPipeline) {
  PolycOptions o = test_support::exact_polyc();
  o.matmul.enabled = true;
  o.matmul.min_multiply_adds = 10000;
  const PolycResult r = polyc(kBatchedProduct, o);
  EXPECT_NE(passes_of(r).find("batched contractions under the packing threshold take the plain pipeline of the whole scop"),
            std::string::npos)
      << passes_of(r);
  EXPECT_NE(r.output.find(" >= 10000LL)) {\n"), std::string::npos) << r.output;
  expect_same_output("array_expansion_batched_threshold", kBatchedProduct, r);
}

TEST(ArrayExpansion, WithoutPackingTheExpandedProgramStillComputesTheSame) {
  PolycOptions o = test_support::exact_polyc();
  const PolycResult r = polyc(kBatchedProduct, o);
  EXPECT_NE(passes_of(r).find("final values copied out"), std::string::npos) << passes_of(r);
  expect_same_output("array_expansion_plain", kBatchedProduct, r);
}

// Element j of t is last written in iteration i = j: the copy-out takes each element from
// the iteration that wrote it last, not from the last iteration.
TEST(ArrayExpansion, EachElementIsCopiedOutFromItsLastWrite) {
  const std::string source = R"(#include <stdio.h>
#define N 36
static float a[N][N], out[N][N], t[N];
static void kernel(int n) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = i; j < n; j++)
      t[j] = a[i][j] * 2.0f;
    for (j = i; j < n; j++)
      out[i][j] = t[j] + a[j][i];
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) a[i][j] = (float)((i * 5 + j * 3) % 17) / 17.0f;
  kernel(N);
  kernel(N - 4);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) printf("%.9g\n", out[i][j]);
  for (int j = 0; j < N; j++) printf("%.9g\n", t[j]);
  return 0;
}
)";
  const PolycResult r = polyc(source, test_support::exact_polyc());
  EXPECT_NE(passes_of(r).find("scalar expansion: t along i into pz_t[36][36]"), std::string::npos) << passes_of(r);
  expect_same_output("array_expansion_last_write", source, r);
}

TEST(ArrayExpansion, KeepsArraysWhoseValuesCrossIterations) {
  // t accumulates over i: each iteration reads the previous one's values.
  const std::string source = R"(#include <stdio.h>
#define N 30
static float a[N][N], t[N];
static void kernel(int n) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      t[j] = t[j] * 0.5f + a[i][j];
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) a[i][j] = (float)((i + 2 * j) % 9);
  kernel(N);
  for (int j = 0; j < N; j++) printf("%.9g\n", t[j]);
  return 0;
}
)";
  const PolycResult r = polyc(source, test_support::exact_polyc());
  EXPECT_EQ(passes_of(r).find("scalar expansion"), std::string::npos) << passes_of(r);
  expect_same_output("array_expansion_carried", source, r);
}

}  // namespace
}  // namespace pz::poly
