// Random affine loop nests through polyc: each case is a random program (1-3 statements in
// nests of depth 1-3, affine bounds depending on outer iterators, affine conditions, affine
// subscripts on four arrays, unsigned arithmetic so that every result is defined and exact)
// run through polyc with random options. For each case:
//   - no pass was undone (an illegal step would be a bug in that pass, even if caught),
//   - the final schedule, read back from polyc's report, respects every dependence of the
//     program (recomputed in a fresh isl context) and every loop marked parallel carries
//     none,
//   - original and output, compiled with gcc (output with -Wall -Wextra -Werror) and run
//     with 2 OpenMP threads, print identical arrays.
// Fixed seed; PZ_POLY_FUZZ_CASES=<n> runs more cases, PZ_POLY_FUZZ_SEED=<s> another
// sequence. A failure prints the program and the options, which reproduce it.
#include <gtest/gtest.h>

#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "polyhedral/analysis/dependences.h"
#include "polyhedral/analysis/legality.h"
#include "polyhedral/frontend/builder.h"
#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/polyc.h"
#include "polyhedral/transform/parallel_marks.h"
#include "tests/polyhedral/compile_run.h"

namespace pz::poly {
namespace {

namespace fs = std::filesystem;

// Iterators stay within [-1, 11] (N <= 9, bounds at most outer + 2), so subscripts of two
// iterators with coefficients in {-2..2} plus a constant in [-2, 2] stay within ±46;
// arrays of 100 with an offset of 48 are never indexed out of bounds.
constexpr int kExtent = 100;
constexpr int kOffset = 48;

class ProgramGen {
 public:
  // `always_symbolic`: N is a variable in every program (else in one of four), so that
  // polyc's run-time version guards are exercised.
  explicit ProgramGen(std::uint64_t seed, bool always_symbolic = false) : rng_(seed), always_symbolic_(always_symbolic) {}

  std::string program() {
    n_ = pick(3, 9);
    symbolic_n_ = pick(0, 3) == 0 || always_symbolic_;
    stmts_left_ = pick(1, 3);
    std::string body;
    while (stmts_left_ > 0) body += nest(0, pick(1, 3), "  ");
    std::ostringstream p;
    p << "#include <stdio.h>\n";
    if (!symbolic_n_) p << "#define N " << n_ << "\n";
    p << "#define min(a, b) ((a) < (b) ? (a) : (b))\n#define max(a, b) ((a) > (b) ? (a) : (b))\n";
    p << "static unsigned A[" << kExtent << "][" << kExtent << "], B[" << kExtent << "], C[" << kExtent << "]["
      << kExtent << "], D[" << kExtent << "];\n";
    p << "int main(void) {\n  int i, j, k;\n";
    if (symbolic_n_) p << "  int N = " << n_ << ";\n";
    p << "  for (int x = 0; x < " << kExtent << "; x++) {\n"
      << "    B[x] = (unsigned)(x * 7 + 3) % 23u;\n    D[x] = (unsigned)(x * 5 + 1) % 19u;\n"
      << "    for (int y = 0; y < " << kExtent << "; y++) {\n"
      << "      A[x][y] = (unsigned)(x * 13 + y * 7 + 1) % 31u;\n"
      << "      C[x][y] = (unsigned)(x * 3 + y * 11 + 5) % 29u;\n    }\n  }\n";
    p << "#pragma scop\n" << body << "#pragma endscop\n";
    p << "  (void)i; (void)j; (void)k;\n";
    p << "  for (int x = 0; x < " << kExtent << "; x++) {\n    printf(\"%u %u\\n\", B[x], D[x]);\n"
      << "    for (int y = 0; y < " << kExtent << "; y++) printf(\"%u %u\\n\", A[x][y], C[x][y]);\n  }\n";
    p << "  return 0;\n}\n";
    return p.str();
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return pick(1, 100) <= percent; }

  // A loop at `level` (iterator i, j or k) whose nest is `depth` deep, with statements at
  // its innermost level and, sometimes, before or after the inner loop.
  std::string nest(int level, int depth, const std::string& ind) {
    static const char* names[] = {"i", "j", "k"};
    const std::string it = names[level];
    std::string lo = "0", hi = "N";
    if (level > 0 && chance(50)) {
      const std::string outer = names[pick(0, level - 1)];
      switch (pick(0, 4)) {
        case 0: lo = outer; break;
        case 1: lo = outer + " - 1"; break;
        case 2: hi = outer + " + 1"; break;
        case 3: hi = outer + " + 2"; break;
        default: hi = "min(N, " + outer + " + 2)"; break;
      }
    } else if (chance(20)) {
      lo = "1";
    }
    std::string head;
    if (chance(12)) {  // a decreasing loop over the same values
      head = "for (" + it + " = " + hi + " - 1; " + it + " >= " + lo + "; " + it + "--)";
    } else {
      head = "for (" + it + " = " + lo + "; " + it + " < " + hi + "; " + it + (chance(12) ? " += 2)" : "++)");
    }
    iters_.push_back(it);
    std::string body;
    const bool innermost = level + 1 >= depth;
    if (!innermost && stmts_left_ > 1 && chance(30)) body += stmt(ind + "  ");
    if (innermost) {
      body += stmt(ind + "  ");
      if (stmts_left_ > 0 && chance(25)) body += stmt(ind + "  ");
    } else {
      body += nest(level + 1, depth, ind + "  ");
    }
    if (!innermost && stmts_left_ > 0 && chance(20)) body += stmt(ind + "  ");
    iters_.pop_back();
    return ind + head + " {\n" + body + ind + "}\n";
  }

  std::string subscript() {
    std::string s;
    int used = 0;
    for (const auto& it : iters_) {
      if (used == 2 || !chance(60)) continue;
      int c = pick(-2, 2);
      if (c == 0) continue;
      if (c == 2 && !chance(30)) c = 1;
      if (c == -2 && !chance(30)) c = -1;
      s += (c < 0 ? " - " : " + ") + (std::abs(c) == 1 ? "" : std::to_string(std::abs(c)) + " * ") + it;
      ++used;
    }
    int k = kOffset + pick(-2, 2);
    return std::to_string(k) + s;
  }

  std::string access(char array) {
    if (array == 'B' || array == 'D') return std::string(1, array) + "[" + subscript() + "]";
    return std::string(1, array) + "[" + subscript() + "][" + subscript() + "]";
  }

  std::string term() {
    switch (pick(0, 5)) {
      case 0: return std::to_string(pick(1, 9)) + "u";
      case 1: return iters_.empty() ? "1u" : "(unsigned)" + iters_[pick(0, static_cast<int>(iters_.size()) - 1)];
      default: return access("ABCD"[pick(0, 3)]);
    }
  }

  std::string stmt(const std::string& ind) {
    --stmts_left_;
    static const char* ops[] = {"=", "+=", "-=", "=", "+="};
    static const char* bin[] = {" + ", " - ", " * "};
    std::string rhs = term();
    for (int n = pick(0, 2); n > 0; --n) rhs += bin[pick(0, 2)] + term();
    std::string s = access("ABCD"[pick(0, 3)]) + " " + ops[pick(0, 4)] + " " + rhs + ";";
    if (!iters_.empty() && chance(15)) {
      const std::string& a = iters_[pick(0, static_cast<int>(iters_.size()) - 1)];
      const std::string& b = iters_[pick(0, static_cast<int>(iters_.size()) - 1)];
      std::string cond = chance(50) ? a + " + " + b + " < N" : a + " >= " + std::to_string(pick(1, 3));
      return ind + "if (" + cond + ")\n" + ind + "  " + s + "\n";
    }
    return ind + s + "\n";
  }

  std::mt19937_64 rng_;
  int n_ = 5;
  bool symbolic_n_ = false;
  bool always_symbolic_ = false;
  int stmts_left_ = 0;
  std::vector<std::string> iters_;
};

// Programs whose element types polyc cannot name or must keep exactly: the element type of
// S, X and Y spelled by a keyword, a typedef or a macro (float, double, int or long long, values
// that every order of the sums adds exactly), and, each at random:
//   - a mixed int/float reduction: I[i] += F[i][k], an int updated by floats of both signs,
//     so each step truncates toward zero and no reordering keeps the result; I and F spelled
//     by keywords, by two typedefs or by two macros (two names polyc cannot resolve);
//   - an overflow-sensitive sum: unsigned short H[i] += U[i][k] * 251u wraps at 2^16 and is
//     read back (Q[i] = H[i] % 97u), so a wider accumulator shows;
//   - a long long sum of products past 2^32: L[i] += (long long)U[i][k] * 4099, so a 32-bit
//     accumulator shows.
class TypedProgramGen {
 public:
  explicit TypedProgramGen(std::uint64_t seed) : rng_(seed) {}

  std::string program() {
    static const char* types[] = {"float", "double", "int", "long long"};
    const std::string type = types[pick(0, 3)];
    const int spelling = pick(0, 2);  // keyword, typedef, macro
    const std::string name = spelling == 0 ? type : spelling == 1 ? "elem_t" : "ELEM";
    const bool floating = type == "float" || type == "double";
    const int n = pick(3, 24), m = pick(3, 40);
    std::ostringstream p;
    p << "#include <stdio.h>\n";
    if (spelling == 1) p << "typedef " << type << " elem_t;\n";
    if (spelling == 2) p << "#define ELEM " << type << "\n";
    const int mixed_spelling = pick(0, 2);  // keyword, typedef, macro
    const std::string int_name = mixed_spelling == 0 ? "int" : mixed_spelling == 1 ? "acc_t" : "ACC";
    const std::string float_name = mixed_spelling == 0 ? "float" : mixed_spelling == 1 ? "val_t" : "VAL";
    if (mixed_spelling == 1) p << "typedef int acc_t;\ntypedef float val_t;\n";
    if (mixed_spelling == 2) p << "#define ACC int\n#define VAL float\n";
    p << "#define N " << n << "\n#define M " << m << "\n";
    p << "static " << name << " S[N], X[N][M], Y[M];\nstatic " << int_name << " I[N];\nstatic " << float_name << " F[N][M];\n"
      << "static unsigned short H[N];\nstatic unsigned U[N][M], Q[N];\nstatic long long L[N];\n";
    p << "int main(void) {\n  int i, k;\n";
    p << "  for (i = 0; i < N; i++) {\n    S[i] = (" << name << ")(i % 5);\n    I[i] = i - 3;\n    H[i] = (unsigned short)(i * 977);\n"
      << "    L[i] = i;\n    for (k = 0; k < M; k++) {\n"
      << "      X[i][k] = (" << name << ")((i * 3 + k * 5) % 9) " << (floating ? "* 0.25" : "- 4") << ";\n"
      << "      F[i][k] = (float)((i * 7 + k * 3) % 13 - 6) * 0.375f;\n"
      << "      U[i][k] = (unsigned)(i * 1000003 + k * 7919) % 1048576u;\n    }\n  }\n"
      << "  for (k = 0; k < M; k++) Y[k] = (" << name << ")(k % 7) " << (floating ? "* 0.5" : "- 3") << ";\n";
    p << "#pragma scop\n";
    // The typed reduction, with an initialisation and a final statement over the same element
    // at random, and its loops in either order.
    const bool init = chance(50), final = chance(40), k_outer = !init && !final && chance(40);
    if (k_outer) {
      p << "  for (k = 0; k < M; k++)\n    for (i = 0; i < N; i++)\n      S[i] += X[i][k] * Y[k];\n";
    } else {
      p << "  for (i = 0; i < N; i++) {\n";
      if (init) p << "    S[i] = S[i] * 2;\n";
      p << "    for (k = 0; k < M; k++)\n      S[i] += X[i][k] * Y[k];\n";
      if (final) p << "    S[i] = S[i] " << (floating ? "* 0.5" : "/ 3") << " + Y[i % 3];\n";
      p << "  }\n";
    }
    if (chance(60)) p << "  for (i = 0; i < N; i++)\n    for (k = 0; k < M; k++)\n      I[i] += F[i][k];\n";
    if (chance(60))
      p << "  for (i = 0; i < N; i++) {\n    for (k = 0; k < M; k++)\n      H[i] += U[i][k] * 251u;\n    Q[i] = H[i] % 97u;\n  }\n";
    if (chance(60)) p << "  for (i = 0; i < N; i++)\n    for (k = 0; k < M; k++)\n      L[i] += (long long)U[i][k] * 4099;\n";
    p << "#pragma endscop\n";
    p << "  for (i = 0; i < N; i++)\n    printf(\"%.9g %d %u %u %lld\\n\", (double)S[i], I[i], (unsigned)H[i], Q[i], L[i]);\n";
    p << "  return 0;\n}\n";
    return p.str();
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return pick(1, 100) <= percent; }
  std::mt19937_64 rng_;
};

// ProgramGen with N a variable in every program.
class SymbolicProgramGen : public ProgramGen {
 public:
  explicit SymbolicProgramGen(std::uint64_t seed) : ProgramGen(seed, true) {}
};

PolycOptions random_options(std::mt19937_64& rng, std::string& text) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  PolycOptions o;
  std::ostringstream t;
  switch (pick(0, 3)) {
    case 0: o.tile.mode = TileOptions::Mode::kOff; t << "tile=off"; break;
    case 1: o.tile.mode = TileOptions::Mode::kAuto; t << "tile=auto"; break;
    default:
      o.tile.mode = TileOptions::Mode::kFixed;
      t << "tile=";
      for (int i = 0, n = pick(1, 3); i < n; ++i) {
        o.tile.sizes.push_back(pick(1, 6));
        t << (i ? "," : "") << o.tile.sizes.back();
      }
  }
  o.parallel = pick(0, 1) == 1;
  o.min_parallel_work = 0;  // tiny sizes: mark whatever is parallel, to check the marks
  o.cost_model = false;     // and tile them, too
  o.vectorize = pick(0, 1) == 1;
  o.schedule.fusion = pick(0, 1) ? ScheduleOptions::Fusion::kMax : ScheduleOptions::Fusion::kMin;
  o.schedule.use_isl = pick(0, 9) != 0;
  o.schedule.reject_useless_skew = pick(0, 1) == 1;  // keep isl's skews half the time
  o.unroll_jam = pick(0, 2) == 0 ? 0 : pick(2, 4);
  t << (o.parallel ? " parallel" : "") << (o.vectorize ? " vectorize" : "")
    << (o.schedule.fusion == ScheduleOptions::Fusion::kMax ? " fusion=max" : " fusion=min")
    << (o.schedule.use_isl ? "" : " no-isl") << (o.schedule.reject_useless_skew ? "" : " keep-skew")
    << " unroll-jam=" << o.unroll_jam;
  text = t.str();
  return o;
}

// Compiles and runs; returns stdout, or an error text starting with "ERROR".
std::string build_and_run(const fs::path& dir, const std::string& name, const std::string& source, bool strict) {
  test_support::RunResult r = test_support::compile_and_run(dir, name, source, strict ? "-O1 -fopenmp -Wall -Wextra -Werror" : "-O1 -fopenmp");
  return r.ok ? r.output : "ERROR " + r.error;
}

// Every mark "omp parallel for" must sit on a band whose first member carries no dependence.
void check_parallel_marks(isl::schedule_node node, const isl::union_map& deps, std::vector<std::string>& problems) {
  if (isl_schedule_node_get_type(node.get()) == isl_schedule_node_mark) {
    isl_id* id = isl_schedule_node_mark_get_id(node.get());
    std::string name = isl_id_get_name(id);
    isl_id_free(id);
    isl::schedule_node below = node.child(0);
    if ((name == kParallelMark || name == kSimdMark) &&
        isl_schedule_node_get_type(below.get()) == isl_schedule_node_band) {
      int pos = name == kParallelMark ? 0 : static_cast<int>(isl_schedule_node_band_n_member(below.get())) - 1;
      if (!band_member_is_parallel(below, pos, deps)) problems.push_back("'" + name + "' on a loop that carries a dependence");
    }
  }
  for (int i = 0, n = static_cast<int>(isl_schedule_node_n_children(node.get())); i < n; ++i)
    check_parallel_marks(node.child(i), deps, problems);
}

// The final schedule as polyc reported it, checked against dependences computed afresh.
std::vector<std::string> check_schedules(const std::string& program, const PolycResult& r) {
  std::vector<std::string> problems;
  auto regions = parse_c_regions(program);
  for (size_t i = 0; i < regions.size() && i < r.scops.size(); ++i) {
    for (const auto& p : r.scops[i].passes)
      if (p.find("UNDONE") != std::string::npos) problems.push_back("pass undone: " + p);
    IslContext ctx;
    Scop scop = lower(ctx.ctx(), *regions[i].tree, regions[i].options);
    Dependences d = compute_dependences(scop);
    isl_schedule* raw = isl_schedule_read_from_str(ctx.raw(), r.scops[i].schedule.c_str());
    if (!raw) {
      problems.push_back("cannot read back the schedule: " + r.scops[i].schedule);
      continue;
    }
    isl::schedule s = isl::manage(raw);
    if (!s.get_domain().is_equal(scop.domain())) problems.push_back("the schedule does not cover exactly the domain");
    if (auto bad = find_violation(s, d.validity())) problems.push_back("dependence violated: " + *bad);
    check_parallel_marks(s.get_root(), d.validity(), problems);
  }
  return problems;
}

long env_or(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}

// Runs `cases` generated programs through polyc with random options (`adjust` may change
// them and append to their text): each output must print exactly what the original prints,
// and (check_schedule) the schedules must respect the dependences. Stops after 3 failures.
// Returns how many outputs choose between the source and the transformed code at run time
// (a version guard).
template <typename Generator>
int fuzz_programs(const std::string& name, long cases, std::uint64_t seed, bool check_schedule,
                   const std::function<void(PolycOptions&, std::string&, std::mt19937_64&)>& adjust) {
  test_support::Workdir dir(name);
  int failures = 0, guarded = 0;
  for (long c = 0; c < cases && failures < 3; ++c) {
    Generator gen(seed * 1000003u + static_cast<std::uint64_t>(c));
    std::mt19937_64 opt_rng(seed ^ (0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(c + 1)));
    const std::string program = gen.program();
    std::string opt_text;
    PolycOptions o = random_options(opt_rng, opt_text);
    if (adjust) adjust(o, opt_text, opt_rng);
    const std::string where = name + " case " + std::to_string(c) + " (seed " + std::to_string(seed) + "), options " +
                              opt_text + "\n--- program ---\n" + program;
    PolycResult r;
    try {
      r = polyc(program, o);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "polyc threw: " << e.what() << "\n" << where;
      ++failures;
      continue;
    }
    for (const auto& scop : r.scops) {
      if (!scop.source_guard.empty() && scop.source_guard != "1") {
        ++guarded;
        break;
      }
    }
    std::vector<std::string> problems = check_schedule ? check_schedules(program, r) : std::vector<std::string>{};
    const std::string expected = build_and_run(dir.path(), "orig", program, false);
    if (expected.rfind("ERROR", 0) == 0) {  // the generator's own program must build and run
      ADD_FAILURE() << expected << "\n" << where;
      return guarded;
    }
    const std::string got = build_and_run(dir.path(), "out", r.output, true);
    if (got.rfind("ERROR", 0) == 0) problems.push_back(got);
    else if (got != expected) problems.push_back("the output prints different numbers:\n" + got + "expected:\n" + expected);
    if (!problems.empty()) {
      ++failures;
      std::string all;
      for (const auto& p : problems) all += "  " + p + "\n";
      ADD_FAILURE() << all << where << "--- polyc output ---\n" << r.output;
    }
  }
  testing::Test::RecordProperty("cases", static_cast<int>(cases));
  return guarded;
}

TEST(Fuzz, RandomAffineNestsKeepTheirMeaning) {
  fuzz_programs<ProgramGen>("fuzz", env_or("PZ_POLY_FUZZ_CASES", 16),
                            static_cast<std::uint64_t>(env_or("PZ_POLY_FUZZ_SEED", 20261129)), true, {});
}

// Typed programs (TypedProgramGen) through polyc with random options, register blocks and
// matrix packing included: the output compiles without warnings and prints exactly what the
// original prints. Fixed seed; PZ_POLY_FUZZ_CASES / PZ_POLY_FUZZ_SEED as above.
TEST(Fuzz, TypedReductionsKeepTheirValues) {
  fuzz_programs<TypedProgramGen>("fuzz_typed", env_or("PZ_POLY_FUZZ_CASES", 16),
                                 static_cast<std::uint64_t>(env_or("PZ_POLY_FUZZ_SEED", 20261205)), false,
                                 [](PolycOptions& o, std::string& text, std::mt19937_64& rng) {
                                   o.register_block.enabled = rng() % 2 == 0;
                                   o.matmul.enabled = true;
                                   text += o.register_block.enabled ? " register-block" : "";
                                 });
}

// The cost model on (fuzz_programs otherwise turns it off to exercise every pass): where it
// sees no gain, polyc keeps the region as written, and with symbolic sizes it emits both
// versions behind a run-time test on the bytes the region touches. The cache sizes the test
// compares with are drawn so that either branch runs: the machine's (the tiny programs take
// the source's branch) or a few cache lines (the transformed branch); both must print what
// the original prints.
TEST(Fuzz, VersionGuardsChooseVersionsThatKeepTheMeaning) {
  const long cases = env_or("PZ_POLY_FUZZ_CASES", 16);
  const int guarded = fuzz_programs<SymbolicProgramGen>(
      "fuzz_guard", cases, static_cast<std::uint64_t>(env_or("PZ_POLY_FUZZ_SEED", 20261206)), false,
      [](PolycOptions& o, std::string& text, std::mt19937_64& rng) {
        o.cost_model = true;
        o.keep_source_without_gain = true;
        o.min_parallel_work = rng() % 2 == 0 ? 0 : 1 << 20;
        o.tile.mode = TileOptions::Mode::kAuto;
        o.tile.sizes.clear();
        if (rng() % 2 == 0) {
          o.tile.cache.l1 = 64;
          o.tile.cache.l2 = 128;
          text += " cache=128B";
        }
        text += " then tile=auto, cost model and version guards on";
      });
  // The generator's nests, with the cost model on, give guards to some programs; none would
  // mean the guards went untested.
  if (cases >= 16) {
    EXPECT_GT(guarded, 0) << "no case had a version guard";
  }
}

}  // namespace
}  // namespace pz::poly
