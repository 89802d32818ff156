// The C-subset frontend and the builder API: what they accept, the IR they build, and the
// errors (line, column, construct) for what they refuse.
#include <gtest/gtest.h>

#include <string>

#include "polyhedral/frontend/builder.h"
#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/frontend/frontend_error.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/polyc.h"

namespace pz::poly {
namespace {

Scop scop_of(IslContext& ctx, const std::string& source) {
  auto regions = parse_c_regions(source);
  return lower(ctx.ctx(), *regions.at(0).tree, regions.at(0).options);
}

std::string wrap(const std::string& body) { return "void f(void) {\n#pragma scop\n" + body + "\n#pragma endscop\n}\n"; }

TEST(Frontend, GemmStatementsDomainsAccesses) {
  IslContext ctx;
  Scop s = scop_of(ctx, wrap("for (i = 0; i < N; i++)\n"
                             "  for (j = 0; j < M; j++) {\n"
                             "    C[i][j] *= beta;\n"
                             "    for (k = 0; k < K; k++) C[i][j] += alpha * A[i][k] * B[k][j];\n"
                             "  }"));
  ASSERT_EQ(s.statements.size(), 2u);
  EXPECT_EQ(s.params, (std::vector<std::string>{"N", "M", "K"}));
  EXPECT_EQ(s.statements[1].to_c(), "C[i][j] += alpha * A[i][k] * B[k][j]");
  EXPECT_EQ(s.statements[1].loc.line, 6);
  EXPECT_TRUE(s.statements[1].domain.is_equal(
      isl::set(ctx.ctx(), "[N, M, K] -> { S1[i, j, k] : 0 <= i < N and 0 <= j < M and 0 <= k < K }")));
  // write C, read C (compound), alpha, A, B
  ASSERT_EQ(s.statements[1].accesses.size(), 5u);
  EXPECT_TRUE(s.statements[1].accesses[0].write);
  EXPECT_TRUE(s.statements[1].accesses[3].relation.is_equal(
      isl::map(ctx.ctx(), "[N, M, K] -> { S1[i, j, k] -> A[i, k] : 0 <= i < N and 0 <= j < M and 0 <= k < K }")));
  EXPECT_EQ(s.array("alpha")->rank, 0);
}

TEST(Frontend, BoundsWithMinMaxFloordStepsAndConditions) {
  IslContext ctx;
  Scop s = scop_of(ctx, wrap("for (int i = 10; i >= 0; i -= 2)\n"
                             "  for (int j = max(0, i - 3); j < min(10, floord(i + 7, 2)); j++)\n"
                             "    if (i != j && !(j > 5) || i == 4) x[i / 2][j % 3] = x[i][j] + 1;\n"));
  ASSERT_EQ(s.statements.size(), 1u);
  EXPECT_TRUE(s.statements[0].domain.is_equal(isl::set(
      ctx.ctx(), "{ S0[i, j] : 0 <= i <= 10 and i mod 2 = 0 and j >= 0 and j >= i - 3 and j < 10 and "
                 "j < floor((i + 7)/2) and ((i != j and j <= 5) or i = 4) }")));
  EXPECT_TRUE(s.statements[0].accesses[0].relation.is_equal(isl::map(
      ctx.ctx(), "{ S0[i, j] -> x[a, b] : 0 <= i <= 10 and i mod 2 = 0 and j >= 0 and j >= i - 3 and j < 10 and "
                 "j < floor((i + 7)/2) and ((i != j and j <= 5) or i = 4) and a = floor(i/2) and b = j mod 3 }")));
  EXPECT_TRUE(s.outer_iterators.empty());  // both declared in the for headers
}

TEST(Frontend, DefinesGiveConcreteSizesAndDeclarationsTypes) {
  IslContext ctx;
  Scop s = scop_of(ctx, "#define N 16\nfloat a[N]; int b[N];\nvoid f(void) { int i;\n#pragma scop\n"
                        "for (i = 0; i < N; i++) a[i] = b[i];\n#pragma endscop\n}\n");
  EXPECT_EQ(s.param_values.at("N"), 16);
  EXPECT_EQ(s.array("a")->element_type, "float");
  EXPECT_EQ(s.array("b")->element_type, "int");
  EXPECT_EQ(s.outer_iterators, std::vector<std::string>{"i"});
  EXPECT_TRUE(s.statements[0].domain.is_equal(isl::set(ctx.ctx(), "[N] -> { S0[i] : N = 16 and 0 <= i < 16 }")));
}

// `(NAME) name` and `(NAME) 2` are casts to a type the frontend cannot resolve (PolyBench's
// `(DATA_TYPE)_PB_N` as written), printed as written; `(n)(x)` and `(n) - x` are not casts.
TEST(Frontend, CastsToUnresolvedTypeNames) {
  const std::string src = "void f(int n, double a[10]) {\n  int i;\n#pragma scop\n"
                          "  for (i = 0; i < 10; i++)\n    a[i] = 1.0 / (DATA_TYPE)n + (real)2 + (n) - i;\n#pragma endscop\n}\n";
  PolycOptions o;
  o.keep_source_without_gain = false;  // the generated code, not the region as written
  const PolycResult r = polyc(src, o);
  EXPECT_NE(r.output.find("(DATA_TYPE)n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(real)2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("n - c0"), std::string::npos) << r.output;
  // A cast in an affine position is no integer arithmetic the frontend knows.
  EXPECT_THROW(polyc(wrap("for (i = 0; i < (T)N; i++) a[i] = 0;"), {}), FrontendError);
}

TEST(Frontend, RestOfFilePassesThroughUntouched) {
  std::string before = "/* head */\n#include <stdio.h>\nstatic double a[10];\nvoid f(void) {\n  int i;\n";
  std::string after = "  printf(\"%f\\n\", a[0]); /* #pragma scop in a comment */\n}\n";
  std::string src = before + "  #pragma scop\n  for (i = 0; i < 10; i++) a[i] = i;\n  #pragma endscop\n" + after;
  PolycOptions o;
  o.keep_source_without_gain = false;  // the generated code, not the region as written
  PolycResult r = polyc(src, o);
  ASSERT_GE(r.output.size(), before.size() + after.size());
  EXPECT_EQ(r.output.substr(0, before.size()), before);
  EXPECT_EQ(r.output.substr(r.output.size() - after.size()), after);
  EXPECT_NE(r.output.find("a[c0] = c0;"), std::string::npos) << r.output;
}

TEST(Builder, SameIrAsTheCFrontend) {
  IslContext ctx;
  ScopBuilder b(ctx.ctx());
  b.param("N").param("M").param("K");
  b.for_("i", "0", "N").for_("j", "0", "M").stmt("C[i][j] *= beta");
  b.for_("k", "0", "K").stmt("C[i][j] += alpha * A[i][k] * B[k][j]").end().end().end();
  Scop built = b.build();
  Scop parsed = scop_of(ctx, wrap("for (i = 0; i < N; i++) for (j = 0; j < M; j++) { C[i][j] *= beta;\n"
                                  "for (k = 0; k < K; k++) C[i][j] += alpha * A[i][k] * B[k][j]; }"));
  ASSERT_EQ(built.statements.size(), parsed.statements.size());
  for (size_t i = 0; i < built.statements.size(); ++i) {
    EXPECT_TRUE(built.statements[i].domain.is_equal(parsed.statements[i].domain));
    EXPECT_EQ(built.statements[i].to_c(), parsed.statements[i].to_c());
  }
  EXPECT_TRUE(built.reads().is_equal(parsed.reads()));
  EXPECT_TRUE(built.writes().is_equal(parsed.writes()));
  EXPECT_TRUE(built.schedule.get_map().is_equal(parsed.schedule.get_map()));
}

TEST(Builder, ConcreteSizesAndMisuse) {
  IslContext ctx;
  ScopBuilder b(ctx.ctx());
  b.param("N", 8).array("y", "float").for_("i", "0", "N").if_("i % 2 == 0").stmt("y[i] = 0").else_().stmt("y[i] = 1");
  EXPECT_THROW(b.build(), FrontendError);  // loops left open
  b.end().end();
  Scop s = b.build();
  EXPECT_EQ(s.statements.size(), 2u);
  EXPECT_EQ(s.array("y")->element_bytes(), 4);
  EXPECT_TRUE(s.statements[1].domain.is_equal(isl::set(ctx.ctx(), "[N] -> { S1[i] : N = 8 and 0 <= i < 8 and i mod 2 = 1 }")));
  ScopBuilder bad(ctx.ctx());
  EXPECT_THROW(bad.end(), FrontendError);
  EXPECT_THROW(bad.stmt("x[i] = while"), FrontendError);
}

struct ErrorCase {
  std::string body;
  int line, column;
  std::string message;  // a substring of the error
  friend void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.body; }
};

class FrontendErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(FrontendErrors, NameLineColumnAndConstruct) {
  const ErrorCase& c = GetParam();
  IslContext ctx;
  try {
    scop_of(ctx, wrap(c.body));
    FAIL() << "accepted: " << c.body;
  } catch (const FrontendError& e) {
    EXPECT_EQ(e.loc().line, c.line) << e.what();
    EXPECT_EQ(e.loc().column, c.column) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(std::to_string(c.line) + ":" + std::to_string(c.column) + ": ", 0), 0u) << e.what();
  }
}

// Line 3 is the first line of the body (wrap() puts two lines before it).
INSTANTIATE_TEST_SUITE_P(
    Unsupported, FrontendErrors,
    ::testing::Values(
        ErrorCase{"while (i < N) a[i] = 0;", 3, 1, "unsupported construct: 'while' loop"},
        ErrorCase{"for (i = 0; i < N; i++) {\n  do { a[i] = 0; } while (0);\n}", 4, 3, "'do' loop"},
        ErrorCase{"double t = 0;", 3, 1, "declaration inside the scop"},
        ErrorCase{"for (i = 0; i < N; i++)\n  a[i * i] = 0;", 4, 5, "non-affine subscript"},
        ErrorCase{"for (i = 0; i < N; i++) a[b[i]] = 0;", 3, 27, "non-affine subscript"},
        ErrorCase{"for (i = 0; i < N * M; i++) a[i] = 0;", 3, 17, "non-affine loop bound: product of two non-constant"},
        ErrorCase{"for (i = 0; i < N; i++) if (a[i] > 0) a[i] = 0;", 3, 29, "non-affine condition"},
        ErrorCase{"for (i = 0; i < N; i++) *p = 0;", 3, 25, "pointer dereference"},
        ErrorCase{"for (i = 0; i < N; i++) foo(i);", 3, 25, "function call statement 'foo(...)'"},
        ErrorCase{"for (i = 0; i < N; i++) { a[i] = 0; break; }", 3, 37, "'break' statement"},
        ErrorCase{"for (i = 0; i < N; i++) a[i] = s.x;", 3, 33, "member access '.'"},
        ErrorCase{"for (i = 0; i < N; i += k) a[i] = 0;", 3, 20, "loop increment"},
        ErrorCase{"for (i = 0; i < N; i++) i = 2;", 3, 25, "assignment to loop iterator 'i'"},
        ErrorCase{"for (i = 0; i < N; i++) N = 2;", 3, 25, "assignment to 'N'"},
        ErrorCase{"for (i = 0; i < N; i++) a[i] = (b[i] = 0);", 3, 38, "assignment inside an expression"},
        ErrorCase{"for (i = 0; i < N; i++) a[i] = b[i] += 1;", 3, 37, "compound assignment inside a chained assignment"},
        ErrorCase{"for (i = 0; i < N; i++) a[i] = x++;", 3, 33, "'++' inside an expression"},
        ErrorCase{"for (i = 0; i < N; i++) a[i] = a[i][0];", 3, 32, "used with 2 subscript(s)"},
        ErrorCase{"a[0] = \"s\";", 3, 8, "string literal"},
        ErrorCase{"#define X 1\na[0] = 0;", 3, 1, "preprocessor directive"},
        ErrorCase{"for (i = 0; i < N; i++) a[i] = 0", 4, 1, "expected ';'"},
        ErrorCase{"a[0] = 123456789012345678901234567890;", 3, 8, "integer constant 123456789012345678901234… does not fit in 64 bits"},
        ErrorCase{"a[0] = 0x1ffffffffffffffff;", 3, 8, "does not fit in 64 bits"}));

// Nesting is bounded before it can exhaust the stack: the parser and every pass after it
// recurse once per level.
TEST(FrontendErrors, DeepNestingIsALocatedError) {
  IslContext ctx;
  const auto expect_nesting_error = [&](const std::string& body, const std::string& what) {
    try {
      scop_of(ctx, wrap(body));
      FAIL() << "accepted " << what;
    } catch (const FrontendError& e) {
      EXPECT_NE(std::string(e.what()).find(what + " nested more than 256 levels deep"), std::string::npos) << e.what();
    }
  };
  expect_nesting_error("a[0] = " + std::string(20000, '(') + "1" + std::string(20000, ')') + ";", "expression");
  std::string sum = "a[0] = 1";
  for (int k = 0; k < 5000; ++k) sum += " + 1";
  expect_nesting_error(sum + ";", "expression");
  expect_nesting_error(std::string(20000, '{') + "a[0] = 0;" + std::string(20000, '}'), "statements");
  std::string negations = "a[0] = ";
  for (int k = 0; k < 20000; ++k) negations += "- ";
  expect_nesting_error(negations + "1;", "expression");
  // A hundred levels are fine.
  EXPECT_NO_THROW(scop_of(ctx, wrap("a[0] = " + std::string(100, '(') + "1" + std::string(100, ')') + ";")));
}

TEST(FrontendErrors, LoopsThatNeverEndAreRefusedWithTheirLine) {
  IslContext ctx;
  const auto expect_refused = [&](const std::string& loop, const std::string& what) {
    try {
      scop_of(ctx, wrap(loop + "\n    a[i] = 0;"));
      FAIL() << "accepted " << loop;
    } catch (const FrontendError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_refused("for (int i = 0; i < 10; i += 0)", "loop step 0");
  expect_refused("for (int i = 0; i < 10; i = i - 0)", "loop step 0");
  expect_refused("for (int i = 0; i < 10; i--)", "bounds 'i' from above");
  expect_refused("for (int i = 9; i >= 0; i += 2)", "bounds 'i' from below");
  expect_refused("for (int i = 0; 10 > i && i < 20; i -= 1)", "bounds 'i' from above");
  expect_refused("for (int i = 9; 0 <= i; i++)", "bounds 'i' from below");
  EXPECT_NO_THROW(scop_of(ctx, wrap("for (int i = 9; i >= 0; i--)\n    a[i] = 0;")));
  EXPECT_NO_THROW(scop_of(ctx, wrap("for (int i = 0; 10 > i; i += 3)\n    a[i] = 0;")));
}

TEST(FrontendErrors, RegionStructure) {
  EXPECT_THROW(parse_c_regions("int main(void) { return 0; }\n"), FrontendError);
  EXPECT_THROW(parse_c_regions("#pragma scop\na[0] = 0;\n"), FrontendError);
  EXPECT_THROW(parse_c_regions("#pragma endscop\n"), FrontendError);
  try {
    parse_c_regions("\n\n#pragma scop\n  a[0] = 0;\n");
  } catch (const FrontendError& e) {
    EXPECT_NE(std::string(e.what()).find("3:1: '#pragma scop' without a matching '#pragma endscop'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace pz::poly
