// Scalar expansion (scalar_expansion.h): dead scalars whose values live within one
// iteration of a loop get an element per iteration when that makes the loop parallel; the
// program computes bit for bit what it did, also where the run-time guard sends it to the
// region as written; scalars live after the region, carried across iterations, or whose
// loop stays sequential are kept.
#include <gtest/gtest.h>

#include <string>

#include "polyhedral/polyc.h"
#include "tests/polyhedral/exact_polyc.h"

namespace pz::poly {
namespace {

using test_support::expect_same_output;
using test_support::passes_of;

// `kernel` (a function `void kernel(int w, int h)` over the globals below) in a program that
// fills the image, calls the kernel as `calls` says and prints the result.
std::string program(const std::string& kernel, const std::string& calls = "  kernel(W, H);\n") {
  return "#include <stdio.h>\n#define W 48\n#define H 40\nstatic float img[W][H], out[W][H], col[H];\n" + kernel +
         "int main(void) {\n"
         "  for (int i = 0; i < W; i++)\n"
         "    for (int j = 0; j < H; j++) img[i][j] = (float)((i * 7 + j * 3) % 11) / 11.0f;\n" +
         calls +
         "  for (int i = 0; i < W; i++)\n"
         "    for (int j = 0; j < H; j++) printf(\"%.9g\\n\", out[i][j]);\n"
         "  for (int j = 0; j < H; j++) printf(\"%.9g\\n\", col[j]);\n"
         "  return 0;\n"
         "}\n";
}

// A recurrence down each column (PolyBench's deriche has four such passes): t1, t2 and y1
// carry values down column j only, and are reset for each column.
const char* kColumnRecurrence = R"(static void kernel(int w, int h) {
  int i, j;
  float t1, t2, y1;
#pragma scop
  for (j = 0; j < h; j++) {
    t1 = 0.0f;
    t2 = 0.0f;
    y1 = 0.0f;
    for (i = 0; i < w; i++) {
      out[i][j] = 0.3f * img[i][j] + 0.6f * t1 - 0.2f * t2 + 0.5f * y1;
      t2 = t1;
      t1 = img[i][j];
      y1 = out[i][j];
    }
  }
#pragma endscop
}
)";

TEST(ScalarExpansion, AColumnRecurrenceGetsAnElementPerColumn) {
  const std::string source = program(kColumnRecurrence);
  const PolycResult r = polyc(source, test_support::exact_polyc());
  const std::string log = passes_of(r);
  EXPECT_NE(log.find("scalar expansion: t1, t2, y1 along j into pz_t1[40], pz_t2[40], pz_y1[40]"), std::string::npos) << log;
  EXPECT_NE(log.find("j is parallel"), std::string::npos) << log;
  // h is symbolic: out's declared extent bounds j, under a run-time guard.
  EXPECT_NE(r.output.find("float pz_t1[40];"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(h - 1) < 40"), std::string::npos) << r.output;
  // The expanded program walks rows: j, the parallel loop, runs innermost in vectors.
  EXPECT_NE(r.output.find("pz_t1[c1]"), std::string::npos) << r.output;
  expect_same_output("expansion_column", source, r);
}

TEST(ScalarExpansion, WhereTheGuardFailsTheRegionRunsAsWritten) {
  // w = 0: no element of `out` is touched, and j runs past out's extent: (h - 1) < 40 fails.
  const std::string source = program(kColumnRecurrence, "  kernel(W, H);\n  kernel(0, H + 100);\n");
  const PolycResult r = polyc(source, test_support::exact_polyc());
  ASSERT_NE(r.output.find("} else {"), std::string::npos) << r.output;
  expect_same_output("expansion_guard", source, r);
}

TEST(ScalarExpansion, ConcreteSizesNeedNoGuard) {
  const std::string kernel = R"(static void kernel(int w, int h) {
  int i, j;
  float t;
  (void)w;
  (void)h;
#pragma scop
  for (j = 0; j < H; j++) {
    t = 0.0f;
    for (i = 0; i < W; i++) {
      t = 0.5f * t + img[i][j];
      out[i][j] = t;
    }
  }
#pragma endscop
}
)";
  const std::string source = program(kernel);
  const PolycResult r = polyc(source, test_support::exact_polyc());
  EXPECT_NE(passes_of(r).find("scalar expansion: t along j into pz_t[40]; j is parallel"), std::string::npos) << passes_of(r);
  EXPECT_EQ(r.output.find("} else {"), std::string::npos) << r.output;
  expect_same_output("expansion_concrete", source, r);
}

TEST(ScalarExpansion, KeepsScalarsItCannotOrNeedNotExpand) {
  auto log_of = [](const std::string& kernel) { return passes_of(polyc(program(kernel), test_support::exact_polyc())); };
  // t is read after the region: it is not dead.
  const std::string live = log_of(R"(static void kernel(int w, int h) {
  int i, j;
  float t = 0.0f;
#pragma scop
  for (j = 0; j < h; j++) {
    t = 0.0f;
    for (i = 0; i < w; i++) {
      t = t + img[i][j];
      out[i][j] = t;
    }
  }
#pragma endscop
  col[0] = t;
}
)");
  EXPECT_EQ(live.find("scalar expansion"), std::string::npos) << live;
  // t is never reset: its value flows from one column into the next.
  const std::string carried = log_of(R"(static void kernel(int w, int h) {
  int i, j;
  float t;
#pragma scop
  t = 0.0f;
  for (j = 0; j < h; j++)
    for (i = 0; i < w; i++) {
      t = 0.5f * t + img[i][j];
      out[i][j] = t;
    }
#pragma endscop
}
)");
  EXPECT_EQ(carried.find("scalar expansion: t along j into"), std::string::npos) << carried;
  // A recurrence along each row: expanded along i, the rows would run in parallel, but i
  // subscripts no array's rows, so no vector loop would come of it.
  const std::string rows = log_of(R"(static void kernel(int w, int h) {
  int i, j;
  float t;
#pragma scop
  for (i = 0; i < w; i++) {
    t = 0.0f;
    for (j = 0; j < h; j++) {
      t = 0.5f * t + img[i][j];
      out[i][j] = t;
    }
  }
#pragma endscop
}
)");
  EXPECT_NE(rows.find("scalar expansion: t along i not expanded (no array's last subscript is i)"), std::string::npos)
      << rows;
  // Each column's sum feeds the next column's: j stays sequential, so t keeps its cell.
  const std::string sequential = log_of(R"(static void kernel(int w, int h) {
  int i, j;
  float t;
#pragma scop
  for (j = 1; j < h; j++) {
    t = 0.0f;
    for (i = 0; i < w; i++)
      t = t + img[i][j];
    col[j] = col[j - 1] + t;
  }
#pragma endscop
}
)");
  EXPECT_NE(sequential.find("scalar expansion: t along j not expanded (j would still carry other dependences)"),
            std::string::npos)
      << sequential;
}

}  // namespace
}  // namespace pz::poly
