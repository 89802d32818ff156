// Code generation (codegen.h): sibling loops over adjacent ranges with the same body print
// as one loop that runs the same instances in the same order, whichever part is empty.
#include <gtest/gtest.h>

#include <string>

#include "polyhedral/polyc.h"
#include "tests/polyhedral/exact_polyc.h"

namespace pz::poly {
namespace {

using test_support::expect_same_output;

// Rows of A updated left of column m from the diagonal on, and from column m to the end:
// two statements with one text. Called for split points before, inside and after each row's
// first part, so that either loop may be empty.
const char* kSplitRows = R"(#include <stdio.h>
#define N 19
double A[N][N], c[N];
void kernel(int n, int m) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = i; j < m; j++)
      A[i][j] = A[i][j] * 0.5 + c[j];
    for (j = m; j < n; j++)
      A[i][j] = A[i][j] * 0.5 + c[j];
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++) {
    c[i] = 1.0 + i % 4;
    for (int j = 0; j < N; j++) A[i][j] = (double)((i * 5 + j) % 7);
  }
  for (int m = 0; m <= N; m += 3) kernel(N, m);
  kernel(N, N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) printf("%.17g\n", A[i][j]);
  return 0;
}
)";

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The source's order, untiled and without simd marks (loops under a mark are never
// joined): the two loops stay siblings.
PolycOptions source_order() {
  PolycOptions o = test_support::exact_polyc();
  o.schedule.use_isl = false;
  o.tile.mode = TileOptions::Mode::kOff;
  o.vectorize = false;
  o.size_versions = false;  // one version of the loops
  return o;
}

TEST(Codegen, AdjacentRangesWithOneBodyPrintAsOneLoop) {
  const PolycResult r = polyc(kSplitRows, source_order());
  const std::string kernel = r.output.substr(0, r.output.find("int main"));
  // isl separates the rows below m (both parts) from the rest (the second part only): the
  // two loops of the first rows are one.
  EXPECT_EQ(occurrences(kernel, "* 0.5 + c["), 2) << kernel;
  expect_same_output("split_rows", kSplitRows, r);
}

TEST(Codegen, DifferentBodiesStayTwoLoops) {
  std::string source = kSplitRows;
  source.replace(source.rfind("A[i][j] * 0.5"), 13, "A[i][j] * 0.25");
  const PolycResult r = polyc(source, source_order());
  const std::string kernel = r.output.substr(0, r.output.find("int main"));
  EXPECT_EQ(occurrences(kernel, "* 0.5 + c["), 1) << kernel;
  EXPECT_EQ(occurrences(kernel, "* 0.25 + c["), 2) << kernel;
  expect_same_output("split_rows_two_bodies", source, r);
}

}  // namespace
}  // namespace pz::poly
