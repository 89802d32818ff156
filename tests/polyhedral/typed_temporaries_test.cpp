// Every temporary polyc declares (reduction accumulators, expanded scalars and arrays,
// register blocks, packed slivers) has the type of what it stands for, as the program spells
// it (issue 51). PolyBench/C 4.2.1, a copy beside this file under its license, read as the
// file is written: DATA_TYPE is a macro from a header polyc does not read, so its temporaries
// are spelled `__typeof__(C[0][0])`. Each kernel goes through polyc with the command's
// options (--tile auto --parallel --vectorize), is compiled with gcc -O3 -fopenmp, run at
// MINI_DATASET on 1 and on 2 threads, and its array dump must agree with the unmodified
// program's, with double and with float (DATA_TYPE_IS_FLOAT) elements. Also: the same kernels
// after the preprocessor (named float temporaries), a typedef'd element type, and the
// declaration scan that decides what polyc knows by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/polyc_bench.h"
#include "polyhedral/codegen/busy_machine.h"
#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/frontend/preprocess.h"
#include "polyhedral/polyc.h"
#include "polyhedral/runtime/shell.h"
#include "tests/polyhedral/compile_run.h"

namespace pz::poly {
namespace {

namespace fs = std::filesystem;
using test_support::slurp;
using test_support::Workdir;

const fs::path kPolybench = PZ_POLYBENCH_DIR;

// As `polyzero polyc --tile auto --parallel --vectorize` sets them (apps/polyc_command.cpp).
PolycOptions command_options() {
  PolycOptions o;
  o.tile.mode = TileOptions::Mode::kAuto;
  o.tile.cache = CacheInfo::detect();
  o.parallel = o.vectorize = true;
  o.matmul.enabled = true;
  o.data_movement = false;
  return o;
}

struct ElementType {
  std::string name;   // double, float
  std::string flags;  // for PolyBench's headers
  double relative;    // reordered sums of MINI's values agree to this fraction
};
const ElementType kDouble{"double", "", 1e-9};
const ElementType kFloat{"float", " -DDATA_TYPE_IS_FLOAT", 2e-4};

// Values of two dumps that differ by more than their two printed decimals and, beyond that,
// by more than `relative` of their magnitude (sums reordered in the element type).
struct DumpDiff {
  long long wrong = 0, values = 0;
  std::string first;  // the first wrong pair, or why the dumps do not compare
};

DumpDiff compare_dumps(const std::string& expected, const std::string& actual, double relative) {
  std::istringstream a(expected), b(actual);
  DumpDiff d;
  for (std::string x, y;;) {
    const bool more_a = static_cast<bool>(a >> x), more_b = static_cast<bool>(b >> y);
    if (!more_a || !more_b) {
      if (more_a != more_b) d.first = "the dumps differ in length";
      break;
    }
    char *end_x = nullptr, *end_y = nullptr;
    const double vx = std::strtod(x.c_str(), &end_x), vy = std::strtod(y.c_str(), &end_y);
    if (*end_x || *end_y) {  // a word of the dump's frame
      if (x != y && d.first.empty()) d.first = x + " against " + y;
      continue;
    }
    ++d.values;
    const bool close = std::fabs(vx - vy) <= 0.0100001 + relative * std::max(std::fabs(vx), std::fabs(vy));
    if (close || (std::isnan(vx) && std::isnan(vy)) || x == y) continue;
    if (d.first.empty()) d.first = "value " + std::to_string(d.values) + ": " + x + " against " + y;
    ++d.wrong;
  }
  if (d.values == 0 && d.first.empty()) d.first = "no values";
  return d;
}

// Compiles `source` with PolyBench's runtime at MINI and runs it on each thread count: the
// dumps (stderr), or an error.
struct Runs {
  std::vector<std::string> dumps;
  std::string error;
};

Runs compile_and_dump(const fs::path& source, const fs::path& kernel_dir, const fs::path& polybench_o,
                      const std::string& optimisation, const ElementType& type, const std::vector<int>& threads) {
  const fs::path exe = source.parent_path() / (source.stem().string() + "_" + type.name);
  const fs::path log = exe.string() + ".log";
  const std::string compile = "gcc " + optimisation + " -fopenmp -DPZ_POLYC_FIXED_TEAM -DMINI_DATASET -DPOLYBENCH_DUMP_ARRAYS" +
                              type.flags + " -I" + shell_quote((kPolybench / "utilities").string()) + " -I" +
                              shell_quote(kernel_dir.string()) + " -o " + shell_quote(exe.string()) + " " +
                              shell_quote(source.string()) + " " + shell_quote(polybench_o.string()) + " -lm > " +
                              shell_quote(log.string()) + " 2>&1";
  Runs r;
  if (std::system(compile.c_str()) != 0) {
    r.error = "gcc failed: " + slurp(log).substr(0, 2000);
    return r;
  }
  for (int t : threads) {
    const fs::path dump = exe.string() + "." + std::to_string(t) + ".dump";
    const std::string run = "OMP_NUM_THREADS=" + std::to_string(t) + " OMP_WAIT_POLICY=PASSIVE timeout 60 " +
                            shell_quote(exe.string()) + " > /dev/null 2> " + shell_quote(dump.string());
    if (std::system(run.c_str()) != 0) {
      r.error = "the program failed on " + std::to_string(t) + " thread(s)";
      return r;
    }
    r.dumps.push_back(slurp(dump));
  }
  return r;
}

// Runs the jobs on a few threads (each one mostly waits for gcc or the program).
void run_all(const std::vector<std::function<void()>>& jobs) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t k; (k = next++) < jobs.size();) jobs[k]();
  };
  const unsigned n = std::clamp(std::thread::hardware_concurrency(), 2u, 4u);
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < n; ++i) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
}

fs::path compile_polybench_runtime(const fs::path& dir) {
  const fs::path o = dir / "polybench.o";
  const std::string cmd = "gcc -O2 -DPOLYBENCH_DUMP_ARRAYS -I" + shell_quote((kPolybench / "utilities").string()) + " -c -o " +
                          shell_quote(o.string()) + " " + shell_quote((kPolybench / "utilities" / "polybench.c").string());
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return o;
}

// One kernel through polyc, checked against the unmodified program for each element type.
struct Check {
  std::string kernel;  // as in utilities/benchmark_list
  std::vector<ElementType> types;
  // polyc's output for a type (the same text for every type when polyc reads no macros)
  std::function<std::string(const ElementType&)> transform;
  bool compare_values = true;
  // Whether the types after the first are run for this output (all when not given).
  std::function<bool(const std::string&)> runs_other_types;
  std::vector<std::string> code;  // per type
  std::string outcome;            // empty: every dump agreed
};

void check_kernel(Check& c, const fs::path& work, const fs::path& polybench_o) {
  const fs::path original = kPolybench / c.kernel;
  const fs::path dir = work / original.stem();
  fs::create_directories(dir);
  for (const ElementType& type : c.types) {
    const std::string where = original.stem().string() + " (" + type.name + "): ";
    try {
      c.code.push_back(c.transform(type));
    } catch (const std::exception& e) {
      c.outcome += where + "polyc: " + e.what() + "\n";
      return;
    }
    if (c.code.size() > 1 && c.runs_other_types && !c.runs_other_types(c.code.front())) return;
    const fs::path reference = dir / ("reference_" + type.name + ".c"), ours = dir / ("polyc_" + type.name + ".c");
    fs::copy_file(original, reference, fs::copy_options::overwrite_existing);
    std::ofstream(ours) << c.code.back();
    // -O0: the reference's values, not its speed, matter, and it compiles fast.
    const Runs want = compile_and_dump(reference, original.parent_path(), polybench_o, "-O0", type, {1});
    const Runs got = compile_and_dump(ours, original.parent_path(), polybench_o, "-O3 -march=native", type, {1, 2});
    if (!want.error.empty() || !got.error.empty()) {
      c.outcome += where + (want.error.empty() ? "polyc's " + got.error : "the original's " + want.error) + "\n";
      continue;
    }
    for (size_t k = 0; k < got.dumps.size() && c.compare_values; ++k) {
      const DumpDiff d = compare_dumps(want.dumps[0], got.dumps[k], type.relative);
      if (d.wrong > 0 || !d.first.empty())
        c.outcome += where + std::to_string(d.wrong) + " of " + std::to_string(d.values) + " values wrong on " +
                     std::to_string(k + 1) + " thread(s); " + d.first + "\n";
    }
  }
}

void check_all(std::vector<Check>& checks, const std::string& work_name) {
  Workdir work(work_name);
  const fs::path polybench_o = compile_polybench_runtime(work.path());
  std::vector<std::function<void()>> jobs;
  for (Check& c : checks) jobs.push_back([&c, &work, &polybench_o] { check_kernel(c, work.path(), polybench_o); });
  run_all(jobs);
  for (const Check& c : checks) EXPECT_EQ(c.outcome, "") << c.kernel;
}

const std::string& code_of(const std::vector<Check>& checks, const std::string& stem) {
  static const std::string none;
  for (const Check& c : checks)
    if (fs::path(c.kernel).stem() == stem && !c.code.empty()) return c.code.front();
  ADD_FAILURE() << "no output for " << stem;
  return none;
}

// The issue's three (465 of syrk's 910 values, 42 of atax's 52, 39 of mvt's 96 were wrong:
// `int pz_acc`) and the rest of the suite, as written and so with DATA_TYPE unresolved: one
// output serves both element types, run with float where it declares a temporary. adi's casts
// `(DATA_TYPE)_PB_N` are read as casts to a type polyc cannot name. gramschmidt's values are not compared: at MINI its
// last N - M columns divide rounding noise by norms of rounding noise, and the original itself
// prints other values there at -O3 -march=native than at -O0.
TEST(TypedTemporaries, PolyBenchAsWrittenMatchesTheUnmodifiedProgram) {
  std::vector<Check> checks;
  for (const std::string& kernel : bench::polybench_kernels(kPolybench.string())) {
    auto code = std::make_shared<std::string>();
    auto transform = [kernel, code](const ElementType&) {
      if (code->empty()) *code = polyc(slurp(kPolybench / kernel), command_options()).output;
      return *code;
    };
    auto declares_temporary = [](const std::string& code) { return code.find("__typeof__(") != std::string::npos; };
    checks.push_back({kernel, {kDouble, kFloat}, transform, fs::path(kernel).stem() != "gramschmidt", declares_temporary});
  }
  ASSERT_EQ(checks.size(), 30u);
  check_all(checks, "typed_polybench");
  for (const char* name : {"syrk", "atax", "mvt"}) {
    const std::string& code = code_of(checks, name);
    EXPECT_NE(code.find("__typeof__("), std::string::npos) << name << ":\n" << code;
    EXPECT_EQ(code.find("int pz_acc"), std::string::npos) << name << ":\n" << code;
  }
}

// After the preprocessor (polyc --cpp, or -D/-I) DATA_TYPE is a keyword: temporaries are
// declared by its name, here `float` (DATA_TYPE_IS_FLOAT).
TEST(TypedTemporaries, PreprocessedFloatKernelsDeclareFloat) {
  std::vector<Check> checks;
  for (const char* kernel : {"linear-algebra/blas/syrk/syrk.c", "linear-algebra/kernels/atax/atax.c",
                             "linear-algebra/kernels/mvt/mvt.c", "stencils/adi/adi.c"}) {
    auto transform = [kernel](const ElementType&) {
      const fs::path path = kPolybench / kernel;
      PreprocessOptions cpp;
      cpp.compiler = "gcc";
      cpp.flags = {"-I" + (kPolybench / "utilities").string(), "-DMINI_DATASET", "-DPOLYBENCH_DUMP_ARRAYS",
                   "-DDATA_TYPE_IS_FLOAT"};
      return polyc(slurp(path), preprocess_c_file(path.string(), cpp), command_options()).output;
    };
    checks.push_back({kernel, {kFloat}, transform, true, {}});
  }
  check_all(checks, "typed_polybench_cpp");
  for (const Check& c : checks) {
    ASSERT_FALSE(c.code.empty()) << c.kernel;
    EXPECT_EQ(c.code[0].find("__typeof__("), std::string::npos) << c.kernel << ":\n" << c.code[0];
    EXPECT_EQ(c.code[0].find("double pz_"), std::string::npos) << c.kernel << ":\n" << c.code[0];  // float
  }
  EXPECT_NE(code_of(checks, "syrk").find("float pz_acc"), std::string::npos) << code_of(checks, "syrk");
}

// A typedef polyc cannot resolve, beside scalars declared by keywords in the same parameter
// list: the accumulator and the expanded scalar take the element's type through __typeof__,
// and a float's sums stay float (a double temporary would differ in the low bits printed).
TEST(TypedTemporaries, TypedefElementTypeIsSpelledTypeof) {
  const std::string kernel =
      "#include <stdio.h>\n#define N 300\n#define M 200\ntypedef float real;\n"
      "static real A[N][M], x[M], y[N], B[N][M];\n"
      "static void kernel(int n, int m, real alpha) {\n  int i, j;\n  real t;\n#pragma scop\n"
      "  for (i = 0; i < n; i++) {\n    y[i] = 0;\n    for (j = 0; j < m; j++)\n      y[i] += alpha * A[i][j] * x[j];\n  }\n"
      "  for (i = 0; i < n; i++)\n    for (j = 0; j < m; j++) {\n      t = A[i][j] * 3;\n      B[i][j] = t * t + y[i];\n    }\n"
      "#pragma endscop\n}\n"
      "int main(void) {\n  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) A[i][j] = (real)((i * 7 + j * 3) % 17) / 7;\n"
      "  for (int j = 0; j < M; j++) x[j] = (real)(j % 5) / 3;\n  kernel(N, M, (real)1.1);\n"
      "  for (int i = 0; i < N; i++) printf(\"%.9g\\n\", (double)y[i]);\n"
      "  for (int i = 0; i < N; i += 7) for (int j = 0; j < M; j += 5) printf(\"%.9g\\n\", (double)B[i][j]);\n  return 0;\n}\n";
  const std::string code = polyc(kernel, command_options()).output;
  EXPECT_NE(code.find("__typeof__(y[0]) pz_acc"), std::string::npos) << code;
  EXPECT_NE(code.find("__typeof__(t) pz_t[300];"), std::string::npos) << code;  // t expanded along i
  EXPECT_EQ(local_array_bytes(code), 300 * 8);  // mapped on each thread's stack: 8 bytes for a type without a name
  for (const char* guessed : {"double pz_acc", "int pz_acc", "float pz_acc", "double pz_t", "float pz_t"})
    EXPECT_EQ(code.find(guessed), std::string::npos) << code;
  Workdir dir("typed_typedef");
  const auto want = test_support::compile_and_run(dir.path(), "want", kernel, "-O1");
  const auto got = test_support::compile_and_run(dir.path(), "got", code, "-O3 -march=native -fopenmp -Wall -Werror");
  ASSERT_TRUE(want.ok) << want.error;
  ASSERT_TRUE(got.ok) << got.error << "\n" << code;
  const DumpDiff d = compare_dumps(want.output, got.output, kFloat.relative);
  EXPECT_EQ(d.wrong, 0) << d.first;
}

// What the scan knows by name: a declaration of type keywords only; nothing from a typedef,
// a macro, or an expression that merely mentions a name.
TEST(TypedTemporaries, DeclarationScanNamesOnlyKeywordTypes) {
  const std::string src =
      "typedef double real;\nlong double L[8];\nunsigned long long U[8];\nstatic const float F[8], *G;\n"
      "double g(double a, double b);\n"
      "void f(int n, int m, DATA_TYPE alpha, DATA_TYPE POLYBENCH_2D(C, N, N, n, n), real R[8], double (*P)[8]) {\n"
      "  int i, j;\n  double s = g(U[0], L[0]), w;\n  i = (int) G[0];\n"
      "#pragma scop\n  for (i = 0; i < n; i++)\n    for (j = 0; j < m; j++)\n"
      "      C[i][j] += alpha * L[i] * U[j] * F[i] * G[j] * R[i] * P[i][j] + s * w;\n#pragma endscop\n}\n";
  const auto regions = parse_c_regions(src);
  ASSERT_EQ(regions.size(), 1u);
  const auto& types = regions[0].options.element_types;
  auto type_of = [&](const std::string& name) { return types.count(name) ? types.at(name) : "<none>"; };
  EXPECT_EQ(type_of("L"), "long double");
  EXPECT_EQ(type_of("U"), "unsigned long long");
  EXPECT_EQ(type_of("F"), "float");
  EXPECT_EQ(type_of("G"), "float");
  EXPECT_EQ(type_of("P"), "double");
  EXPECT_EQ(type_of("s"), "double");
  EXPECT_EQ(type_of("w"), "double");
  EXPECT_EQ(type_of("n"), "");  // also an argument of POLYBENCH_2D: not known
  for (const char* unknown : {"alpha", "C", "R"}) EXPECT_EQ(type_of(unknown), "") << unknown;
}

}  // namespace
}  // namespace pz::poly
