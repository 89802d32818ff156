// Reductions (polyhedral/transform/reductions.h): which statements are reductions, which loops they
// make parallel, and that the generated OpenMP reduction runs right with 2 threads; innermost
// sums kept in a vectorised scalar (accumulating_statements).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/polyc.h"
#include "polyhedral/transform/reductions.h"
#include "tests/polyhedral/compile_run.h"
#include "tests/polyhedral/scop_of.h"

namespace pz::poly {
namespace {

using test_support::scop_of;

std::optional<Reduction> first_statement(const std::string& body) {
  IslContext ctx;
  Scop s = scop_of(ctx, body);
  return statement_reduction(s.statements.at(0));
}

// `I[i] += F[i][k]` over k, I an int and F a float of `declarations`, with F's values of
// both signs: polyc --parallel --vectorize (no cost model) adds no reduction clause, and the
// program prints what the source computes.
void expect_sum_kept_in_order(const std::string& declarations, const std::string& name) {
  const std::string program =
      "#include <stdio.h>\n" + declarations + "int main(void) {\n  int i, k;\n"
      "  for (i = 0; i < 64; i++) for (k = 0; k < 300; k++) F[i][k] = (float)((i * 7 + k * 3) % 13 - 6) * 0.375f;\n"
      "#pragma scop\n  for (i = 0; i < 64; i++)\n    for (k = 0; k < 300; k++)\n      I[i] += F[i][k];\n#pragma endscop\n"
      "  for (i = 0; i < 64; i++) printf(\"%d\\n\", I[i]);\n  return 0;\n}\n";
  PolycOptions o;
  o.parallel = o.vectorize = true;
  o.min_parallel_work = 0;
  o.cost_model = false;
  const std::string out = polyc(program, o).output;
  EXPECT_EQ(out.find("reduction("), std::string::npos) << out;
  test_support::Workdir dir(name);
  const auto want = test_support::compile_and_run(dir.path(), "want", program, "-O1");
  const auto got = test_support::compile_and_run(dir.path(), "got", out, "-O3 -march=native -fopenmp");
  ASSERT_TRUE(want.ok) << want.error;
  ASSERT_TRUE(got.ok) << got.error << "\n" << out;
  EXPECT_EQ(want.output, got.output);
}

// An integer element updated by a float truncates at every step: `I[0] += F[i]` with F of
// -0.375 and 0.375 stays 0 in order, and summed in another order it need not. Such updates
// are never reordered (no reduction clause, no vector accumulator); integer sums and floating
// ones are, as are elements of unknown type updated by values of unknown type.
TEST(Reductions, IntegerElementsUpdatedByFloatsAreNotReordered) {
  auto reorderable = [](const std::string& body, const std::string& declarations) {
    IslContext ctx;
    Scop s = scop_of(ctx, body, declarations);
    return update_may_be_reordered(s.statements.at(0), s);
  };
  const std::string decl = "int I[9], J[9][9]; float F[9], G[9][9]; double D[9]; real_t R[9], T[9][9];\n";
  EXPECT_FALSE(reorderable("for (i = 0; i < 9; i++) I[0] += F[i];", decl));
  EXPECT_FALSE(reorderable("for (i = 0; i < 9; i++) I[0] += J[i][0] * 0.5;", decl));
  EXPECT_FALSE(reorderable("for (i = 0; i < 9; i++) I[0] += (double)J[i][0];", decl));
  EXPECT_FALSE(reorderable("for (i = 0; i < 9; i++) I[0] += R[i];", decl));  // R may be a float
  EXPECT_FALSE(reorderable("for (i = 0; i < 9; i++) R[0] += F[i];", decl));  // R may be an int
  EXPECT_TRUE(reorderable("for (i = 0; i < 9; i++) I[0] += J[i][0] * i;", decl));
  EXPECT_TRUE(reorderable("for (i = 0; i < 9; i++) F[0] += D[i] * I[i];", decl));
  EXPECT_TRUE(reorderable("for (i = 0; i < 9; i++) R[0] += T[i][0] * R[i];", decl));
  // Unknown types by name: one name is one type; two names, a call or a constant may not be.
  const std::string named = decl + "acc_t A[9]; DATA_TYPE POLYBENCH_1D(P, 9, n), Q[9];\n";
  EXPECT_FALSE(reorderable("for (i = 0; i < 9; i++) A[0] += R[i];", named));
  EXPECT_FALSE(reorderable("for (i = 0; i < 9; i++) R[0] += (acc_t)J[i][0];", named));
  EXPECT_FALSE(reorderable("for (i = 0; i < 9; i++) R[0] += f(T[i][0]);", named));
  EXPECT_FALSE(reorderable("for (i = 0; i < 9; i++) R[0] += T[i][0] * 2.0;", named));
  EXPECT_TRUE(reorderable("for (i = 0; i < 9; i++) R[0] += (real_t)J[i][0] * T[i][0];", named));
  EXPECT_TRUE(reorderable("for (i = 0; i < 9; i++) A[0] += A[i] * J[i][0];", named));
  EXPECT_TRUE(reorderable("for (i = 0; i < 9; i++) P[0] += Q[i] * P[i];", named));
  EXPECT_FALSE(reorderable("for (i = 0; i < 9; i++) P[0] += R[i];", named));
  // And the program: printed as the source computes it, on two threads.
  expect_sum_kept_in_order("static int I[64];\nstatic float F[64][300];\n", "int_float_sums");
}

// The same sum with both types behind names polyc cannot resolve: `acc_t` and `val_t` are
// two names, so possibly an int and a float (they are), and the sum keeps its order.
TEST(Reductions, ElementsOfOneUnknownTypeUpdatedByAnotherAreNotReordered) {
  expect_sum_kept_in_order("typedef int acc_t;\ntypedef float val_t;\nstatic acc_t I[64];\nstatic val_t F[64][300];\n",
                           "typedef_int_float_sums");
}

TEST(Reductions, RecognisesAssociativeUpdatesOfOneElement) {
  auto a = first_statement("for (i = 0; i < 9; i++) for (j = 0; j < 9; j++) s[j] = s[j] + r[i] * A[i][j];");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->array, "s");
  EXPECT_EQ(a->op, '+');
  auto b = first_statement("for (i = 0; i < 9; i++) q[0] += A[i][0];");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->op, '+');
  auto c = first_statement("for (i = 0; i < 9; i++) x = 2.0 * x;");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->array, "x");
  EXPECT_EQ(c->op, '*');
  auto d = first_statement("for (i = 0; i < 9; i++) s[0] = s[0] - A[i][0];");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->op, '+');  // a sum of negated terms

  // Not reductions: the order of the operands matters, or the update reads other elements.
  EXPECT_FALSE(first_statement("for (i = 0; i < 9; i++) s[0] = A[i][0] - s[0];"));
  EXPECT_FALSE(first_statement("for (i = 1; i < 9; i++) s[i] = s[i] + s[i - 1];"));
  EXPECT_FALSE(first_statement("for (i = 0; i < 9; i++) s[0] = s[0] / A[i][0];"));
  EXPECT_FALSE(first_statement("for (i = 0; i < 9; i++) s[0] = A[i][0];"));
}

// bicg in source order: the i loop carries s[j]'s sums, and nothing else.
const char* kBicg =
    "#include <stdio.h>\n#define N 70\n#define M 60\nstatic double A[N][M], r[N], p[M], s[M], q[N];\n"
    "int main(void) {\n  int i, j;\n"
    "  for (i = 0; i < N; i++) { r[i] = (i % 7) / 7.0; for (j = 0; j < M; j++) A[i][j] = ((i * (j + 1)) % N) / (double)N; }\n"
    "  for (j = 0; j < M; j++) p[j] = (j % 5) / 5.0;\n"
    "#pragma scop\n"
    "  for (i = 0; i < M; i++) s[i] = 0;\n"
    "  for (i = 0; i < N; i++) {\n    q[i] = 0.0;\n    for (j = 0; j < M; j++) {\n"
    "      s[j] = s[j] + r[i] * A[i][j];\n      q[i] = q[i] + A[i][j] * p[j];\n    }\n  }\n"
    "#pragma endscop\n"
    "  for (j = 0; j < M; j++) printf(\"%.12f\\n\", s[j]);\n  for (i = 0; i < N; i++) printf(\"%.12f\\n\", q[i]);\n"
    "  return 0;\n}\n";

// Compiles and runs both programs (warnings are errors; the original's scop pragmas aside).
void expect_same_output(const std::string& original_source, const std::string& transformed_source, const std::string& flags) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("pz_poly_reductions_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto original = test_support::compile_and_run(dir, "original", original_source, flags + " -Wall -Wextra -Wno-unknown-pragmas -Werror");
  auto transformed = test_support::compile_and_run(dir, "transformed", transformed_source, flags + " -Wall -Wextra -Werror");
  fs::remove_all(dir);
  ASSERT_TRUE(original.ok) << original.error;
  ASSERT_TRUE(transformed.ok) << transformed.error << transformed_source;
  EXPECT_EQ(original.output, transformed.output);
}

PolycOptions source_order_parallel() {
  PolycOptions o;
  o.schedule.use_isl = false;  // keep the fused i-j nest: only a reduction makes i parallel
  o.tile.mode = TileOptions::Mode::kOff;
  o.parallel = true;
  o.min_parallel_work = 0;
  o.adaptive_team = false;  // the pragmas as the tests spell them
  return o;
}

TEST(Reductions, MarkTheLoopTheyMakeParallelAndRunRightOnTwoThreads) {
  PolycResult r = polyc(kBicg, source_order_parallel());
  EXPECT_NE(r.output.find("#pragma omp parallel for reduction(+:s[0:60])\n  for (int c0 = 0; c0 <= 69; c0++)"),
            std::string::npos)
      << r.output;
  // Sums of 70 terms in another order: the printed 12 decimals agree.
  expect_same_output(kBicg, r.output, "-O1 -fopenmp");
}

TEST(Reductions, AnArrayReadOutsideItsUpdatesKeepsTheLoopSequential) {
  // t[j] is also read by the second statement: a private partial sum would be wrong there.
  const std::string src =
      "#pragma scop\nfor (i = 0; i < 50; i++) for (j = 0; j < 40; j++) {\n"
      "  t[j] = t[j] + A[i][j];\n  B[i][j] = t[j];\n}\n#pragma endscop\n";
  PolycResult r = polyc(src, source_order_parallel());
  EXPECT_EQ(r.output.find("reduction"), std::string::npos) << r.output;
  // A 2-D accumulator is not handled (no sections of rank 2).
  const std::string gemm_k_outer =
      "#pragma scop\nfor (k = 0; k < 30; k++) for (i = 0; i < 20; i++) for (j = 0; j < 20; j++)\n"
      "  C[i][j] += A[i][k] * B[k][j];\n#pragma endscop\n";
  PolycResult g = polyc(gemm_k_outer, source_order_parallel());
  EXPECT_EQ(g.output.find("reduction"), std::string::npos) << g.output;
  EXPECT_NE(g.output.find("omp parallel for"), std::string::npos) << g.output;  // i, plainly parallel
  // A section too large for a thread's stack (8 MB of doubles) stays shared and sequential.
  const std::string big =
      "#pragma scop\nfor (i = 0; i < 4; i++) for (j = 0; j < 1000000; j++) s[j] = s[j] + A[i][j];\n#pragma endscop\n";
  EXPECT_EQ(polyc(big, source_order_parallel()).output.find("reduction"), std::string::npos);
}

// Dot products along an innermost k: exact in any order (small integers in doubles), so the
// scalar sums must print exactly what the source prints.
const char* kDotProducts =
    "#include <stdio.h>\n#define N 37\nstatic double A[N][N], B[N][N], C[N][N];\n"
    "int main(void) {\n  int i, j, k;\n"
    "  for (i = 0; i < N; i++) for (j = 0; j < N; j++) { A[i][j] = (i * 3 + j) % 7; B[i][j] = (i + 2 * j) % 5; }\n"
    "#pragma scop\n"
    "  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++) {\n      C[i][j] = 0.0;\n"
    "      for (k = 0; k < N; k++) C[i][j] += A[i][k] * B[j][k];\n"
    "      for (k = 0; k < j; k++) C[i][j] = C[i][j] - A[j][k];\n    }\n"
    "#pragma endscop\n"
    "  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf(\"%.1f\\n\", C[i][j]);\n  return 0;\n}\n";

PolycOptions source_order_vectorized() {
  PolycOptions o;
  o.schedule.use_isl = false;
  o.tile.mode = TileOptions::Mode::kOff;
  o.vectorize = true;
  return o;
}

TEST(Reductions, InnermostSumsIntoOneElementRunInAVectorisedScalar) {
  PolycResult r = polyc(kDotProducts, source_order_vectorized());
  EXPECT_NE(r.output.find("double pz_acc = C[c0][c1];"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#pragma omp simd reduction(+:pz_acc)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pz_acc += A[c0][c2] * B[c1][c2];"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pz_acc = pz_acc - A[c1][c2];"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("C[c0][c1] = pz_acc;"), std::string::npos) << r.output;
  expect_same_output(kDotProducts, r.output, "-O2 -fopenmp-simd");
}

TEST(Reductions, NoScalarSumWhereTheLoopReadsItsElementOrIsNoSum) {
  auto accumulates = [](const std::string& body, PolycOptions o = source_order_vectorized(),
                        const std::string& declarations = "double x[20], y[20], A[20][20], B[20];\n") {
    return polyc(declarations + "#pragma scop\n" + body + "\n#pragma endscop\n", o).output.find("pz_acc") != std::string::npos;
  };
  EXPECT_TRUE(accumulates("for (i = 0; i < 20; i++) for (k = 0; k < i; k++) x[i] += A[i][k] * x[k];"));
  // Arrays of no declaration the file shows: their types may be an int and a float.
  EXPECT_FALSE(accumulates("for (i = 0; i < 20; i++) for (k = 0; k < i; k++) x[i] += A[i][k] * x[k];", source_order_vectorized(), ""));
  // A scalar whose name begins other names: only the scalar itself becomes the accumulator.
  const std::string scalar = polyc("double s, sa[20], s2[20];\n#pragma scop\nfor (i = 0; i < 20; i++) for (k = 0; k < 20; k++) s += sa[k] * s2[i];\n"
                                   "#pragma endscop\n", source_order_vectorized()).output;
  EXPECT_NE(scalar.find("pz_acc += sa[c1] * s2[c0];"), std::string::npos) << scalar;
  EXPECT_NE(scalar.find("s = pz_acc;"), std::string::npos) << scalar;
  // k reaches i: one iteration reads the element the others sum into.
  EXPECT_FALSE(accumulates("for (i = 0; i < 20; i++) for (k = 0; k < 20; k++) x[i] += A[i][k] * x[k];"));
  // Doubling is no sum; a quotient neither.
  EXPECT_FALSE(accumulates("for (i = 0; i < 20; i++) for (k = 0; k < 20; k++) x[i] = x[i] + x[i];"));
  EXPECT_FALSE(accumulates("for (i = 0; i < 20; i++) for (k = 0; k < 20; k++) x[i] /= A[i][k];"));
  // The element moves with the loop: a plain parallel loop, vectorised as it is.
  EXPECT_FALSE(accumulates("for (i = 0; i < 20; i++) for (j = 0; j < 20; j++) y[j] += A[i][j];"));
  // The parallel loop is not the sum's: a loop over k inside one over i, parallel.
  PolycOptions parallel = source_order_vectorized();
  parallel.parallel = true;
  parallel.min_parallel_work = 0;
  EXPECT_TRUE(accumulates("for (i = 0; i < 20; i++) for (k = 0; k < 20; k++) x[i] += A[i][k] * B[k];", parallel));
}

// With symbolic sizes a parallel loop forks only above a run-time work test: the sums
// accumulate in both versions, under the parallel loop and in the serial one.
TEST(Reductions, SumsAccumulateUnderAParallelLoopAndInTheSerialVersion) {
  PolycOptions o = source_order_vectorized();
  o.parallel = true;
  const std::string out =
      polyc("void f(int n, double x[n], double A[n][n], double B[n]) {\n#pragma scop\n"
            "for (i = 0; i < n; i++) for (k = 0; k < n; k++) x[i] += A[i][k] * B[k];\n#pragma endscop\n}\n", o)
          .output;
  const std::size_t fork = out.find("#pragma omp parallel for");
  ASSERT_NE(fork, std::string::npos) << out;
  const std::size_t serial = out.find("} else {", fork);
  ASSERT_NE(serial, std::string::npos) << out;
  const std::size_t in_parallel = out.find("#pragma omp simd reduction(+:pz_acc)", fork);
  EXPECT_LT(in_parallel, serial) << out;
  EXPECT_NE(out.find("#pragma omp simd reduction(+:pz_acc)", serial), std::string::npos) << out;
}

// Accumulated sums under a parallel loop, run on two threads, print what the source prints.
TEST(Reductions, AccumulatedSumsUnderAParallelLoopRunRightOnTwoThreads) {
  PolycOptions o = source_order_parallel();
  o.vectorize = true;
  PolycResult r = polyc(kDotProducts, o);
  const std::size_t fork = r.output.find("#pragma omp parallel for");
  ASSERT_NE(fork, std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#pragma omp simd reduction(+:pz_acc)", fork), std::string::npos) << r.output;
  expect_same_output(kDotProducts, r.output, "-O2 -fopenmp");
}

}  // namespace
}  // namespace pz::poly
