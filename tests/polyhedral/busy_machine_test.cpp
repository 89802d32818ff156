// What polyc's output does on a busy machine (polyhedral/codegen/busy_machine.h): where the team size
// helper goes, that it compiles as C and C++ without warnings, the team it picks from a
// runnable count it is given (a file standing in for /proc/loadavg), and the stack a
// program's threads start with.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "polyhedral/codegen/busy_machine.h"
#include "polyhedral/polyc.h"
#include "tests/polyhedral/compile_run.h"

namespace pz::poly {
namespace {

namespace fs = std::filesystem;

PolycOptions parallel_options() {
  PolycOptions o;
  o.parallel = true;
  o.min_parallel_work = 0;
  o.tile.mode = TileOptions::Mode::kOff;
  return o;
}

const char* kTwoFunctions =
    "#include <stdio.h>\n#define N 64\nstatic double A[N][N], B[N][N];\n\n"
    "static void scale(void) {\n  int i, j;\n#pragma scop\n"
    "  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++)\n      A[i][j] = B[i][j] * 2;\n#pragma endscop\n}\n\n"
    "/* sums the rows */\nstatic void\nshift(void) {\n  int i, j;\n#pragma scop\n"
    "  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++)\n      B[i][j] = A[i][j] + 1;\n#pragma endscop\n"
    "#pragma scop\n  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++)\n      A[i][j] = B[i][j] - A[i][j];\n#pragma endscop\n}\n\n"
    "int main(void) {\n  int i, j;\n  double s = 0;\n  for (i = 0; i < N; i++) for (j = 0; j < N; j++) B[i][j] = i - j;\n"
    "  scale();\n  shift();\n  for (i = 0; i < N; i++) for (j = 0; j < N; j++) s += A[i][j] * (i + 1);\n"
    "  printf(\"%.1f\\n\", s);\n  return 0;\n}\n";

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(TeamSize, TheHelperPrecedesEachFunctionWhoseLoopsCallIt) {
  const std::string out = polyc(kTwoFunctions, parallel_options()).output;
  EXPECT_EQ(count(out, "num_threads(pz_polyc_team_size(omp_get_max_threads()))"), 3u) << out;
  EXPECT_EQ(count(out, "#define PZ_POLYC_TEAM_SIZE\n"), 2u) << out;  // one guarded copy per function
  const size_t first = out.find("#ifndef PZ_POLYC_TEAM_SIZE"), second = out.find("#ifndef PZ_POLYC_TEAM_SIZE", first + 1);
  EXPECT_LT(out.find("#include <stdio.h>"), first);
  EXPECT_LT(first, out.find("static void scale(void)"));
  EXPECT_LT(out.find("/* sums the rows */"), second);  // the declaration's first token, after its comment
  EXPECT_LT(second, out.find("static void\nshift(void)"));
  EXPECT_LT(out.find("static void\nshift(void)"), out.find("#pragma omp parallel", second));

  PolycOptions fixed = parallel_options();
  fixed.adaptive_team = false;
  const std::string plain = polyc(kTwoFunctions, fixed).output;
  EXPECT_FALSE(uses_team_size(plain)) << plain;
  EXPECT_EQ(plain.find("PZ_POLYC_TEAM_SIZE"), std::string::npos) << plain;
  PolycOptions sequential = parallel_options();
  sequential.parallel = false;
  EXPECT_EQ(polyc(kTwoFunctions, sequential).output.find("PZ_POLYC_TEAM_SIZE"), std::string::npos);
}

TEST(TeamSize, OutputCompilesAsCAndCxxWithoutWarningsAndComputesTheSame) {
  const std::string out = polyc(kTwoFunctions, parallel_options()).output;
  test_support::Workdir dir("team_size_compile");
  const auto ref = test_support::compile_and_run(dir.path(), "ref", kTwoFunctions, "-O2 -Wall -Wextra -Werror -Wno-unknown-pragmas");
  ASSERT_TRUE(ref.ok) << ref.error;
  for (const std::string flags : {"-O2 -Wall -Wextra -Werror -fopenmp", "-O2 -Wall -Wextra -Werror -fopenmp -std=c99",
                                  "-O2 -Wall -Wextra -Werror -fopenmp -x c++"}) {
    const auto got = test_support::compile_and_run(dir.path(), "got", out, flags + " -UPZ_POLYC_FIXED_TEAM");
    ASSERT_TRUE(got.ok) << flags << ": " << got.error;
    EXPECT_EQ(ref.output, got.output) << flags;
  }
}

// Runs the helper as generated, with `loadavg` as /proc/loadavg's text and `env` before the
// command; returns what it printed: pz_polyc_team_size(r) for r = 1, 2, 3, 64.
std::string teams(const fs::path& dir, const std::string& loadavg, const std::string& env, const std::string& flags = "") {
  std::ofstream(dir / "loadavg") << loadavg;
  const std::string program = std::string("#include <stdio.h>\n") + kTeamSizeHelper +
                              "int main(void) {\n  printf(\"%d %d %d %d\", pz_polyc_team_size(1), pz_polyc_team_size(2), "
                              "pz_polyc_team_size(3), pz_polyc_team_size(64));\n  return 0;\n}\n";
  std::ofstream(dir / "teams.c") << program;
  const std::string exe = (dir / "teams").string(), out = (dir / "teams.out").string();
  const std::string compile = "gcc -O1 -Wall -Wextra -Werror -fopenmp " + flags + " -DPZ_POLYC_LOADAVG='\"" +
                              (dir / "loadavg").string() + "\"' -o " + exe + " " + (dir / "teams.c").string();
  if (std::system(compile.c_str()) != 0) return "compile failed";
  if (std::system(("env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT " + env + " " + exe + " > " + out).c_str()) != 0) return "run failed";
  return test_support::slurp(out);
}

TEST(TeamSize, LeavesOutTheCoresOtherWorkKeepsBusy) {
  test_support::Workdir dir("team_size_load");
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  ASSERT_GE(online, 1);
  auto line = [](long runnable) { return "0.50 0.40 0.30 " + std::to_string(runnable) + "/345 6789\n"; };
  auto expect = [&](long idle) {
    auto team = [&](long r) { return std::to_string(std::max(1L, std::min(r, idle))); };
    return "1 " + team(2) + " " + team(3) + " " + team(64);
  };
  // Only the caller runs: the requested team, up to the cores there are.
  EXPECT_EQ(teams(dir.path(), line(1), "OMP_WAIT_POLICY=passive"), expect(online));
  // One other runnable thread: one core fewer.
  EXPECT_EQ(teams(dir.path(), line(2), "OMP_WAIT_POLICY=PASSIVE"), expect(online - 1));
  // Every core busy with other work: one thread, never none.
  EXPECT_EQ(teams(dir.path(), line(online + 5), "GOMP_SPINCOUNT=0"), "1 1 1 1");
  // Spinning threads of the program's own would count as load: the requested team.
  EXPECT_EQ(teams(dir.path(), line(online + 5), ""), "1 2 3 64");
  EXPECT_EQ(teams(dir.path(), line(online + 5), "OMP_WAIT_POLICY=active"), "1 2 3 64");
  // Unreadable counts, and the compile-time switch: the requested team.
  EXPECT_EQ(teams(dir.path(), "garbage\n", "OMP_WAIT_POLICY=passive"), "1 2 3 64");
  EXPECT_EQ(teams(dir.path(), line(online + 5), "OMP_WAIT_POLICY=passive", "-DPZ_POLYC_FIXED_TEAM"), "1 2 3 64");
}

TEST(StartUp, LocalArrayBytesSumsTheArraysPolycDeclares) {
  const std::string code =
      "{\n  double pz_packed_left0[16128] __attribute__((aligned(64)));\n  float pz_rb[4][16];\n"
      "  unsigned char pz_flags[100]; long long pz_count[3];\n  double B[1000];\n  double *pz_pointer;\n"
      "  pz_rb[1][2] = 0;\n  double pz_sum[n];\n  return pz_count[2];\n}\n";
  EXPECT_EQ(local_array_bytes(code), 16128 * 8 + 4 * 16 * 4 + 100 + 3 * 8);
  EXPECT_EQ(local_array_bytes("for (i = 0; i < n; i++) A[i] = 0;\n"), 0);
  // Absurd extents saturate instead of overflowing; the hook maps at most the stack.
  EXPECT_EQ(local_array_bytes("double pz_huge[123456789012345678901234567890];\n"),
            local_array_bytes("double pz_huge[4000000000][4000000000][4000000000];\n"));
  EXPECT_GT(local_array_bytes("double pz_huge[4000000000][4000000000];\n"), 1LL << 36);
}

TEST(StartUp, TheHookIsSizedForTheLargestFunctionsArrays) {
  const std::string hooks = start_up_hooks(100000);
  EXPECT_NE(hooks.find("#define PZ_POLYC_STACK_BYTES 165536L\n"), std::string::npos) << hooks;
  EXPECT_NE(start_up_hooks(0).find("#define PZ_POLYC_STACK_BYTES 65536L\n"), std::string::npos);

  // A packed contraction's slivers are the output's local arrays.
  const std::string gemm =
      "#include <stdio.h>\n#define N 256\nstatic double A[N][N], B[N][N], C[N][N];\n"
      "static void gemm(void) {\n  int i, j, k;\n#pragma scop\n  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++)\n"
      "      for (k = 0; k < N; k++)\n        C[i][j] += A[i][k] * B[k][j];\n#pragma endscop\n}\n"
      "int main(void) {\n  gemm();\n  printf(\"%f\\n\", C[1][2]);\n  return 0;\n}\n";
  PolycOptions o;
  o.parallel = true;
  o.vectorize = true;
  o.matmul.enabled = true;
  const std::string out = polyc(gemm, o).output;
  const long long arrays = local_array_bytes(out);
  EXPECT_GE(arrays, 64 * 1024) << out;  // an m_c x k_c block of A at least
  EXPECT_NE(out.find("#define PZ_POLYC_STACK_BYTES " + std::to_string(arrays + 65536) + "L\n"), std::string::npos) << out;
}

// Page faults of a parallel region whose threads each touch a 512 KiB local array, in a
// program that starts with the hooks sized for it: none left for the region (its threads'
// stacks were mapped at start-up), against one a page per thread without the hook.
TEST(StartUp, ThreadsStartWithTheirLocalArraysMapped) {
  if (std::getenv("OMP_STACKSIZE") || std::getenv("GOMP_STACKSIZE"))
    GTEST_SKIP() << "OMP_STACKSIZE or GOMP_STACKSIZE is set: the hook then maps 64 KiB only";
  const std::string program = std::string("#include <stdio.h>\n#include <sys/resource.h>\n") +
                              "int main(void) {\n  struct rusage before, after;\n  getrusage(RUSAGE_SELF, &before);\n"
                              "  #pragma omp parallel\n  {\n    volatile char pz_local[524288];\n    long at;\n"
                              "    for (at = 0; at < (long)sizeof pz_local; at += 4096) pz_local[at] = 1;\n  }\n"
                              "  getrusage(RUSAGE_SELF, &after);\n  printf(\"%ld\", after.ru_minflt - before.ru_minflt);\n"
                              "  return 0;\n}\n" + start_up_hooks(524288);
  test_support::Workdir dir("start_up_stack");
  const auto mapped = test_support::compile_and_run(dir.path(), "mapped", program, "-O1 -Wall -Wextra -Werror -fopenmp");
  const auto cold = test_support::compile_and_run(dir.path(), "cold", program, "-O1 -fopenmp -DPZ_POLYC_NO_THREAD_START");
  ASSERT_TRUE(mapped.ok) << mapped.error;
  ASSERT_TRUE(cold.ok) << cold.error;
  const long page = ::sysconf(_SC_PAGESIZE);
  EXPECT_GE(std::stol(cold.output), 524288 / page) << "without the hook, the first touch of each page faults";
  EXPECT_LE(std::stol(mapped.output), 8) << "with it, the pages were mapped before main";

  // Threads whose stacks are smaller than the hook's size map what they hold, no more.
  const std::string small = std::string("#include <stdio.h>\nint main(void) {\n  int threads = 0;\n") +
                            "  #pragma omp parallel\n  {\n    #pragma omp atomic\n    threads++;\n  }\n"
                            "  printf(\"%d\", threads);\n  return 0;\n}\n" + start_up_hooks(64LL << 20);
  std::ofstream(dir.path() / "small.c") << small;
  const std::string exe = (dir.path() / "small").string(), out = (dir.path() / "small.out").string();
  ASSERT_EQ(std::system(("gcc -O1 -Wall -Wextra -Werror -fopenmp -o " + exe + " " + (dir.path() / "small.c").string()).c_str()), 0);
  for (const std::string env : {"OMP_STACKSIZE=256K", "OMP_STACKSIZE=300000B", "GOMP_STACKSIZE=512"}) {
    ASSERT_EQ(std::system(("env -u OMP_STACKSIZE -u GOMP_STACKSIZE " + env + " OMP_NUM_THREADS=2 " + exe + " > " + out).c_str()), 0)
        << env;
    EXPECT_EQ(test_support::slurp(out), "2") << env;
  }
}

}  // namespace
}  // namespace pz::poly
