// Packed contractions (matmul_packing.h, matmul_kernel.h): which statements are contractions,
// that the packed loops compute bit for bit what the source does (odd sizes, edges of every
// block, triangles, transposed operands, sums of products, symbolic sizes), which neighbours
// join the packed loops, and the cost model's decisions for a large and a small contraction.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "polyhedral/frontend/builder.h"
#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/polyc.h"
#include "polyhedral/transform/matmul_packing.h"
#include "tests/polyhedral/compile_run.h"
#include "tests/polyhedral/scop_of.h"

namespace pz::poly {
namespace {

using test_support::scop_of;

namespace fs = std::filesystem;

PolycOptions packing() {
  PolycOptions o;
  o.parallel = o.vectorize = true;
  o.matmul.enabled = true;
  o.matmul.min_multiply_adds = 0;  // small sizes: the packed path always taken
  o.matmul.left_in_place = true;   // whole slivers of L read in place where they can be
  o.data_movement = false;
  o.size_versions = false;  // the code for symbolic sizes (size_version_test.cpp has the other)
  return o;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// The arrays' types declared, as packing needs (an unknown type is refused).
std::optional<Contraction> match(const std::string& body, std::size_t statement, std::string& why) {
  IslContext ctx;
  Scop scop = scop_of(ctx, body, "double alpha, **A, **B, **C;\n");
  return match_contraction(scop, scop.statements.at(statement), why);
}

TEST(MatmulPackingMatch, GemmFoldsAlphaIntoTheLeftOperand) {
  std::string why;
  auto c = match("for (i = 0; i < NI; i++) for (k = 0; k < NK; k++) for (j = 0; j < NJ; j++)\n"
                 "  C[i][j] += alpha * A[i][k] * B[k][j];",
                 0, why);
  ASSERT_TRUE(c) << why;
  EXPECT_EQ(c->m, "i");
  EXPECT_EQ(c->n, "j");
  EXPECT_EQ(c->k, "k");
  ASSERT_EQ(c->terms.size(), 1u);
  EXPECT_EQ(c->terms[0].left, "alpha * A[i][k]");
  EXPECT_EQ(c->terms[0].right, "B[k][j]");
  EXPECT_TRUE(c->terms[0].right_in_place);
  EXPECT_EQ(c->triangle, 0);
  EXPECT_EQ(c->multiply_adds, -1);  // symbolic sizes
}

TEST(MatmulPackingMatch, SyrkIsATriangleWithATransposedOperand) {
  std::string why;
  auto c = match("for (i = 0; i < N; i++) for (k = 0; k < M; k++) for (j = 0; j <= i; j++)\n"
                 "  C[i][j] += alpha * A[i][k] * A[j][k];",
                 0, why);
  ASSERT_TRUE(c) << why;
  EXPECT_EQ(c->triangle, 1);  // j <= i
  EXPECT_EQ(c->triangle_offset, 0);
  EXPECT_TRUE(c->terms[0].right_k_contiguous);
  EXPECT_FALSE(c->terms[0].right_in_place);
}

TEST(MatmulPackingMatch, OtherStatementsAreNot) {
  std::string why;
  EXPECT_FALSE(match("for (i = 1; i < N - 1; i++) B[i] += 0.33 * (A[i - 1] + A[i + 1]);", 0, why));
  EXPECT_FALSE(match("for (i = 0; i < N; i++) for (j = 0; j < N; j++) for (k = 0; k < N; k++)\n"
                     "  C[i][j] += A[i][k] * B[k][j] * C[i][k];",
                     0, why));
  // A stride-2 loop is no box of consecutive points.
  EXPECT_FALSE(match("for (i = 0; i < N; i += 2) for (j = 0; j < N; j++) for (k = 0; k < N; k++)\n"
                     "  C[i][j] += A[i][k] * B[k][j];",
                     0, why));
  EXPECT_FALSE(why.empty());
}

// Slivers hold the factors in C's element type: that type must be known by name, and be
// every factor's own (a double alpha times a float A is computed in double in the source).
TEST(MatmulPackingMatch, FactorsOfAnotherOrUnknownTypeAreNot) {
  const std::string gemm = "for (i = 0; i < N; i++) for (k = 0; k < N; k++) for (j = 0; j < N; j++)\n"
                           "  C[i][j] += alpha * A[i][k] * B[k][j];";
  IslContext ctx;
  std::string why;
  Scop unknown = scop_of(ctx, gemm);
  EXPECT_FALSE(match_contraction(unknown, unknown.statements.at(0), why));
  EXPECT_NE(why.find("__typeof__(C[0][0])"), std::string::npos) << why;
  Scop mixed = scop_of(ctx, gemm, "float **A, **B, **C;\ndouble alpha;\n");
  EXPECT_FALSE(match_contraction(mixed, mixed.statements.at(0), why));
  EXPECT_EQ(why.rfind("alpha is not of C's type float", 0), 0u) << why;
  Scop single = scop_of(ctx, gemm, "float **A, **B, **C, alpha;\n");
  EXPECT_TRUE(match_contraction(single, single.statements.at(0), why)) << why;
}

// The program as written and after polyc print the same numbers (bit for bit: the packed
// loops keep every element's additions in the source's order), and `packed` statements
// were packed.
void expect_same_output(const std::string& name, const std::string& source, int packed,
                        const PolycOptions& options = packing(), const std::string& target = "-march=native") {
  PolycResult r = polyc(source, options);
  ASSERT_EQ(r.scops.size(), 1u);
  const std::string log = joined(r.scops[0].passes);
  int count = 0;
  for (std::size_t at = log.find(" packed, micro-tile"); at != std::string::npos; at = log.find(" packed, micro-tile", at + 1))
    ++count;
  EXPECT_EQ(count, packed) << log;
  test_support::Workdir dir("matmul_" + name);
  const std::string flags = "-O2 " + target + " -ffp-contract=off -fopenmp -Wall -Wextra -Werror -Wno-unknown-pragmas";
  auto original = test_support::compile_and_run(dir.path(), name + "_orig", source, flags);
  auto transformed = test_support::compile_and_run(dir.path(), name + "_packed", r.output, flags);
  ASSERT_TRUE(original.ok) << original.error;
  ASSERT_TRUE(transformed.ok) << transformed.error << "\n" << r.output;
  EXPECT_EQ(original.output, transformed.output) << r.output;
}

// A kernel of tests/polyhedral/kernels with its `#define NAME value` sizes replaced.
std::string kernel_with_sizes(const std::string& kernel, const std::map<std::string, int>& sizes) {
  std::string source = test_support::slurp(fs::path(PZ_POLY_KERNELS_DIR) / (kernel + ".c"));
  for (const auto& [name, value] : sizes) {
    const std::string define = "#define " + name + " ";
    const std::size_t at = source.find(define);
    if (at == std::string::npos) {
      ADD_FAILURE() << kernel << " has no " << define;
      continue;
    }
    source.replace(at + define.size(), source.find('\n', at) - at - define.size(), std::to_string(value));
  }
  return source;
}

// Sizes that leave partial micro-tiles and partial k_c / m_c blocks.
TEST(MatmulPackingRun, GemmWithOddSizesIsBitIdentical) {
  expect_same_output("gemm_odd", kernel_with_sizes("gemm", {{"NI", 97}, {"NJ", 113}, {"NK", 131}}), 1);
}

// One row of micro-tiles and one column, each with a partial neighbour.
TEST(MatmulPackingRun, GemmJustOverOneMicroTileIsBitIdentical) {
  expect_same_output("gemm_small", kernel_with_sizes("gemm", {{"NI", 9}, {"NJ", 25}, {"NK", 2}}), 1);
}

// A last column of micro-tiles one and two vectors wide (40 = 24 + 16, 32 = 24 + 8), which
// take the narrower whole-vector kernels; syrk's triangle crosses them.
TEST(MatmulPackingRun, EdgeColumnsOfWholeVectorsAreBitIdentical) {
  expect_same_output("gemm_edge16", kernel_with_sizes("gemm", {{"NI", 19}, {"NJ", 40}, {"NK", 23}}), 1);
  expect_same_output("syrk_edge8", kernel_with_sizes("syrk", {{"N", 32}, {"M", 21}}), 1);
}

// Without AVX-512, GCC compiles the micro-kernel's other form (the block in a local array
// under `omp simd` loops): the same results.
TEST(MatmulPackingRun, WithoutAvx512TheArrayFormIsBitIdentical) {
  expect_same_output("gemm_avx2", kernel_with_sizes("gemm", {{"NI", 97}, {"NJ", 40}, {"NK", 131}}), 1, packing(),
                     "-march=x86-64-v3");
  expect_same_output("syr2k_sse2", kernel_with_sizes("syr2k", {{"N", 89}, {"M", 67}}), 1, packing(), "-march=x86-64");
}

// Fewer rows and columns than one micro-tile, with concrete sizes: not packed (the tile's
// whole-block code would index past the arrays, dead code that GCC warns about).
TEST(MatmulPackingRun, GemmSmallerThanOneMicroTileIsLeftToThePipeline) {
  expect_same_output("gemm_tiny", kernel_with_sizes("gemm", {{"NI", 3}, {"NJ", 5}, {"NK", 2}}), 0);
}

// Chained contractions, with the initialisations and scalings between them as pieces.
TEST(MatmulPackingRun, TwoAndThreeMatrixProductsAreBitIdentical) {
  expect_same_output("2mm", kernel_with_sizes("2mm", {{"NI", 41}, {"NJ", 53}, {"NK", 37}, {"NL", 59}}), 2);
  expect_same_output("3mm", kernel_with_sizes("3mm", {{"NI", 33}, {"NJ", 47}, {"NK", 29}, {"NL", 51}, {"NM", 27}}), 3);
}

// syrk's triangle, syr2k's sum of two products over it.
TEST(MatmulPackingRun, SyrkAndSyr2kTrianglesAreBitIdentical) {
  expect_same_output("syrk", kernel_with_sizes("syrk", {{"N", 93}, {"M", 71}}), 1);
  expect_same_output("syr2k", kernel_with_sizes("syr2k", {{"N", 89}, {"M", 67}}), 1);
}

// An upper triangle with a transposed left operand and -=, N x N updated over M.
std::string upper_triangle(int n, int m) {
  return "#include <stdio.h>\n#define N " + std::to_string(n) + "\n#define M " + std::to_string(m) + "\n" + R"(double A[N][M], T[M][N], D[N][N];
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) { A[i][j] = (double)((i * j + 1) % N) / N; T[j][i] = (double)((i + 3 * j) % M) / M; }
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) D[i][j] = (double)((i * (j + 2) + 3) % N) / N;
#pragma scop
  for (i = 0; i < N; i++)
    for (k = 0; k < M; k++)
      for (j = i + 1; j < N; j++)
        D[i][j] -= T[k][i] * (A[j][k] * 1.25);
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%a\n", D[i][j]);
  return 0;
}
)";
}

TEST(MatmulPackingRun, UpperTriangleWithTransposedOperandIsBitIdentical) {
  expect_same_output("upper", upper_triangle(61, 45), 1);
}

// gemm with its sizes as function arguments, called as `calls` says.
std::string symbolic_gemm(const std::string& calls) {
  return R"(#include <stdio.h>
static double A[300][300], B[300][300], C[300][300];
static void kernel(int ni, int nj, int nk, double alpha) {
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      for (k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 300; i++) for (int j = 0; j < 300; j++) {
    A[i][j] = (double)((i * j + 1) % 17) / 17;
    B[i][j] = (double)((i + 2 * j) % 13) / 13;
    C[i][j] = (double)((i * 3 + j) % 11) / 11;
  }
)" + calls + R"(
  for (int i = 0; i < 300; i++) for (int j = 0; j < 300; j++) printf("%a\n", C[i][j]);
  return 0;
}
)";
}

// Sizes as function arguments: the packed loops' bounds are expressions of them, the block
// sizes constants; run on sizes that leave every kind of edge, and on empty ones.
TEST(MatmulPackingRun, SymbolicSizesAreBitIdentical) {
  expect_same_output("symbolic",
                     symbolic_gemm("  kernel(1, 1, 1, 1.5);\n  kernel(0, 7, 5, 1.5);\n  kernel(7, 0, 5, 1.5);\n"
                                   "  kernel(9, 25, 0, 1.5);\n  kernel(41, 49, 33, 0.5);\n  kernel(257, 231, 299, 1.25);"),
                     1);
}

// With symbolic sizes the cost model's threshold is a test in the program: the calls below
// it (every one but the last here) run the plain pipeline's code, the others the packed
// loops, and both give the source's results.
TEST(MatmulPackingRun, SymbolicSizesChooseBetweenPackedAndPlainAtRunTime) {
  const std::string source =
      symbolic_gemm("  kernel(3, 5, 2, 1.5);\n  kernel(41, 49, 33, 0.5);\n  kernel(257, 231, 299, 1.25);");
  PolycOptions o = packing();
  o.matmul.min_multiply_adds = 100000;  // 41 * 49 * 33 = 66297 below, 257 * 231 * 299 above
  const PolycResult r = polyc(source, o);
  EXPECT_NE(r.output.find(" + 1) >= 100000LL) {"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pz_packed_left0"), std::string::npos) << r.output;
  EXPECT_NE(joined(r.scops.at(0).passes).find("take the plain pipeline"), std::string::npos) << joined(r.scops.at(0).passes);
  expect_same_output("symbolic_threshold", source, 1, o);
}

// R's slivers kept in a panel across the m_c blocks (here whenever there are two of them):
// odd sizes, triangles below and above the diagonal (each sliver packed by the first block
// that meets its columns), a sum of products, symbolic sizes with and without a panel.
TEST(MatmulPackingRun, RightPanelAcrossRowBlocksIsBitIdentical) {
  PolycOptions o = packing();
  o.matmul.min_right_panel_copies_per_page = 1;
  expect_same_output("panel_gemm", kernel_with_sizes("gemm", {{"NI", 197}, {"NJ", 113}, {"NK", 301}}), 1, o);
  expect_same_output("panel_syrk", kernel_with_sizes("syrk", {{"N", 203}, {"M", 71}}), 1, o);
  expect_same_output("panel_syr2k", kernel_with_sizes("syr2k", {{"N", 197}, {"M", 67}}), 1, o);
  expect_same_output("panel_upper", upper_triangle(211, 45), 1, o);
  expect_same_output("panel_symbolic",
                     symbolic_gemm("  kernel(41, 49, 33, 0.5);\n  kernel(257, 231, 299, 1.25);\n  kernel(0, 7, 5, 1.5);"), 1, o);
  expect_same_output("panel_avx2", kernel_with_sizes("gemm", {{"NI", 197}, {"NJ", 40}, {"NK", 131}}), 1, o, "-march=x86-64-v3");
}

// A dependence from the contraction to a statement before it in the text would be broken by
// running the pieces in text order: nothing is packed.
TEST(MatmulPackingRun, PiecesOutOfOrderAreNotPacked) {
  const std::string source = R"(#include <stdio.h>
#define N 40
double A[N][N], B[N][N], C[N][N], D[N][N];
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) { A[i][j] = i - j; B[i][j] = i + j; C[i][j] = 1; D[i][j] = 0; }
#pragma scop
  for (i = 1; i < N; i++) {
    for (j = 0; j < N; j++)
      D[i][j] = C[i - 1][j] * 2.0;
    for (k = 0; k < N; k++)
      for (j = 0; j < N; j++)
        C[i][j] += A[i][k] * B[k][j];
  }
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%a %a\n", C[i][j], D[i][j]);
  return 0;
}
)";
  PolycResult r = polyc(source, packing());
  EXPECT_EQ(r.output.find("pz_packed_left"), std::string::npos) << r.output;
  EXPECT_NE(joined(r.scops.at(0).passes).find("a dependence runs from a later piece to an earlier one"), std::string::npos)
      << joined(r.scops.at(0).passes);
}

// A cross layer's forward pass (DCN-v2, float): u = bias, u += x W^T, then `consumer`
// (y = x0 * u + x), sized by `sizes` (B rows, K outputs, J inputs; symbolic when empty) and
// run on `calls`.
std::string cross_layer(const std::string& sizes, const std::string& consumer, const std::string& calls) {
  const bool symbolic = sizes.empty();
  return "#include <stdio.h>\n" + sizes + R"(
static float x0[70][70], x[70][70], wt[70][70], bias[70], u[70][70], y[70][70];
static void layer()" + std::string(symbolic ? "int B, int K, int J" : "void") + R"() {
  int b, i, j;
#pragma scop
  for (b = 0; b < B; b++)
    for (i = 0; i < K; i++) {
      u[b][i] = bias[i];
      for (j = 0; j < J; j++)
        u[b][i] += x[b][j] * wt[j][i];
    }
  for (b = 0; b < B; b++)
    for (i = 0; i < K; i++)
      )" + consumer + R"(;
#pragma endscop
}
int main(void) {
  for (int r = 0; r < 70; r++) {
    bias[r] = (float)(r % 7) / 7;
    for (int c = 0; c < 70; c++) {
      x0[r][c] = (float)((r * c + 1) % 11) / 11;
      x[r][c] = (float)((r + 2 * c) % 13) / 13;
      wt[r][c] = (float)((3 * r + c) % 17) / 17 - 0.5f;
      y[r][c] = -1;
    }
  }
)" + calls + R"(
  for (int r = 0; r < 70; r++) for (int c = 0; c < 70; c++) printf("%a %a\n", u[r][c], y[r][c]);
  return 0;
}
)";
}

bool logged(const PolycResult& r, const std::string& line) { return joined(r.scops.at(0).passes).find(line) != std::string::npos; }

// The bias initialisation runs on each micro-tile before its first k block and the cross
// layer's output on it after its last, instead of sweeping u on their own; with edges in
// every direction (37 x 53 against 8 x 48 tiles), and with symbolic sizes, an empty k range
// among them (the packed loops then never reach the elements, and both run on their own).
TEST(MatmulPackingFusion, InitialisationAndConsumerJoinThePackedLoops) {
  const std::string consumer = "y[b][i] = x0[b][i] * u[b][i] + x[b][i]";
  const std::string source = cross_layer("#define B 37\n#define K 53\n#define J 51\n", consumer, "  layer();");
  const PolycResult r = polyc(source, packing());
  EXPECT_TRUE(logged(r, "matmul packing: S0 fused into S1's packed loops (before each element's first update)"))
      << joined(r.scops.at(0).passes);
  EXPECT_TRUE(logged(r, "matmul packing: S2 fused into S1's packed loops (after each element's last update)"))
      << joined(r.scops.at(0).passes);
  EXPECT_NE(r.output.find("if (pz_pc == (0)) {"), std::string::npos) << r.output;
  expect_same_output("cross_fused", source, 1);
  expect_same_output("cross_fused_symbolic",
                     cross_layer("", consumer,
                                 "  layer(37, 53, 51);\n  layer(9, 21, 0);\n  layer(0, 5, 5);\n  layer(70, 70, 70);\n"
                                 "  layer(1, 1, 1);\n  layer(8, 48, 2);"),
                     1);
  // gemm's C *= beta, before a contraction whose loops run i, k, j.
  const PolycResult gemm = polyc(kernel_with_sizes("gemm", {{"NI", 97}, {"NJ", 113}, {"NK", 131}}), packing());
  EXPECT_TRUE(logged(gemm, "matmul packing: S0 fused into S1's packed loops (before")) << joined(gemm.scops.at(0).passes);
}

// Neighbours that touch another element of u, cover part of its domain, or write the
// product's operand stay pieces of their own (and the results are the source's).
TEST(MatmulPackingFusion, NeighboursBeyondTheirOwnElementStayApart) {
  const std::string sizes = "#define B 37\n#define K 53\n#define J 51\n";
  int variant = 0;
  for (const std::string consumer : {"y[b][i] = u[b][i] * u[0][i]", "wt[b][i] = u[b][i] * 0.5f"}) {
    const std::string source = cross_layer(sizes, consumer, "  layer();");
    const PolycResult r = polyc(source, packing());
    EXPECT_TRUE(logged(r, "S0 fused into S1")) << joined(r.scops.at(0).passes);
    EXPECT_FALSE(logged(r, "S2 fused")) << consumer;
    expect_same_output("cross_apart" + std::to_string(variant++), source, 1);
  }
  // An initialisation of part of the rows only.
  const std::string partial = cross_layer(sizes, "y[b][i] = u[b][i]", "  layer();");
  std::string source = partial;
  source.replace(source.find("u[b][i] = bias[i];"), 18, "if (b > 0) u[b][i] = bias[i];");
  const PolycResult r = polyc(source, packing());
  EXPECT_FALSE(logged(r, "S0 fused")) << joined(r.scops.at(0).passes);
  expect_same_output("cross_partial_init", source, 1);
}

// `loops` over 1000-square arrays A, B and C, through polyc with packing at its default
// threshold (the cost model's, not the tests' lowered one).
PolycResult packed_at_n1000(const std::string& loops) {
  PolycOptions o = packing();
  o.matmul.min_multiply_adds = PolycOptions{}.matmul.min_multiply_adds;
  return polyc("#define N 1000\ndouble A[N][N], B[N][N], C[N][N];\nvoid f(void) {\n  int i, j, k;\n#pragma scop\n" + loops +
                   "#pragma endscop\n}\n",
               o);
}

// The branch that packs R's whole 24-column slivers, without spaces ("" when there is none).
std::string whole_sliver_copy(const std::string& output) {
  const std::size_t whole = output.find("if (pz_nr == 24) {");
  if (whole == std::string::npos) return "";
  std::string copy = output.substr(whole, output.find("else {", whole) - whole);
  copy.erase(std::remove(copy.begin(), copy.end(), ' '), copy.end());
  return copy;
}

// gemm at 1000^3 (10^9 multiply-adds, 24 MB of arrays): tiled into packed blocks with the
// register-blocked micro-kernel, in one parallel region sharing out the jc loop.
TEST(MatmulPackingCostModel, LargeGemmIsTiledAndPacked) {
  const PolycResult r = packed_at_n1000(
      "  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++)\n      for (k = 0; k < N; k++)\n"
      "        C[i][j] += A[i][k] * B[k][j];\n");
  const std::string log = joined(r.scops.at(0).passes);
  EXPECT_NE(log.find("matmul packing: S0 packed, micro-tile 8x24 (i x j)"), std::string::npos) << log;
  EXPECT_NE(r.output.find("double pz_packed_left0["), std::string::npos) << r.output;
  // The 8 x 24 block as 8 x 3 named vectors of 8 doubles, whatever the compiler's unrolling.
  EXPECT_NE(r.output.find("typedef double pz_vector __attribute__((vector_size(64)));"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pz_vector pz_c0_0, pz_c0_1, pz_c0_2, pz_c1_0,"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pz_c7_2 += pz_l0 * pz_r0_2;"), std::string::npos) << r.output;
  // A's rows read in place by whole slivers; packed only for the array form and the edges.
  EXPECT_NE(r.output.find("{ const int i = pz_m0 + 7, k = pz_pc; pz_lrow0_7 = &(A[i][k]); }"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("const double pz_l0 = pz_lrow0_7[pz_p];"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#if !(defined(__AVX512F__) || defined(__clang__))\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("double pz_edge_left0["), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("double pz_acc[8][24];"), std::string::npos) << r.output;  // edges, the #else form
  EXPECT_NE(r.output.find("#if defined(__AVX512F__) || defined(__clang__)\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#pragma omp parallel num_threads(pz_polyc_team_size(omp_get_max_threads()))\n"), std::string::npos)
      << r.output;
  // No barrier inside the region: the columns' loop is the only worksharing one, nowait.
  EXPECT_NE(r.output.find("#pragma omp for schedule(static) nowait\n"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("#pragma omp for\n"), std::string::npos) << r.output;
}

// C[m][n] += A[m][k] * B[k][n] at these sizes, through polyc with the default cost model.
PolycResult product_of_sizes(int m, int n, int k) {
  PolycOptions o = packing();
  o.matmul.min_multiply_adds = PolycOptions{}.matmul.min_multiply_adds;
  return polyc("#define M " + std::to_string(m) + "\n#define N " + std::to_string(n) + "\n#define K " + std::to_string(k) +
                   "\ndouble A[M][K], B[K][N], C[M][N];\nvoid f(void) {\n  int i, j, k;\n#pragma scop\n"
                   "  for (i = 0; i < M; i++)\n    for (j = 0; j < N; j++)\n      for (k = 0; k < K; k++)\n"
                   "        C[i][j] += A[i][k] * B[k][j];\n#pragma endscop\n}\n",
               o);
}

// B's k_c x n_r slivers are packed for gemm's 96-row blocks of A (whole slivers by vector
// copies, without the edge's test per element), and read in place for a product of 16 rows,
// where each sliver would serve two slivers of A only.
TEST(MatmulPackingCostModel, RightSliversArePackedUnlessFewRowsUseThem) {
  const std::string gemm = "  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++)\n      for (k = 0; k < N; k++)\n"
                           "        C[i][j] += A[i][k] * B[k][j];\n";
  const PolycResult large = packed_at_n1000(gemm);
  EXPECT_NE(large.output.find("double *const pz_packed_right0 = "), std::string::npos) << large.output;
  const std::string copy = whole_sliver_copy(large.output);
  EXPECT_NE(copy.find("#pragmaompsimd"), std::string::npos) << copy;
  EXPECT_NE(copy.find("(pz_packed_right0)[pz_p*24+pz_x]=(B[k][j]);"), std::string::npos) << copy;

  const PolycResult few = product_of_sizes(16, 1000, 1000);
  EXPECT_NE(joined(few.scops.at(0).passes).find("matmul packing: S0 packed"), std::string::npos) << joined(few.scops.at(0).passes);
  EXPECT_EQ(few.output.find("pz_packed_right0"), std::string::npos) << few.output;
  EXPECT_NE(few.output.find("__builtin_memcpy(&pz_r0_0, &(B[k][j]), sizeof(pz_vector));"), std::string::npos) << few.output;
}

// At 1000^3 each of B's slivers serves 11 blocks of 96 rows in each of 4 k_c blocks: B's
// packed slivers are kept in a panel on the heap across the row blocks, each packed by the
// first block. At 200 x 220 x 240 (3 row blocks, 1 k_c block) the panel's page faults would
// cost more than the copies it saves, and each block packs its own slivers.
TEST(MatmulPackingCostModel, RightPanelKeptWhereItsSliversAreReusedEnough) {
  const PolycResult large = product_of_sizes(1000, 1000, 1000);
  EXPECT_NE(joined(large.scops.at(0).passes).find("R's slivers kept in a panel across the m_c blocks"), std::string::npos)
      << joined(large.scops.at(0).passes);
  EXPECT_NE(large.output.find("pz_panel_memory0 = __builtin_malloc(sizeof(double) * "), std::string::npos) << large.output;
  EXPECT_NE(large.output.find("if (!pz_panel_right0 || pz_ic == ((0))) {"), std::string::npos) << large.output;
  EXPECT_NE(large.output.find("__builtin_free(pz_panel_memory0);"), std::string::npos) << large.output;

  const PolycResult medium = product_of_sizes(200, 220, 240);
  EXPECT_NE(medium.output.find("double pz_packed_right0["), std::string::npos) << medium.output;
  EXPECT_EQ(medium.output.find("pz_panel"), std::string::npos) << medium.output;
}

// syrk's triangle: the first columns hold the most rows, so the column slivers are dealt
// round-robin (still the same ones to each thread in every block, still no barrier).
TEST(MatmulPackingCostModel, TriangleColumnsAreDealtRoundRobin) {
  const PolycResult r = packed_at_n1000(
      "  for (i = 0; i < N; i++)\n    for (k = 0; k < N; k++)\n      for (j = 0; j <= i; j++)\n"
      "        C[i][j] += A[j][k] * A[i][k];\n");
  EXPECT_NE(joined(r.scops.at(0).passes).find("matmul packing: S0 packed"), std::string::npos) << joined(r.scops.at(0).passes);
  EXPECT_NE(r.output.find("#pragma omp for schedule(static, 1) nowait\n"), std::string::npos) << r.output;
  // R = A[j][k] runs along k: its whole slivers are copied a buffer row at a time (vector
  // stores of gathered elements), not down the buffer's columns.
  const std::string copy = whole_sliver_copy(r.output);
  EXPECT_NE(copy.find("constintk=pz_pc+pz_p;\n#pragmaompsimd\nfor(intpz_x=0;pz_x<24;pz_x++){\nconstintj=pz_jc+pz_x;\n"
                      "(pz_packed_right0)[pz_p*24+pz_x]=(A[j][k]);"),
            std::string::npos)
      << copy;
}

// gemm at 40^3 (64000 multiply-adds) and a 2000-point 1-D stencil: the model says no, and the
// stencil is left as the source has it.
TEST(MatmulPackingCostModel, SmallGemmAndOneDimensionalStencilAreLeftAlone) {
  PolycOptions o = packing();
  o.matmul.min_multiply_adds = PolycOptions{}.matmul.min_multiply_adds;
  const std::string gemm =
      "#define N 40\ndouble A[N][N], B[N][N], C[N][N];\nvoid f(void) {\n  int i, j, k;\n#pragma scop\n"
      "  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++)\n      for (k = 0; k < N; k++)\n"
      "        C[i][j] += A[i][k] * B[k][j];\n#pragma endscop\n}\n";
  PolycResult r = polyc(gemm, o);
  EXPECT_EQ(r.output.find("pz_packed"), std::string::npos) << r.output;
  EXPECT_NE(joined(r.scops.at(0).passes).find("cost model: S0 is a contraction of 64000 multiply-adds"), std::string::npos)
      << joined(r.scops.at(0).passes);
  const std::string stencil =
      "#define T 500\n#define N 2000\ndouble A[N], B[N];\nvoid f(void) {\n  int t, i;\n#pragma scop\n"
      "  for (t = 0; t < T; t++) {\n    for (i = 1; i < N - 1; i++)\n      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);\n"
      "    for (i = 1; i < N - 1; i++)\n      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);\n  }\n#pragma endscop\n}\n";
  r = polyc(stencil, o);
  EXPECT_EQ(r.output.find("pz_packed"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("omp parallel"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(" += 32)"), std::string::npos) << r.output;  // no tile loops
  EXPECT_NE(joined(r.scops.at(0).passes).find("cost model: "), std::string::npos);
}

}  // namespace
}  // namespace pz::poly
