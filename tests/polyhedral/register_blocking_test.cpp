// Register blocking (register_blocking.h): which scops are reduction chains, and that the
// blocked code computes exactly what the source does. The additions into each element keep
// their order, so with -ffp-contract=off the outputs are bit-identical.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>

#include "polyhedral/polyc.h"
#include "tests/polyhedral/compile_run.h"

namespace pz::poly {
namespace {

namespace fs = std::filesystem;

PolycOptions blocking() {
  PolycOptions o;
  o.register_block.enabled = true;
  return o;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// A direct 3x3 convolution over a zero-bordered NHWC buffer, bias and ReLU, as the poly
// backend describes its layers. H, W, CI, CO are the sizes; the program prints every output.
std::string conv_program(int n, int h, int w, int ci, int co, bool relu) {
  const std::string sizes = "#define N " + std::to_string(n) + "\n#define H " + std::to_string(h) + "\n#define W " +
                            std::to_string(w) + "\n#define CI " + std::to_string(ci) + "\n#define CO " + std::to_string(co) + "\n";
  const std::string final = relu ? "      Y[b][y + 1][x + 1][o] = Y[b][y + 1][x + 1][o] > 0.0f ? Y[b][y + 1][x + 1][o] : 0.0f;\n" : "";
  return sizes + R"(#include <stdio.h>
static float X[N][H + 2][W + 2][CI], K[3][3][CI][CO], B[CO], Y[N][H + 2][W + 2][CO];
int main(void) {
  for (int b = 0; b < N; b++) for (int y = 0; y < H + 2; y++) for (int x = 0; x < W + 2; x++) for (int i = 0; i < CI; i++)
    X[b][y][x][i] = (y == 0 || x == 0 || y == H + 1 || x == W + 1) ? 0.0f : (float)((b * 7 + y * 5 + x * 3 + i) % 11) / 11.0f - 0.4f;
  for (int p = 0; p < 3; p++) for (int q = 0; q < 3; q++) for (int i = 0; i < CI; i++) for (int o = 0; o < CO; o++)
    K[p][q][i][o] = (float)((p * 13 + q * 7 + i * 3 + o) % 17) / 17.0f - 0.5f;
  for (int o = 0; o < CO; o++) B[o] = 0.01f * o;
#pragma scop
  for (int b = 0; b < N; b++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        for (int o = 0; o < CO; o++) {
          Y[b][y + 1][x + 1][o] = B[o];
          for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++)
              for (int i = 0; i < CI; i++)
                Y[b][y + 1][x + 1][o] += X[b][y + p][x + q][i] * K[p][q][i][o];
)" + final + R"(        }
#pragma endscop
  for (int b = 0; b < N; b++) for (int y = 0; y < H + 2; y++) for (int x = 0; x < W + 2; x++) for (int o = 0; o < CO; o++)
    printf("%a\n", Y[b][y][x][o]);
  return 0;
}
)";
}

class RegisterBlocking : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pz_register_blocking_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // The program as written and after polyc with register blocking print the same numbers.
  void expect_same_output(const std::string& name, const std::string& source) {
    PolycResult r = polyc(source, blocking());
    ASSERT_EQ(r.scops.size(), 1u);
    EXPECT_EQ(r.scops[0].schedule_origin, "register-blocked reduction chain") << joined(r.scops[0].passes);
    const std::string flags = "-O2 -march=native -ffp-contract=off -fopenmp -Wall -Wextra -Werror -Wno-unknown-pragmas";
    auto original = test_support::compile_and_run(dir_, name + "_orig", source, flags);
    auto blocked = test_support::compile_and_run(dir_, name + "_blocked", r.output, flags);
    ASSERT_TRUE(original.ok) << original.error;
    ASSERT_TRUE(blocked.ok) << blocked.error << "\n" << r.output;
    EXPECT_EQ(original.output, blocked.output) << r.output;
  }
  fs::path dir_;
};

TEST_F(RegisterBlocking, ConvolutionWithReluIsBitIdentical) { expect_same_output("conv_relu", conv_program(2, 6, 7, 5, 32, true)); }

// 9 columns in blocks of at most 6 rows → two balanced blocks; 40 channels → a partial vector block.
TEST_F(RegisterBlocking, PartialBlocksAreBitIdentical) { expect_same_output("conv_odd", conv_program(3, 4, 9, 3, 40, true)); }

// No final statement: the pass adds the store.
TEST_F(RegisterBlocking, ChainWithoutFinalGetsAStore) { expect_same_output("conv_plain", conv_program(1, 3, 5, 4, 3, false)); }

TEST_F(RegisterBlocking, LinearLayerBlocksTheBatch) {
  const std::string source = R"(#include <stdio.h>
#define N 13
#define K 37
#define M 20
static float A[N][K], Wt[K][M], Bias[M], Z[N][M];
int main(void) {
  for (int n = 0; n < N; n++) for (int k = 0; k < K; k++) A[n][k] = (float)((n * 5 + k * 3) % 7) - 3.0f;
  for (int k = 0; k < K; k++) for (int m = 0; m < M; m++) Wt[k][m] = (float)((k + m * 2) % 5) * 0.25f;
  for (int m = 0; m < M; m++) Bias[m] = m;
#pragma scop
  for (int n = 0; n < N; n++)
    for (int m = 0; m < M; m++) {
      Z[n][m] = Bias[m];
      for (int k = 0; k < K; k++)
        Z[n][m] += A[n][k] * Wt[k][m];
      Z[n][m] = Z[n][m] > 0.0f ? Z[n][m] : 0.0f;
    }
#pragma endscop
  for (int n = 0; n < N; n++) for (int m = 0; m < M; m++) printf("%a\n", Z[n][m]);
  return 0;
}
)";
  expect_same_output("linear", source);
}

TEST_F(RegisterBlocking, BlockShapeFollowsTheRule) {
  PolycResult r = polyc(conv_program(4, 6, 7, 32, 32, true), blocking());
  const std::string log = joined(r.scops.at(0).passes);
  // 32 channels are two vectors of 16; 7 columns × 2 vectors = 14 accumulators.
  EXPECT_NE(log.find("Y in a 7x32 register block (rows x, vectors o), 14 vector accumulators"), std::string::npos) << log;
  EXPECT_NE(r.output.find("float pz_rb[7][32];"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#pragma omp simd"), std::string::npos) << r.output;
}

// A symbolic batch (as the poly backend compiles its layers) leaves the block's own extents known.
TEST_F(RegisterBlocking, SymbolicOuterSizeKeepsTheBlockShape) {
  std::string source = conv_program(4, 6, 7, 32, 32, true);
  source.erase(0, source.find('\n') + 1);  // no #define N: a parameter
  PolycResult r = polyc(source, blocking());
  const std::string log = joined(r.scops.at(0).passes);
  EXPECT_NE(log.find("Y in a 7x32 register block"), std::string::npos) << log;
}

TEST_F(RegisterBlocking, OtherScopsAreLeftToTheUsualPasses) {
  const std::string source = R"(#define N 8
float A[N][N], s[N];
void f(void) {
#pragma scop
  for (int i = 0; i < N; i++) {
    s[i] = 0;
    for (int j = 0; j < N; j++)
      s[i] += A[i][j] * s[j];
  }
#pragma endscop
}
)";
  PolycResult r = polyc(source, blocking());
  ASSERT_EQ(r.scops.size(), 1u);
  EXPECT_NE(r.scops[0].schedule_origin, "register-blocked reduction chain");
  EXPECT_NE(joined(r.scops[0].passes).find("register blocking: not a reduction chain (S1 reads s on its right-hand side)"),
            std::string::npos)
      << joined(r.scops[0].passes);
}

// Z live-out and a final statement writing another array: the block is stored to both.
TEST_F(RegisterBlocking, LiveOutAccumulatorWithAnotherFinalArrayIsStoredToo) {
  const std::string source = R"(#include <stdio.h>
#define N 8
#define K 16
#define M 32
static float A[N][K], B[K][M], U[N][M], Y[N][M];
int main(void) {
  for (int n = 0; n < N; n++) for (int k = 0; k < K; k++) A[n][k] = (float)((n * 5 + k * 3) % 7) - 3.0f;
  for (int k = 0; k < K; k++) for (int m = 0; m < M; m++) B[k][m] = (float)((k + m * 2) % 5) * 0.25f;
#pragma scop
  for (int n = 0; n < N; n++)
    for (int m = 0; m < M; m++) {
      U[n][m] = 0.0f;
      for (int k = 0; k < K; k++)
        U[n][m] += A[n][k] * B[k][m];
      Y[n][m] = 2.0f * U[n][m];
    }
#pragma endscop
  for (int n = 0; n < N; n++) for (int m = 0; m < M; m++) printf("%a %a\n", U[n][m], Y[n][m]);
  return 0;
}
)";
  expect_same_output("live_out_z", source);  // live_out unset: every array, U stored as well
  PolycResult every = polyc(source, blocking());
  EXPECT_NE(joined(every.scops.at(0).passes).find("store statement"), std::string::npos) << joined(every.scops[0].passes);
  PolycOptions scratch = blocking();
  scratch.register_block.live_out = std::set<std::string>{"Y"};  // U a scratch array: only Y stored
  PolycResult r = polyc(source, scratch);
  EXPECT_EQ(r.scops.at(0).schedule_origin, "register-blocked reduction chain");
  EXPECT_EQ(joined(r.scops[0].passes).find("store statement"), std::string::npos) << joined(r.scops[0].passes);
}

// PolyBench's gemm: an initialisation that is itself an update (C *= beta), the reduction
// loop between the block's two (i, k, j): the block is loaded from C, scaled, accumulated.
TEST_F(RegisterBlocking, ScaledInitialisationAndReductionBetweenTheBlockLoops) {
  const std::string source = R"(#include <stdio.h>
#define NI 11
#define NJ 21
#define NK 9
static double A[NI][NK], B[NK][NJ], C[NI][NJ];
int main(void) {
  double alpha = 1.5, beta = 1.2;
  for (int i = 0; i < NI; i++) for (int k = 0; k < NK; k++) A[i][k] = (double)((i * 5 + k * 3) % 7) / 7.0 - 0.3;
  for (int k = 0; k < NK; k++) for (int j = 0; j < NJ; j++) B[k][j] = (double)((k + j * 2) % 5) / 5.0;
  for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) C[i][j] = (double)((i + j) % 3) - 1.0;
#pragma scop
  for (int i = 0; i < NI; i++) {
    for (int j = 0; j < NJ; j++)
      C[i][j] *= beta;
    for (int k = 0; k < NK; k++)
      for (int j = 0; j < NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
  for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) printf("%a\n", C[i][j]);
  return 0;
}
)";
  expect_same_output("gemm", source);
  PolycResult r = polyc(source, blocking());
  EXPECT_NE(r.output.find(" = C["), std::string::npos) << r.output;  // the block loaded from C
}

// PolyBench's doitgen: sum[p] expanded along q into a scratch array, A[r][q][p] written
// back in place, and sum's last values copied out after the chain (a smaller statement
// that runs after every block).
std::string doitgen_program(int nr, int nq, int np) {
  return "#include <stdio.h>\n#define NR " + std::to_string(nr) + "\n#define NQ " + std::to_string(nq) +
         "\n#define NP " + std::to_string(np) + "\n" + R"(static double A[NR][NQ][NP], C4[NP][NP], sum[NP];
int main(void) {
  for (int r = 0; r < NR; r++) for (int q = 0; q < NQ; q++) for (int p = 0; p < NP; p++)
    A[r][q][p] = (double)((r * 7 + q * 5 + p * 3) % 11) / 11.0 - 0.4;
  for (int s = 0; s < NP; s++) for (int p = 0; p < NP; p++) C4[s][p] = (double)((s * 3 + p) % 13) / 13.0;
#pragma scop
  for (int r = 0; r < NR; r++)
    for (int q = 0; q < NQ; q++) {
      for (int p = 0; p < NP; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < NP; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (int p = 0; p < NP; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
  for (int r = 0; r < NR; r++) for (int q = 0; q < NQ; q++) for (int p = 0; p < NP; p++) printf("%a\n", A[r][q][p]);
  for (int p = 0; p < NP; p++) printf("%a\n", sum[p]);
  return 0;
}
)";
}

// Blocks of q are legal because r stays outermost, and one block spans all of p.
TEST_F(RegisterBlocking, ExpandedAccumulatorWithCopyOutAfterTheChain) {
  expect_same_output("doitgen", doitgen_program(5, 7, 13));
}

// With p wider than a block, the first column block's store of A[r][q][0..63] would
// overwrite what the next column block still reads: that schedule is undone, and blocks
// over the whole of p (5 vectors of 16; 3 rows, 9 balanced over blocks of at most 4) are legal.
TEST_F(RegisterBlocking, WriteBackOverTheReadRowTakesBlocksOverTheWholeRow) {
  const std::string source = doitgen_program(3, 9, 71);
  const PolycResult r = polyc(source, blocking());
  const std::string log = joined(r.scops.at(0).passes);
  EXPECT_NE(log.find("UNDONE"), std::string::npos) << log;
  EXPECT_NE(log.find("pz_sum in a 3x80 register block"), std::string::npos) << log;
  EXPECT_EQ(r.scops.at(0).schedule_origin, "register-blocked reduction chain") << log;
  expect_same_output("doitgen_wide", source);
}

// Z[i][j] serves every t in turn, and each t's initialisation scales what the t before
// left: the block must be stored back to Z, not only to W, for the next t to load it.
TEST_F(RegisterBlocking, LoadingInitialisationSeesThePreviousBlocksStore) {
  const std::string source = R"(#include <stdio.h>
#define T 3
#define N 6
#define M 10
#define K 4
static double A[T][N][K], Z[N][M], W[T][N][M];
int main(void) {
  for (int t = 0; t < T; t++) for (int i = 0; i < N; i++) for (int k = 0; k < K; k++) A[t][i][k] = (double)((t + i * 3 + k) % 5) - 2.0;
  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) Z[i][j] = (double)((i * 7 + j) % 4);
#pragma scop
  for (int t = 0; t < T; t++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++) {
        Z[i][j] *= 0.5;
        for (int k = 0; k < K; k++)
          Z[i][j] += A[t][i][k] * (double)(j + 1);
        W[t][i][j] = Z[i][j] + 1.0;
      }
#pragma endscop
  for (int t = 0; t < T; t++) for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) printf("%a\n", W[t][i][j]);
  return 0;
}
)";
  PolycOptions scratch = blocking();
  scratch.register_block.live_out = std::set<std::string>{"W"};  // Z not read after the scop
  PolycResult r = polyc(source, scratch);
  ASSERT_EQ(r.scops.at(0).schedule_origin, "register-blocked reduction chain") << joined(r.scops[0].passes);
  const std::string flags = "-O2 -march=native -ffp-contract=off -fopenmp -Wall -Wextra -Werror -Wno-unknown-pragmas";
  auto original = test_support::compile_and_run(dir_, "load_orig", source, flags);
  auto blocked = test_support::compile_and_run(dir_, "load_blocked", r.output, flags);
  ASSERT_TRUE(original.ok) << original.error;
  ASSERT_TRUE(blocked.ok) << blocked.error << "\n" << r.output;
  EXPECT_EQ(original.output, blocked.output) << r.output;
}

// A reduction whose elements share one accumulator inside a block (Z[j] for every i) is
// not blocked: the block would give each instance its own.
TEST_F(RegisterBlocking, SharedAccumulatorInsideABlockIsRefused) {
  const std::string source = R"(#define N 8
float A[N][N], Z[N], W[N][N];
void f(void) {
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      Z[j] = 0;
      for (int k = 0; k < N; k++)
        Z[j] += A[i][k];
      W[i][j] = Z[j];
    }
#pragma endscop
}
)";
  PolycResult r = polyc(source, blocking());
  EXPECT_NE(r.scops.at(0).schedule_origin, "register-blocked reduction chain");
}

// C files: where the arrays' declared extents give the sizes (PolyBench's kernels), the copy
// at those sizes is register-blocked when the scop is a chain there; a triangle is not.
TEST_F(RegisterBlocking, DeclaredSizeCopyOfACFileIsBlocked) {
  const std::string gemm = R"(#define NI 20
#define NJ 25
#define NK 30
void kernel(int ni, int nj, int nk, double alpha, double beta, double C[NI][NJ], double A[NI][NK], double B[NK][NJ]) {
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++) {
    for (j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
}
)";
  PolycOptions o;  // as `polyzero polyc --tile auto --parallel --vectorize` sets them
  o.tile.mode = TileOptions::Mode::kAuto;
  o.parallel = o.vectorize = true;
  o.matmul.enabled = true;
  PolycResult r = polyc(gemm, o);
  const std::string log = joined(r.scops.at(0).passes);
  EXPECT_NE(log.find("sizes: at the declared sizes, register blocking: C in a 5x16 register block"), std::string::npos) << log;
  EXPECT_NE(r.output.find("double pz_rb[5][16];"), std::string::npos) << r.output;
  std::string syrk = gemm;  // both j loops over j <= i
  for (std::size_t at; (at = syrk.find("j < nj")) != std::string::npos;) syrk.replace(at, 6, "j <= i");
  PolycResult t = polyc(syrk, o);
  EXPECT_EQ(t.output.find("pz_rb"), std::string::npos) << joined(t.scops.at(0).passes);
}

TEST_F(RegisterBlocking, OffByDefaultForCFiles) {
  PolycResult r = polyc(conv_program(1, 2, 3, 2, 4, true), PolycOptions{});
  EXPECT_NE(r.scops.at(0).schedule_origin, "register-blocked reduction chain");
}

}  // namespace
}  // namespace pz::poly
