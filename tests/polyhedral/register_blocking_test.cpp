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

// Z live-out and a final statement writing another array: blocked, Z would never be stored.
TEST_F(RegisterBlocking, LiveOutAccumulatorWithAnotherFinalArrayIsNotBlocked) {
  const std::string source = R"(#define N 8
#define K 16
#define M 32
float A[N][K], B[K][M], U[N][M], Y[N][M];
void f(void) {
#pragma scop
  for (int n = 0; n < N; n++)
    for (int m = 0; m < M; m++) {
      U[n][m] = 0.0f;
      for (int k = 0; k < K; k++)
        U[n][m] += A[n][k] * B[k][m];
      Y[n][m] = 2.0f * U[n][m];
    }
#pragma endscop
}
)";
  PolycResult every = polyc(source, blocking());  // live_out unset: every array
  EXPECT_NE(every.scops.at(0).schedule_origin, "register-blocked reduction chain");
  EXPECT_NE(joined(every.scops[0].passes).find("U is live-out but S2 writes Y"), std::string::npos)
      << joined(every.scops[0].passes);
  PolycOptions scratch = blocking();
  scratch.register_block.live_out = std::set<std::string>{"Y"};  // U a scratch array
  EXPECT_EQ(polyc(source, scratch).scops.at(0).schedule_origin, "register-blocked reduction chain");
}

TEST_F(RegisterBlocking, OffByDefaultForCFiles) {
  PolycResult r = polyc(conv_program(1, 2, 3, 2, 4, true), PolycOptions{});
  EXPECT_NE(r.scops.at(0).schedule_origin, "register-blocked reduction chain");
}

}  // namespace
}  // namespace pz::poly
