// polyc on large and deep loop nests: point counts at bounded cost (point_count.h), nested
// isl budgets (isl_context.h), and regions kept as written when a stage runs over its budget
// (stage_budget.h), with output that still computes what the input computes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "polyhedral/ir/isl_context.h"
#include "polyhedral/ir/point_count.h"
#include "polyhedral/polyc.h"
#include "tests/polyhedral/compile_run.h"

namespace pz::poly {
namespace {

namespace fs = std::filesystem;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The limits below are for what a budget prevents: enumerating 10^21 points or an
// unbudgeted stage runs for hours. They sit ten times above a quiet run's seconds, so a
// loaded machine (ctest -j2 beside other work) does not trip them.
constexpr double kQuick = 10.0;  // a count or a fallback: well under a second when quiet
constexpr double kBounded = 30.0;  // a whole polyc run under its budgets: a few seconds when quiet

isl::set set_of(IslContext& ctx, const std::string& text) { return isl::set(ctx.ctx(), text); }

// A program around one or more regions: arrays filled, the regions, a checksum printed.
std::string program(const std::string& declarations, const std::string& body, const std::string& checksum) {
  return "#include <stdio.h>\n" + declarations +
         "int main(void) {\n"
         "  double sum = 0;\n" +
         body + "  " + checksum +
         "\n"
         "  printf(\"%.10e\\n\", sum);\n"
         "  return 0;\n"
         "}\n";
}

class BudgetTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fs::temp_directory_path() / ("pz_poly_budget_" + std::to_string(::getpid())); }
  void TearDown() override { fs::remove_all(dir_); }

  // Compiles and runs the input and polyc's output: both must print the same numbers.
  void expect_same_results(const std::string& source, const std::string& output) {
    fs::create_directories(dir_);
    auto original = test_support::compile_and_run(dir_, "original", source, "-O1 -fopenmp");
    auto transformed = test_support::compile_and_run(dir_, "transformed", output, "-O1 -fopenmp");
    ASSERT_TRUE(original.ok) << original.error;
    ASSERT_TRUE(transformed.ok) << transformed.error << "\n" << output;
    EXPECT_EQ(original.output, transformed.output);
  }

  fs::path dir_;
};

TEST(PointCount, BoxesAreCountedFromTheirBounds) {
  IslContext ctx;
  const auto start = std::chrono::steady_clock::now();
  auto n = count_points_bounded(set_of(ctx, "{ S[i, j] : 0 <= i < 2147483648 and 0 <= j < 2147483648 }"));
  ASSERT_TRUE(n);
  EXPECT_TRUE(n->exact);
  EXPECT_EQ(n->points, 1LL << 62);
  auto params = count_points_bounded(set_of(ctx, "[N] -> { S[i, j, k] : N = 10000000 and 0 <= i, j, k < N }"));
  ASSERT_TRUE(params);
  EXPECT_FALSE(params->exact);  // 10^21 does not fit: saturated
  EXPECT_EQ(params->points, LLONG_MAX);
  EXPECT_LT(seconds_since(start), kQuick);
}

TEST(PointCount, LargeNonBoxesGetTheirBoundingBox) {
  IslContext ctx;
  const auto start = std::chrono::steady_clock::now();
  auto n = count_points_bounded(set_of(ctx, "{ S[i, j] : 0 <= i < 10000000 and 0 <= j <= i }"));
  ASSERT_TRUE(n);
  EXPECT_FALSE(n->exact);
  EXPECT_EQ(n->points, 100000000000000LL);
  EXPECT_LT(seconds_since(start), kQuick);
}

TEST(PointCount, SmallNonBoxesAreExact) {
  IslContext ctx;
  auto triangle = count_points_bounded(set_of(ctx, "{ S[i, j, k] : 0 <= i < 100 and 0 <= j <= i and j <= k <= i }"));
  ASSERT_TRUE(triangle);
  EXPECT_TRUE(triangle->exact);
  EXPECT_EQ(triangle->points, 171700);
  auto strided = count_points_bounded(set_of(ctx, "{ S[i] : exists e : i = 2e and 0 <= i < 2000000000 }"));
  ASSERT_TRUE(strided);
  EXPECT_TRUE(strided->exact);
  EXPECT_EQ(strided->points, 1000000000);
  EXPECT_FALSE(count_points_bounded(set_of(ctx, "[N] -> { S[i] : 0 <= i < N }")));
  auto empty = count_points_bounded(set_of(ctx, "{ S[i] : 0 <= i < 0 }"));
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->points, 0);
}

TEST(IslBudgetScope, AnInnerBudgetIsCappedByTheEnclosingOne) {
  IslContext ctx;
  const isl::set triangle = set_of(ctx, "{ S[i, j, k] : 0 <= i < 400 and 0 <= j <= i and j <= k <= i }");
  {
    IslBudgetScope outer(ctx, 1000);
    // The count's own budget is larger, but the enclosing one binds: the count is not
    // exact, and the enclosing scope sees that its budget ran out.
    auto n = count_points_bounded(triangle);
    ASSERT_TRUE(n);
    EXPECT_FALSE(n->exact);
    EXPECT_TRUE(outer.exceeded());
  }
  EXPECT_EQ(isl_ctx_get_max_operations(ctx.raw()), 0u);
  EXPECT_EQ(isl_ctx_last_error(ctx.raw()), isl_error_none);
  {
    IslBudgetScope outer(ctx, 1'000'000'000);
    {
      IslBudgetScope inner(ctx, 1000);
      const isl::set large = set_of(ctx, "{ S[i, j] : 0 <= i < 1000000 and 0 <= j <= i }");
      isl_val_free(isl_set_count_val(large.get()));  // interrupted: a partial count
      EXPECT_TRUE(inner.exceeded());
    }
    // The inner budget alone ran out: the enclosing scope goes on.
    EXPECT_FALSE(outer.exceeded());
    auto n = count_points_bounded(triangle);
    ASSERT_TRUE(n);
    EXPECT_TRUE(n->exact);
  }
}

TEST_F(BudgetTest, HugeBoundsAreOptimisedWithoutEnumerating) {
  const std::string huge =
      "double a[10], b[10];\n"
      "void f(void) {\n"
      "  long i, j;\n"
      "#pragma scop\n"
      "for (i = 0; i < 2147483648; i++)\n"
      "  for (j = 0; j < 2147483648; j++)\n"
      "    a[1] = a[1] + b[2];\n"
      "#pragma endscop\n"
      "}\n";
  const std::string triangle =
      "#define N 10000000\n"
      "double A[N][N], B[N][N], C[N][N];\n"
      "void f(void) {\n"
      "  int i, j, k;\n"
      "#pragma scop\n"
      "for (i = 0; i < N; i++)\n"
      "  for (j = 0; j <= i; j++)\n"
      "    for (k = 0; k < N; k++)\n"
      "      C[i][j] += A[i][k] * B[k][j];\n"
      "#pragma endscop\n"
      "}\n";
  PolycOptions o;
  o.parallel = o.vectorize = true;
  o.data_movement = true;  // the report's counts too
  for (const std::string& src : {huge, triangle}) {
    const auto start = std::chrono::steady_clock::now();
    PolycResult r = polyc(src, o);
    EXPECT_LT(seconds_since(start), kBounded);
    EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
    EXPECT_NE(r.output.find("isl (fusion=min"), std::string::npos) << r.output;
  }
}

// Trip counts at the long long limit: the cache rules compare lines against bytes without
// multiplying the count (an overflow UBSan reports, found by the CLI fuzz under
// scripts/fuzz-sanitized.sh).
TEST_F(BudgetTest, TripCountsAtTheLongLongLimitOverflowNothing) {
  const std::string limit =
      "static double A[4][4][4];\n"
      "void kernel(void) {\n"
      "  long i0, i1, i2;\n"
      "#pragma scop\n"
      "for (i0 = 0; i0 < 9223372036854775807; i0++)\n"
      "  for (i1 = 0; i1 < 9223372036854775807; i1++)\n"
      "    for (i2 = 0; i2 < 9223372036854775807; i2++)\n"
      "      A[i0][i1][i2] = A[i0][i1][i2] + 1.0;\n"
      "#pragma endscop\n"
      "}\n";
  PolycOptions o;
  o.vectorize = true;
  const auto start = std::chrono::steady_clock::now();
  PolycResult r = polyc(limit, o);
  EXPECT_LT(seconds_since(start), kBounded);
  EXPECT_NE(r.output.find("A[c0][c1][c2] = A[c0][c1][c2] + 1.0;"), std::string::npos) << r.output;
}

TEST_F(BudgetTest, TwentyNestedLoopsAreKeptAsWritten) {
  std::string loops, declared, subscript;
  for (int d = 0; d < 20; ++d) {
    const std::string it = "i" + std::to_string(d);
    loops += "for (" + it + " = 0; " + it + " < 2; " + it + "++)\n";
    declared += (d ? ", " : "  int ") + it;
    subscript += (d ? " + " : "") + it;
  }
  const std::string region = "#pragma scop\n" + loops + "  a[" + subscript + "] = a[" + subscript + "] * 0.5 + 1.0;\n#pragma endscop\n";
  const std::string src = program("double a[21];\n", declared + ";\n  for (int x = 0; x < 21; x++) a[x] = x;\n" + region,
                                  "for (int x = 0; x < 21; x++) sum += a[x] * (x + 1);");
  const auto start = std::chrono::steady_clock::now();
  PolycResult r = polyc(src, {});
  EXPECT_LT(seconds_since(start), kQuick);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("region 1 (line 7): its 20 nested loops exceed"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("kept the source order"), std::string::npos);
  EXPECT_NE(r.scops.at(0).fallback.find("20 nested loops"), std::string::npos);
  EXPECT_NE(r.output.find("kept as written"), std::string::npos);
  EXPECT_EQ(r.output.find("#pragma scop"), std::string::npos);
  expect_same_results(src, r.output);
}

TEST_F(BudgetTest, FiftyStatementsFinishAndComputeTheSame) {
  std::string body = "#pragma scop\nfor (i = 0; i < N; i++) {\n";
  for (int s = 0; s < 50; ++s)
    body += "  x" + std::to_string(s % 5) + "[i] = x" + std::to_string((s + 1) % 5) + "[i] * 0.5 + x" +
            std::to_string((s + 2) % 5) + "[N - 1 - i] + " + std::to_string(s) + ".0;\n";
  body += "}\n#pragma endscop\n";
  const std::string src =
      program("#define N 16\ndouble x0[N], x1[N], x2[N], x3[N], x4[N];\n",
              "  int i;\n  for (int k = 0; k < N; k++) x0[k] = x1[k] = x2[k] = x3[k] = x4[k] = k;\n" + body,
              "for (int k = 0; k < N; k++) sum += x0[k] + 2 * x1[k] + 3 * x2[k] + 4 * x3[k] + 5 * x4[k];");
  const auto start = std::chrono::steady_clock::now();
  PolycOptions o;
  o.budget.operations = 2'000'000;
  PolycResult r = polyc(src, o);
  EXPECT_LT(seconds_since(start), kBounded);
  expect_same_results(src, r.output);
}

TEST_F(BudgetTest, AHundredRegionsAreEachOptimised) {
  std::string body = "  int i;\n  for (i = 0; i < N; i++) a[i] = i;\n";
  for (int r = 0; r < 100; ++r)
    body += "#pragma scop\nfor (i = 1; i < N; i++)\n  a[i] = a[i - 1] * 0.5 + " + std::to_string(r) + ".0;\n#pragma endscop\n";
  const std::string src = program("#define N 64\ndouble a[N];\n", body, "for (int k = 0; k < N; k++) sum += a[k];");
  const auto start = std::chrono::steady_clock::now();
  PolycResult r = polyc(src, {});
  EXPECT_LT(seconds_since(start), kBounded);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.scops.size(), 100u);
  expect_same_results(src, r.output);
}

TEST_F(BudgetTest, AStageOverATinyBudgetKeepsItsRegionAsWritten) {
  const std::string gemm =
      "#pragma scop\n"
      "for (i = 0; i < N; i++)\n"
      "  for (j = 0; j < N; j++)\n"
      "    for (k = 0; k < N; k++)\n"
      "      C[i][j] += A[i][k] * B[k][j];\n"
      "#pragma endscop\n";
  const std::string copy = "#pragma scop\nfor (i = 0; i < N; i++)\n  D[i] = C[i][i];\n#pragma endscop\n";
  const std::string src = program(
      "#define N 24\ndouble A[N][N], B[N][N], C[N][N], D[N];\n",
      "  int i, j, k;\n  for (i = 0; i < N; i++) for (j = 0; j < N; j++) { A[i][j] = i - j; B[i][j] = i + 2 * j; C[i][j] = 1; }\n" +
          gemm + copy,
      "for (i = 0; i < N; i++) { sum += D[i]; for (j = 0; j < N; j++) sum += C[i][j] * (i + j); }");
  PolycOptions o;
  o.parallel = o.vectorize = true;
  EXPECT_TRUE(polyc(src, o).warnings.empty());  // the default budget optimises both

  o.budget.operations = 2000;
  PolycResult r = polyc(src, o);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("polyc: region 1 (line 8): "), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("exceeded its budget (2000 isl operations); kept the source order"), std::string::npos)
      << r.warnings[0];
  EXPECT_NE(r.output.find("kept as written"), std::string::npos);
  EXPECT_NE(r.output.find("      C[i][j] += A[i][k] * B[k][j];\n"), std::string::npos);
  EXPECT_FALSE(r.scops.at(0).fallback.empty());
  expect_same_results(src, r.output);
}

TEST_F(BudgetTest, TheRegionsTimeBudgetKeepsItAsWritten) {
  const std::string src = program("#define N 8\ndouble a[N];\n",
                                  "  int i;\n#pragma scop\nfor (i = 1; i < N; i++)\n  a[i] = a[i - 1] + 1.0;\n#pragma endscop\n",
                                  "for (int k = 0; k < N; k++) sum += a[k];");
  PolycOptions o;
  o.budget.seconds = 1e-9;  // spent before the first stage
  PolycResult r = polyc(src, o);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("exceeded the region's time budget"), std::string::npos) << r.warnings[0];
  expect_same_results(src, r.output);
}

}  // namespace
}  // namespace pz::poly
