// PolyBench/C 4.2.1 through polyc: every kernel of the unmodified suite at MINI, preprocessed
// and transformed by polyc (tile auto, parallel, vectorize), compiled and run on 2 threads;
// its array dump must agree with gcc -O3 -ffp-contract=off's (within the dump's two printed
// decimals), and polyc --no-reassociate, compiled with -ffp-contract=off too, must reproduce
// that dump exactly. One polybench.o for all kernels. Skipped unless $POLYBENCH_DIR holds the suite. Also the
// pieces that path needs, on small inputs: chained assignments, regions parsed after the
// preprocessor, run-time versions of parallel loops, passive waiting in standalone programs,
// the cost model on known cases.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "bench/polyc_bench.h"
#include "polyhedral/c_frontend.h"
#include "polyhedral/frontend_error.h"
#include "polyhedral/polyc.h"
#include "polyhedral/preprocess.h"
#include "tests/polyhedral/compile_run.h"

namespace pz::poly {
namespace {

namespace fs = std::filesystem;

TEST(PolyBench, EveryKernelAtMiniMatchesGcc) {
  const char* dir = std::getenv("POLYBENCH_DIR");
  if (!dir || !*dir || !fs::exists(fs::path(dir) / "utilities" / "polybench.h"))
    GTEST_SKIP() << "PolyBench/C 4.2.1 not found: set POLYBENCH_DIR to the unpacked suite (the directory holding "
                    "utilities/polybench.h) to run every PolyBench kernel through polyc at MINI"
                 << (dir && *dir ? std::string(" ($POLYBENCH_DIR=") + dir + " has no utilities/polybench.h)" : "");
  bench::PolycBenchOptions o;
  o.suite = "polybench";
  o.polybench_dir = dir;
  o.datasets = {"MINI"};
  o.variants = {"gcc", "polyc"};
  o.repeats = 1;
  o.threads = 2;
  o.strict = true;
  o.timeout_seconds = 60;
  if (std::getenv("PZ_TEST_PROGRESS"))
    o.progress = [](const std::string& line) {
      std::fprintf(stderr, "[%.1f] %s\n", std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(), line.c_str());
    };
  const bench::PolycBenchResult r = bench::run_polyc_bench(o);
  EXPECT_EQ(r.kernels.size(), bench::polybench_kernels(dir).size());
  for (const auto& k : r.kernels) {
    const bench::VariantRun* gcc = k.run("gcc");
    ASSERT_NE(gcc, nullptr) << k.kernel;
    EXPECT_TRUE(gcc->ok) << k.kernel << ": gcc -O3: " << gcc->error;
    const bench::VariantRun* polyc = k.run("polyc");
    ASSERT_NE(polyc, nullptr) << k.kernel;
    EXPECT_TRUE(polyc->ok) << k.kernel << ": " << polyc->error;
  }
  EXPECT_TRUE(r.polyc_ok);
}

// Repeats run round by round over the variants; each variant's time is the median of its runs.
TEST(PolyBench, RepeatsAreInterleavedAndSummarised) {
  const char* dir = std::getenv("POLYBENCH_DIR");
  if (!dir || !*dir || !fs::exists(fs::path(dir) / "utilities" / "polybench.h"))
    GTEST_SKIP() << "PolyBench/C 4.2.1 not found: set POLYBENCH_DIR to the unpacked suite";
  bench::PolycBenchOptions o;
  o.suite = "polybench";
  o.polybench_dir = dir;
  o.datasets = {"MINI"};
  o.kernels = {"jacobi-1d"};
  o.variants = {"gcc", "polyc-1t"};
  o.repeats = 3;
  const bench::PolycBenchResult r = bench::run_polyc_bench(o);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.statistic, "median");
  for (const auto& run : r.kernels[0].runs) {
    ASSERT_TRUE(run.ok) << run.variant << ": " << run.error;
    ASSERT_EQ(run.times.size(), 3u) << run.variant;
    EXPECT_EQ(run.seconds, bench::summarise_times(run.times, "median")) << run.variant;
  }
  o.statistic = "mean";
  EXPECT_THROW(bench::run_polyc_bench(o), std::invalid_argument);
}

TEST(PolyBench, MissingSuiteSaysWhereItLooked) {
  try {
    bench::find_polybench_dir("/nonexistent/polybench");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/polybench"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("POLYBENCH_DIR"), std::string::npos) << e.what();
  }
}

TEST(PolyBench, DumpComparisonAllowsThePrintedPrecision) {
  const fs::path dir = fs::temp_directory_path() / ("pz_pb_dump_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const char* name, const char* text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string a = write("a", "begin dump: C\n1.00 2.50 -0.00 1234567.89\nend\n");
  EXPECT_EQ(bench::compare_polybench_dumps(a, write("b", "begin dump: C\n1.01 2.49 0.00 1234567.90\nend\n")), "");
  EXPECT_NE(bench::compare_polybench_dumps(a, write("c", "begin dump: C\n1.03 2.50 0.00 1234567.89\nend\n")), "");
  EXPECT_NE(bench::compare_polybench_dumps(a, write("d", "begin dump: C\n1.00 2.50 0.00\nend\n")), "");
  fs::remove_all(dir);
}

TEST(PolycFrontend, ChainedAssignmentIsOneStatementPerTarget) {
  const std::string src =
      "float a, b, c[4], k;\nvoid f(void) {\n#pragma scop\n  a = c[1] = b = k * 2.0f;\n  c[0] = a + b;\n#pragma endscop\n}\n";
  auto regions = parse_c_regions(src);
  ASSERT_EQ(regions.size(), 1u);
  PolycOptions o;
  const std::string out = polyc(src, o).output;
  // Innermost first: b = k * 2, then c[1] = b, then a = c[1].
  const size_t b = out.find("b = k * 2.0f"), c1 = out.find("c[1] = b"), a = out.find("a = c[1]");
  ASSERT_NE(b, std::string::npos) << out;
  ASSERT_NE(c1, std::string::npos) << out;
  ASSERT_NE(a, std::string::npos) << out;
  EXPECT_LT(b, c1);
  EXPECT_LT(c1, a);
  EXPECT_THROW(parse_c_regions("void f(void) {\n#pragma scop\n  a = b += 1;\n#pragma endscop\n}\n"), FrontendError);
}

TEST(PolycPreprocess, RegionsAreParsedExpandedAndReplacedInTheFileAsWritten) {
  const fs::path dir = fs::temp_directory_path() / ("pz_cpp_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "sizes.h") << "#define N 64\n";
  const std::string src =
      "#include \"sizes.h\"\n#define SCALE(x) (2.0 * (x))\n#define LOOP_N N\n"
      "double A[N][N];\nvoid f(void) {\n  int i, j;\n#pragma scop\n  for (i = 0; i < LOOP_N; i++)\n"
      "    for (j = 0; j < LOOP_N; j++)\n      A[i][j] = SCALE(A[j][i]);\n#pragma endscop\n}\n";
  std::ofstream(dir / "k.c") << src;
  PolycOptions o;
  // Without the preprocessor SCALE is taken for a function and LOOP_N for a size parameter.
  EXPECT_NE(polyc(src, o).output.find("SCALE("), std::string::npos);
  PreprocessOptions cpp;
  cpp.flags = {"-I" + dir.string()};
  const std::string expanded = preprocess_c_file((dir / "k.c").string(), cpp);
  const PolycResult r = polyc(src, expanded, o);
  EXPECT_EQ(r.output.rfind("#include \"sizes.h\"\n#define SCALE(x) (2.0 * (x))\n", 0), 0u) << r.output;
  EXPECT_EQ(r.output.find("#pragma scop"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2.0 * A["), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("c0 <= 63"), std::string::npos) << r.output;  // N is known after the preprocessor
  ASSERT_EQ(r.scops.size(), 1u);
  EXPECT_EQ(r.scops[0].line, 7);  // the line of the file as written
  // A frontend error names the line of the file as written.
  const std::string bad = "void f(void) {\n#define BAD while (1) x = 1\n#pragma scop\n  BAD;\n#pragma endscop\n}\n";
  std::ofstream(dir / "bad.c") << bad;
  try {
    polyc(bad, preprocess_c_file((dir / "bad.c").string(), {}), o);
    FAIL() << "no error";
  } catch (const FrontendError& e) {
    EXPECT_EQ(e.loc().line, 4) << e.what();
  }
  cpp.flags = {"-I" + dir.string(), "-include", "no_such_header.h"};
  EXPECT_THROW(preprocess_c_file((dir / "k.c").string(), cpp), util::UsageError);
  fs::remove_all(dir);
}

// Parametric sizes: the parallel loop decides at run time; concrete small sizes: no fork.
TEST(PolycParallel, SmallRegionsStayOnOneThread) {
  const std::string param =
      "void f(int n, int m, double A[n][m], double B[n][m]) {\n  int i, j;\n#pragma scop\n"
      "  for (i = 0; i < n; i++)\n    for (j = 0; j < m; j++)\n      A[i][j] = B[i][j] * 2;\n#pragma endscop\n}\n";
  PolycOptions o;
  o.parallel = true;
  o.tile.mode = TileOptions::Mode::kOff;
  std::string out = polyc(param, o).output;
  // Two versions: the fork only where it pays, and no OpenMP call at all elsewhere.
  EXPECT_NE(out.find("if ((long long)(n) * (long long)(m) >= 1048576) {\n    #pragma omp parallel for "
                     "num_threads(pz_polyc_team_size(omp_get_max_threads()))\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("} else {\n    for (int c0"), std::string::npos) << out;
  o.num_threads = "pz_threads";
  out = polyc(param, o).output;
  EXPECT_NE(out.find("#pragma omp parallel for num_threads(pz_polyc_team_size(pz_threads))\n"), std::string::npos) << out;
  const std::string small =
      "#define N 50\ndouble A[N][N], B[N][N];\nvoid f(void) {\n  int i, j;\n#pragma scop\n"
      "  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++)\n      A[i][j] = B[i][j] * 2;\n#pragma endscop\n}\n";
  o.num_threads.clear();
  out = polyc(small, o).output;
  EXPECT_EQ(out.find("omp parallel"), std::string::npos) << out;
  // The run-time clause compiles and runs (2 threads, sizes on either side of the limit).
  const std::string program =
      "#include <stdio.h>\n#include <stdlib.h>\n" + param +
      "int main(void) {\n  for (int n = 8; n <= 2048; n *= 16) {\n    double (*A)[n] = malloc(sizeof(double) * n * n), (*B)[n] = "
      "malloc(sizeof(double) * n * n);\n    for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) B[i][j] = i - j;\n"
      "    f(n, n, A, B);\n    double s = 0;\n    for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) s += A[i][j] * (i + 1);\n"
      "    printf(\"%d %.1f\\n\", n, s);\n    free(A); free(B);\n  }\n  return 0;\n}\n";
  const fs::path dir = fs::temp_directory_path() / ("pz_if_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  o.tile.mode = TileOptions::Mode::kOff;
  const std::string transformed = polyc(program, o).output;
  // A program: waiting threads sleep (one re-execution with OMP_WAIT_POLICY=passive).
  EXPECT_NE(transformed.find("setenv(\"OMP_WAIT_POLICY\", \"passive\""), std::string::npos) << transformed;
  EXPECT_EQ(polyc(param, o).output.find("setenv(\"OMP_WAIT_POLICY\""), std::string::npos);  // no main: a library
  auto ref = test_support::compile_and_run(dir, "ref", program, "-O2 -Wall -Wextra -Werror -Wno-unknown-pragmas -fopenmp");
  auto got = test_support::compile_and_run(dir, "got", transformed, "-O2 -Wall -Wextra -Werror -fopenmp");
  ASSERT_TRUE(ref.ok) << ref.error;
  ASSERT_TRUE(got.ok) << got.error;
  EXPECT_EQ(ref.output, got.output);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pz::poly

namespace pz::poly {
namespace {

PolycOptions full_options() {
  PolycOptions o;
  o.tile.mode = TileOptions::Mode::kAuto;
  o.tile.cache.l1 = 32 * 1024;
  o.tile.cache.l2 = 512 * 1024;
  o.parallel = o.vectorize = true;
  o.matmul.enabled = true;  // as the bench runs it
  o.data_movement = false;
  return o;
}

bool has_strided_loop(const std::string& code) {
  for (const char* step : {" += 8)", " += 16)", " += 32)", " += 64)", " += 128)", " += 256)", " += 1024)"})
    if (code.find(step) != std::string::npos) return true;
  return false;
}

// A 1-D stencil over 2000 points: 32 KB of arrays stay in L2, a sweep has 2000 instances:
// nothing is tiled and nothing forks.
TEST(PolycCostModel, SmallOneDimensionalStencilIsLeftAlone) {
  const std::string src =
      "#define T 500\n#define N 2000\ndouble A[N], B[N];\nvoid f(void) {\n  int t, i;\n#pragma scop\n"
      "  for (t = 0; t < T; t++) {\n    for (i = 1; i < N - 1; i++)\n      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);\n"
      "    for (i = 1; i < N - 1; i++)\n      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);\n  }\n#pragma endscop\n}\n";
  const PolycResult r = polyc(src, full_options());
  EXPECT_EQ(r.output.find("omp parallel"), std::string::npos) << r.output;
  EXPECT_FALSE(has_strided_loop(r.output)) << r.output;
  bool said = false;
  for (const auto& line : r.scops.at(0).passes) said = said || line.rfind("cost model: ", 0) == 0;
  EXPECT_TRUE(said);
}

// gemm at 1000^3: 24 MB of arrays, 10^9 instances: tiled (packed, matmul_packing.h) and parallel.
TEST(PolycCostModel, LargeGemmIsTiledAndParallel) {
  const std::string src =
      "#define N 1000\ndouble A[N][N], B[N][N], C[N][N];\nvoid f(void) {\n  int i, j, k;\n#pragma scop\n"
      "  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++)\n      for (k = 0; k < N; k++)\n"
      "        C[i][j] += A[i][k] * B[k][j];\n#pragma endscop\n}\n";
  const PolycResult r = polyc(src, full_options());
  EXPECT_NE(r.output.find("omp parallel"), std::string::npos) << r.output;
  EXPECT_TRUE(has_strided_loop(r.output)) << r.output;
  for (const auto& line : r.scops.at(0).passes) EXPECT_NE(line.rfind("cost model: ", 0), 0u) << line;
}

// The same gemm at 40^3 (38 KB, 64000 instances): neither tiles nor forks pay.
TEST(PolycCostModel, SmallGemmIsNeitherTiledNorParallel) {
  const std::string src =
      "#define N 40\ndouble A[N][N], B[N][N], C[N][N];\nvoid f(void) {\n  int i, j, k;\n#pragma scop\n"
      "  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++)\n      for (k = 0; k < N; k++)\n"
      "        C[i][j] += A[i][k] * B[k][j];\n#pragma endscop\n}\n";
  const PolycResult r = polyc(src, full_options());
  EXPECT_EQ(r.output.find("omp parallel"), std::string::npos) << r.output;
  EXPECT_FALSE(has_strided_loop(r.output)) << r.output;
}

}  // namespace
}  // namespace pz::poly
