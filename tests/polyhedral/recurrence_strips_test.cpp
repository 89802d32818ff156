// Vector strips across independent recurrences (recurrence_strips.h): which nests the
// model strips and which it leaves alone. That the stripped programs compute what the
// originals do is checked in differential_test.cpp (kernels/tridiagonal.c).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "polyhedral/polyc.h"

namespace pz::poly {
namespace {

std::vector<std::string> passes_of(const std::string& body) {
  PolycOptions o;
  o.vectorize = true;
  o.parallel = true;
  o.min_parallel_work = 0;
  PolycResult r = polyc("#pragma scop\n" + body + "\n#pragma endscop\n", o);
  EXPECT_EQ(r.scops.size(), 1u);
  return r.scops.empty() ? std::vector<std::string>{} : r.scops[0].passes;
}

std::string strip_lines(const std::vector<std::string>& log) {
  std::string out;
  for (const auto& l : log)
    if (l.find("recurrence strips: band") != std::string::npos) out += l + "\n";
  return out;
}

TEST(RecurrenceStrips, ColumnSweepIsStrippedAcrossItsIndependentChains) {
  const auto log = passes_of(
      "for (i = 0; i < 200; i++)\n"
      "  for (j = 1; j < 300; j++)\n"
      "    X[i][j] = 0.25 / (2.0 - 0.5 * X[i][j - 1]) + Y[j][i];");
  const std::string lines = strip_lines(log);
  EXPECT_NE(lines.find("member 0 strip-mined by 64 and moved innermost"), std::string::npos) << lines;
  for (const auto& l : log) EXPECT_EQ(l.find("UNDONE"), std::string::npos) << l;
  bool simd = false;
  for (const auto& l : log) simd = simd || l.find("innermost loop marked 'omp simd'") != std::string::npos;
  EXPECT_TRUE(simd) << "the strip's loop of independent chains is vectorised";
}

TEST(RecurrenceStrips, FloatChainsGetWiderStrips) {
  PolycOptions o;
  o.vectorize = true;
  PolycResult r = polyc(
      "float X[200][300];\n#pragma scop\nfor (i = 0; i < 200; i++)\n  for (j = 1; j < 300; j++)\n"
      "    X[i][j] = X[i][j - 1] * 0.5f + 1.0f;\n#pragma endscop\n",
      o);
  ASSERT_EQ(r.scops.size(), 1u);
  EXPECT_NE(strip_lines(r.scops[0].passes).find("strip-mined by 128"), std::string::npos) << strip_lines(r.scops[0].passes);
}

TEST(RecurrenceStrips, InnermostLoopAlreadyParallelIsLeftAlone) {
  // The recurrence is along the outer loop; the inner one vectorises as it stands.
  EXPECT_EQ(strip_lines(passes_of("for (i = 1; i < 200; i++)\n  for (j = 0; j < 300; j++)\n"
                                  "    X[i][j] = 0.5 * X[i - 1][j] + 1.0;")),
            "");
}

TEST(RecurrenceStrips, ReductionsAreLeftToTheirAccumulators) {
  EXPECT_EQ(strip_lines(passes_of("for (i = 0; i < 200; i++)\n  for (j = 0; j < 300; j++)\n"
                                  "    s[i] += A[i][j] * x[j];")),
            "");
}

TEST(RecurrenceStrips, DependencesBetweenStatementsAreNotChains) {
  // lu: the innermost loop carries dependences only from the division to the updates.
  EXPECT_EQ(strip_lines(passes_of("for (k = 0; k < 60; k++) {\n"
                                  "  for (i = k + 1; i < 60; i++) {\n"
                                  "    A[i][k] = A[i][k] / A[k][k];\n"
                                  "    for (j = k + 1; j < 60; j++) A[i][j] -= A[i][k] * A[k][j];\n"
                                  "  }\n"
                                  "}")),
            "");
}

TEST(RecurrenceStrips, FewerChainsThanAVectorAreLeftAlone) {
  const std::string lines = strip_lines(passes_of("for (i = 0; i < 4; i++)\n  for (j = 1; j < 300; j++)\n"
                                                  "    X[i][j] = 0.25 / (2.0 - 0.5 * X[i][j - 1]);"));
  EXPECT_NE(lines.find("left alone (4 independent chains: less than a vector)"), std::string::npos) << lines;
}

}  // namespace
}  // namespace pz::poly
