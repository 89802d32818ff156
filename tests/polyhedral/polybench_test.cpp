// `bench polyc --suite polybench` on PolyBench/C 4.2.1 ($POLYBENCH_DIR, else the copy beside
// this file): polyc's dumps checked against gcc -O3's at every dataset it times, a wrong kernel
// refused (the whole suite's correctness matrix is polybench_matrix_test.cpp). Also the pieces
// that path needs, on small inputs: chained assignments, regions parsed after the
// preprocessor, run-time versions of parallel loops, passive waiting in standalone programs,
// the cost model on known cases.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

#include "bench/polyc_bench.h"
#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/frontend/frontend_error.h"
#include "polyhedral/frontend/preprocess.h"
#include "polyhedral/polyc.h"
#include "tests/polyhedral/compile_run.h"

namespace pz::poly {
namespace {

namespace fs = std::filesystem;

// The suite: $POLYBENCH_DIR when set, else the copy beside this file.
std::string suite_dir() {
  const char* dir = std::getenv("POLYBENCH_DIR");
  return dir && *dir ? dir : PZ_POLYBENCH_DIR;
}

// `bench polyc --suite polybench` on the suite, these datasets, kernels and variants.
bench::PolycBenchOptions suite_options(std::vector<std::string> datasets, std::vector<std::string> kernels,
                                       std::vector<std::string> variants, int repeats) {
  bench::PolycBenchOptions o;
  o.suite = "polybench";
  o.polybench_dir = suite_dir();
  o.datasets = std::move(datasets);
  o.kernels = std::move(kernels);
  o.variants = std::move(variants);
  o.repeats = repeats;
  return o;
}

// `bench polyc --suite polybench` compares every polyc variant's dump with gcc -O3's at every
// dataset it times (the correctness matrix of the whole suite is polybench_matrix_test.cpp).
// Here at MINI and SMALL, strict (polyc --no-reassociate matching gcc -ffp-contract=off word for
// word): right kernels are timed, with a speedup.
TEST(PolyBench, BenchChecksEveryDatasetItTimes) {
  bench::PolycBenchOptions o = suite_options({"MINI", "SMALL"}, {"atax", "syrk", "mvt"}, {"gcc", "polyc-1t", "polyc"}, 1);
  o.threads = 2;
  o.strict = true;
  o.timeout_seconds = 60;
  if (std::getenv("PZ_TEST_PROGRESS"))
    o.progress = [](const std::string& line) {
      std::fprintf(stderr, "[%.1f] %s\n", std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(), line.c_str());
    };
  const bench::PolycBenchResult r = bench::run_polyc_bench(o);
  ASSERT_EQ(r.kernels.size(), 6u);
  for (const auto& k : r.kernels) {
    for (const char* v : {"gcc", "polyc-1t", "polyc"}) {
      const bench::VariantRun* run = k.run(v);
      ASSERT_NE(run, nullptr) << k.kernel << " " << k.dataset << " " << v;
      EXPECT_TRUE(run->ok) << k.kernel << " " << k.dataset << " " << v << ": " << run->error;
    }
    EXPECT_GT(k.speedup_over("gcc"), 0) << k.kernel << " " << k.dataset;
  }
  EXPECT_TRUE(r.polyc_ok);
}

// A kernel whose dump polyc's build changes (its program prints one more value when compiled
// with OpenMP, as polyc's output is) is WRONG at every dataset: no time, no speedup, left out
// of the means, and the run fails (the command exits non-zero on polyc_ok == false).
TEST(PolyBench, BenchRefusesToTimeAWrongKernel) {
  const fs::path suite = suite_dir();
  const fs::path dir = fs::temp_directory_path() / ("pz_pb_wrong_" + std::to_string(::getpid()));
  const fs::path kernel_dir = dir / "stencils" / "jacobi-1d";
  fs::create_directories(dir / "utilities");
  fs::create_directories(kernel_dir);
  for (const char* f : {"polybench.h", "polybench.c"}) fs::copy_file(suite / "utilities" / f, dir / "utilities" / f);
  std::ofstream(dir / "utilities" / "benchmark_list") << "./stencils/jacobi-1d/jacobi-1d.c\n";
  fs::copy_file(suite / "stencils" / "jacobi-1d" / "jacobi-1d.h", kernel_dir / "jacobi-1d.h");
  std::string source = test_support::slurp(suite / "stencils" / "jacobi-1d" / "jacobi-1d.c");
  const std::string begin = "POLYBENCH_DUMP_BEGIN(\"A\");";
  ASSERT_NE(source.find(begin), std::string::npos);
  source.replace(source.find(begin), begin.size(),
                 begin + "\n#ifdef _OPENMP\n  fprintf(POLYBENCH_DUMP_TARGET, \"7.00 \");\n#endif\n");
  std::ofstream(kernel_dir / "jacobi-1d.c") << source;
  bench::PolycBenchOptions o;
  o.suite = "polybench";
  o.polybench_dir = dir.string();
  o.datasets = {"MINI", "SMALL"};
  o.variants = {"gcc", "polyc-1t", "polyc"};
  o.repeats = 1;
  o.timeout_seconds = 60;
  const bench::PolycBenchResult r = bench::run_polyc_bench(o);
  EXPECT_FALSE(r.polyc_ok);
  ASSERT_EQ(r.kernels.size(), 2u);
  for (const auto& k : r.kernels) {
    ASSERT_NE(k.run("gcc"), nullptr);
    EXPECT_TRUE(k.run("gcc")->ok) << k.run("gcc")->error;
    for (const char* v : {"polyc-1t", "polyc"}) {
      const bench::VariantRun* run = k.run(v);
      ASSERT_NE(run, nullptr) << k.dataset << " " << v;
      EXPECT_FALSE(run->ok) << k.dataset << " " << v;
      EXPECT_NE(run->error.find("output differs"), std::string::npos) << k.dataset << " " << v << ": " << run->error;
      EXPECT_EQ(k.speedup_over("gcc", v), 0) << k.dataset << " " << v;
    }
  }
  const std::string table = bench::format_polyc_table(r);
  size_t wrong = 0;  // in the kernel's rows
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("jacobi-1d ", 0) == 0)
      for (size_t at = line.find(" WRONG"); at != std::string::npos; at = line.find(" WRONG", at + 1)) ++wrong;
  EXPECT_EQ(wrong, 4u) << table;  // polyc-1t and polyc, at MINI and at SMALL
  EXPECT_NE(table.find("POLYC FAILED OR GAVE WRONG OUTPUT"), std::string::npos) << table;
  EXPECT_EQ(table.find("x ("), std::string::npos) << table;  // no geometric mean over a wrong kernel
  const std::string json = bench::format_polyc_json(r);
  EXPECT_EQ(json.find("\"speedup_over\""), std::string::npos) << json;
  EXPECT_EQ(json.find("\"speedup_1t_over\""), std::string::npos) << json;
  fs::remove_all(dir);
}

// Repeats run round by round over the variants; each variant's time is the median of its runs.
TEST(PolyBench, RepeatsAreInterleavedAndSummarised) {
  bench::PolycBenchOptions o = suite_options({"MINI"}, {"jacobi-1d"}, {"gcc", "polyc-1t"}, 3);
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

// A dataset between two of PolyBench's: gesummv's N is 30 at MINI and 90 at SMALL, so
// MINI-SMALL builds every variant with N = 61 (the smallest prime at or above 60), checked
// in the dump of y. Datasets out of order are refused.
TEST(PolyBench, DatasetBetweenTwoTakesPrimeSizes) {
  const fs::path dir = fs::temp_directory_path() / ("pz_pb_between_" + std::to_string(::getpid()));
  bench::PolycBenchOptions o = suite_options({"mini-small"}, {"gesummv"}, {"gcc", "polyc-1t"}, 1);
  o.work_dir = dir.string();
  const bench::PolycBenchResult r = bench::run_polyc_bench(o);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].dataset, "MINI-SMALL");
  for (const auto& run : r.kernels[0].runs) EXPECT_TRUE(run.ok) << run.variant << ": " << run.error;
  std::ifstream dump(dir / "MINI-SMALL" / "gesummv" / "gcc.dump");
  std::string word;
  int values = 0;
  while (dump >> word)
    if (word == "y") break;
  while (dump >> word && word != "end") ++values;
  EXPECT_EQ(values, 61);
  fs::remove_all(dir);
  o.work_dir.clear();
  o.datasets = {"SMALL-MINI"};
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
  o.keep_source_without_gain = false;  // the generated code, not the region as written
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
  o.keep_source_without_gain = false;  // the generated code, not the region as written
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

// deriche with constant sizes (64 x 64 through PolyBench's scalar bounds): isl's fallback
// scheduler linearises its recurrences into one loop (3969i + 63j under modulo tests, 60x
// slower than gcc -O3); polyc rejects a coefficient above max_coefficient for the source
// order (transform/scheduler.cpp).
TEST(PolycSchedule, ConstantExtentsAreNotLinearised) {
  const fs::path kernel = fs::path(suite_dir()) / "medley/deriche/deriche.c";
  PreprocessOptions cpp;
  cpp.flags = {"-I" + (fs::path(suite_dir()) / "utilities").string(), "-DMINI_DATASET", "-DPOLYBENCH_USE_SCALAR_LB"};
  std::ifstream in(kernel);
  const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const PolycResult r = polyc(source, preprocess_c_file(kernel.string(), cpp), full_options());
  const size_t begin = r.output.find("kernel_deriche");
  ASSERT_NE(begin, std::string::npos);
  const std::string code = r.output.substr(begin, r.output.find("int main") - begin);
  EXPECT_EQ(code.find("3969"), std::string::npos) << code;
  EXPECT_EQ(code.find(" % 63"), std::string::npos) << code;
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
