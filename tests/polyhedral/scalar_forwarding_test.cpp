// Scalar forwarding (scalar_forwarding.h): a dead local scalar that carries one element's
// value is replaced by the element, the program computes bit for bit what it did, and a
// scalar that is live after the region, used outside such a group, or whose updates read the
// element it ends in, is kept.
#include <gtest/gtest.h>

#include <string>

#include "polyhedral/polyc.h"
#include "tests/polyhedral/exact_polyc.h"

namespace pz::poly {
namespace {

using test_support::expect_same_output;
using test_support::passes_of;

// `kernel` (a function `void kernel(void)` over the globals below) in a program that fills
// the arrays, calls it and prints them.
std::string program(const std::string& kernel) {
  return "#include <stdio.h>\n#define N 37\ndouble A[N][N], b[N], x[N], y[N];\n" + kernel +
         "int main(void) {\n"
         "  for (int i = 0; i < N; i++) {\n"
         "    b[i] = 1.0 + i % 5;\n"
         "    for (int j = 0; j < N; j++) A[i][j] = (i == j ? N : 0) + 1.0 / (1 + (i * 7 + j * 3) % 11);\n"
         "  }\n"
         "  kernel();\n"
         "  for (int i = 0; i < N; i++) {\n"
         "    printf(\"%.17g %.17g\\n\", x[i], y[i]);\n"
         "    for (int j = 0; j < N; j++) printf(\"%.17g \", A[i][j]);\n"
         "  }\n"
         "  return 0;\n"
         "}\n";
}

// PolyBench's ludcmp: LU factorisation and two triangular solves through one scalar w.
const char* kLudcmp = R"(void kernel(void) {
  int i, j, k;
  double w;
#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < N; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
  for (i = 0; i < N; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  for (i = N - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < N; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}
)";

TEST(ScalarForwarding, LudcmpScalarBecomesItsElements) {
  const std::string source = program(kLudcmp);
  const PolycResult r = polyc(source, test_support::exact_polyc());
  const std::string log = passes_of(r);
  EXPECT_NE(log.find("scalar forwarding: w forwarded into A[i][j] and 3 other element(s)"), std::string::npos) << log;
  // No statement writes w any more, and the copies `A[i][j] = A[i][j]` are gone.
  EXPECT_EQ(r.output.find("w = "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("w -= "), std::string::npos) << r.output;
  // The factorisation is lu's: one 3-deep band, tiled.
  EXPECT_NE(r.scops.at(0).schedule_origin.find("outer band deepened"), std::string::npos) << r.scops.at(0).schedule_origin;
  expect_same_output("forwarding_ludcmp", source, r);
}

// polyc leaves every scalar of `source` as it is (the log says why when `reason` is given),
// and the output computes what the source does.
void expect_kept(const std::string& name, const std::string& source, const std::string& reason = "") {
  const PolycResult r = polyc(source, test_support::exact_polyc());
  EXPECT_EQ(passes_of(r).find("forwarded"), std::string::npos) << passes_of(r);
  if (!reason.empty()) EXPECT_NE(passes_of(r).find("scalar forwarding: s kept (" + reason + ")"), std::string::npos) << passes_of(r);
  expect_same_output(name, source, r);
}

// Row sums through a scalar s of `type`: s = init; s += update over j; x[i] = s; then `more`.
std::string row_sums(const std::string& type, const std::string& init, const std::string& update, const std::string& more) {
  return program("void kernel(void) {\n  int i, j;\n  " + type + " s;\n#pragma scop\n  for (i = 0; i < N; i++) {\n    s = " +
                 init + ";\n    for (j = 0; j < N; j++)\n      s += " + update + ";\n    x[i] = s;\n" + more +
                 "  }\n#pragma endscop\n}\n");
}

// w is a global: another function may read it after the kernel.
TEST(ScalarForwarding, GlobalScalarIsKept) {
  std::string kernel = kLudcmp;
  kernel.replace(kernel.find("  double w;\n"), 12, "");
  expect_kept("global", program("double w;\n" + kernel));
}

// The function reads w after the region: its last value is live.
TEST(ScalarForwarding, ScalarReadAfterTheRegionIsKept) {
  std::string kernel = kLudcmp;
  kernel.replace(kernel.rfind("}"), 1, "  y[0] += w;\n}");
  expect_kept("live_after", program(kernel));
}

// The kernel runs in a loop whose body reads w before the region: the value the last run
// left in w is read.
TEST(ScalarForwarding, ScalarReadBeforeTheRegionIsKept) {
  std::string kernel = kLudcmp;
  kernel.replace(kernel.find("#pragma scop\n"), 13, "for (int t = 0; t < 2; t++) {\n  y[1] += w;\n#pragma scop\n");
  kernel.replace(kernel.find("#pragma endscop\n"), 16, "#pragma endscop\n}\n");
  kernel.replace(kernel.find("  double w;\n"), 12, "  double w = 0.0;\n");
  expect_kept("live_before", program(kernel));
}

// An int scalar truncates what the double element would keep.
TEST(ScalarForwarding, ScalarOfAnotherTypeIsKept) {
  expect_kept("int_scalar", row_sums("int", "b[i]", "A[i][j] * b[j]", ""), "its type is not its elements'");
}

// The update reads the element the value ends in (x[i] inside the sum): forwarding would
// read the partial sum instead of x[i]'s old value.
TEST(ScalarForwarding, UpdateReadingTheHomeElementIsKept) {
  expect_kept("reads_home", row_sums("double", "b[i]", "A[i][j] * x[i]", ""), "its updates read the element it ends in");
}

// s also feeds another statement after its element: its value is used outside the group.
TEST(ScalarForwarding, ScalarUsedOutsideItsGroupIsKept) {
  expect_kept("used_outside", row_sums("double", "0.0", "A[i][j] * b[j]", "    y[i] = 2.0 * s;\n"),
              "used outside a value carried into one element");
}

}  // namespace
}  // namespace pz::poly
