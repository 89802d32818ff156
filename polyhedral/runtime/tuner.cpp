#include "polyhedral/runtime/tuner.h"

#include <isl/set.h>
#include <isl/val.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "polyhedral/codegen/busy_machine.h"
#include "polyhedral/frontend/c_parser.h"
#include "polyhedral/frontend/frontend_error.h"
#include "polyhedral/runtime/jit.h"
#include "polyhedral/runtime/shell.h"
#include "util/files.h"
#include "util/fnv1a.h"
#include "util/subprocess.h"

namespace pz::poly {

std::map<std::string, std::vector<long long>> tune_extents(const Scop& scop, const std::map<std::string, long long>& sizes) {
  std::map<std::string, std::vector<long long>> extents;
  for (const auto& array : scop.arrays) {
    if (array.rank == 0 || array.local) continue;
    std::vector<long long> box(static_cast<size_t>(array.rank), 1);
    for (const auto& s : scop.statements)
      for (const auto& a : s.accesses) {
        if (a.array != array.name) continue;
        isl_set* range = a.relation.range().release();
        for (size_t k = 0; k < scop.params.size(); ++k)
          if (auto it = sizes.find(scop.params[k]); it != sizes.end())
            range = isl_set_fix_si(range, isl_dim_param, static_cast<unsigned>(k), static_cast<int>(it->second));
        for (int d = 0; d < array.rank; ++d) {
          isl_val* max = isl_set_dim_max_val(isl_set_copy(range), d);
          if (max && isl_val_is_int(max) == isl_bool_true)
            box[static_cast<size_t>(d)] = std::max<long long>(box[static_cast<size_t>(d)], isl_val_get_num_si(max) + 1);
          isl_val_free(max);
        }
        isl_set_free(range);
      }
    std::vector<long long> declared;
    for (const auto& text : array.declared_extents) {
      auto v = evaluate_text(text, sizes);
      if (!v || *v < box[declared.size()]) break;
      declared.push_back(*v);
    }
    extents[array.name] = declared.size() == box.size() ? declared : box;
  }
  return extents;
}

namespace {

bool is_floating(const std::string& type) { return type == "double" || type == "float"; }

// "double (*A)[20][30]" for an array of rank 3 with those inner extents, "double *x" for rank 1.
std::string declarator(const Array& a, const std::vector<long long>& extents, const std::string& name) {
  if (a.rank == 1) return a.element_type + " *" + name;
  std::string d = a.element_type + " (*" + name + ")";
  for (size_t k = 1; k < extents.size(); ++k) d += "[" + std::to_string(extents[k]) + "]";
  return d;
}

bool written(const Scop& scop, const std::string& array) {
  for (const auto& s : scop.statements)
    for (const auto& a : s.accesses)
      if (a.write && a.array == array) return true;
  return false;
}

const char* kHarnessPrelude = R"(/* polyc --tune: one candidate of a region, timed at fixed sizes (polyhedral/runtime/tuner.h) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

static double pz_tune_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *pz_tune_alloc(size_t count, size_t bytes) {
  size_t size = (count * bytes + 63) / 64 * 64;
  void *p = aligned_alloc(64, size ? size : 64);
  if (!p) {
    fprintf(stderr, "polyc --tune: cannot allocate %zu bytes\n", size);
    exit(3);
  }
  return p;
}

/* Values in [-1, 1) from a 64-bit LCG (Knuth's MMIX constants): random signs keep the
   columns of a matrix far from parallel (orthogonalisations stay well conditioned), and a
   square matrix gets its extent added on the diagonal, so that factorisations and solves
   do too. */
#define PZ_TUNE_FILL(type, p, count, rows, seed)                                        \
  do {                                                                                 \
    unsigned long long x_ = (seed);                                                    \
    for (size_t i_ = 0; i_ < (count); ++i_) {                                          \
      x_ = x_ * 6364136223846793005ULL + 1442695040888963407ULL;                       \
      (p)[i_] = (type)(-1.0 + (double)(x_ >> 11) / 4503599627370496.0);                \
    }                                                                                  \
    if ((rows) > 0)                                                                    \
      for (size_t i_ = 0; i_ < (size_t)(rows); ++i_) (p)[i_ * (rows) + i_] += (type)(rows); \
  } while (0)
#define PZ_TUNE_FILL_INT(type, p, count, seed)                                          \
  do {                                                                                 \
    unsigned long long x_ = (seed);                                                    \
    for (size_t i_ = 0; i_ < (count); ++i_) {                                          \
      x_ = x_ * 6364136223846793005ULL + 1442695040888963407ULL;                       \
      (p)[i_] = (type)(x_ >> 61);                                                      \
    }                                                                                  \
  } while (0)
/* Evicts the region's data from the caches (PolyBench's polybench_flush_cache does the same
   before its timed call): reads and writes `count` doubles. */
static volatile double pz_tune_sink;
static void pz_tune_flush(double *buffer, size_t count) {
  double sum = 0;
  for (size_t i = 0; i < count; ++i) sum += buffer[i] += 1.0;
  pz_tune_sink = sum;
}

#define PZ_TUNE_SAMPLE(p, count)                                                        \
  for (size_t s_ = 0; s_ < 64; ++s_) printf(" %.17g", (double)(p)[(2 * s_ + 1) * (count) / 128])
)";

}  // namespace

std::string tune_harness(const Scop& scop, const std::map<std::string, long long>& sizes, const std::string& region_code,
                         bool constant_sizes) {
  const auto extents = tune_extents(scop, sizes);
  std::vector<std::string> formals, actuals, setup, samples;
  for (const auto& p : scop.params) {
    const long long v = sizes.at(p);
    const bool fits = v >= INT_MIN && v <= INT_MAX;
    formals.push_back(std::string(fits ? "int " : "long long ") + p);
    if (constant_sizes) {
      actuals.push_back(std::to_string(v) + (fits ? "" : "LL"));
    } else {
      setup.push_back("  volatile long long pz_size_" + p + " = " + std::to_string(v) + "LL;");
      actuals.push_back(std::string(fits ? "(int)" : "") + "pz_size_" + p);
    }
  }
  int seed = 1;
  for (const auto& a : scop.arrays) {
    if (a.local) continue;  // the region's code declares it
    if (a.rank == 0) {
      formals.push_back(a.element_type + " " + a.name);
      const std::string value = "(" + a.element_type + ")" + (is_floating(a.element_type) ? "1.5" : "1");
      if (constant_sizes) {
        actuals.push_back(value);
      } else {
        setup.push_back("  volatile " + a.element_type + " pz_scalar_" + a.name + " = " + value + ";");
        actuals.push_back("pz_scalar_" + a.name);
      }
      continue;
    }
    const auto& e = extents.at(a.name);
    long long count = 1;
    for (long long x : e) count *= x;
    const std::string storage = "pz_data_" + a.name, n = std::to_string(count) + "ULL";
    setup.push_back("  " + a.element_type + " *" + storage + " = (" + a.element_type + " *)pz_tune_alloc(" + n + ", sizeof(" +
                    a.element_type + "));");
    const long long rows = a.rank == 2 && e[0] == e[1] ? e[0] : 0;
    setup.push_back(is_floating(a.element_type)
                        ? "  PZ_TUNE_FILL(" + a.element_type + ", " + storage + ", " + n + ", " + std::to_string(rows) + ", " +
                              std::to_string(seed++) + "ULL);"
                        : "  PZ_TUNE_FILL_INT(" + a.element_type + ", " + storage + ", " + n + ", " + std::to_string(seed++) + "ULL);");
    formals.push_back(declarator(a, e, a.name));
    std::string cast = declarator(a, e, "");
    actuals.push_back("(" + cast + ")" + storage);
    if (written(scop, a.name)) samples.push_back("  PZ_TUNE_SAMPLE(" + storage + ", " + n + ");");
  }
  auto join = [](const std::vector<std::string>& v, const std::string& sep) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
    return s;
  };
  std::ostringstream c;
  // One call site: with constant sizes the compiler may inline and specialise the region as
  // it does a kernel called once from main with constants (PolyBench's).
  c << kHarnessPrelude << (uses_team_size(region_code) ? kTeamSizeHelper : "") << "\n"
    << (constant_sizes ? "" : "__attribute__((noinline)) ") << "static void pz_tune_region("
    << (formals.empty() ? "void" : join(formals, ", ")) << ") {\n";
  for (const auto& it : scop.outer_iterators) c << "  int " << it << " = 0;\n";
  for (const auto& it : scop.outer_iterators) c << "  (void)" << it << ";\n";
  // The region as written (the else branch of a local-array guard) still uses them.
  for (const auto& scalar : scop.removed_scalars) c << "  " << scalar.element_type << " " << scalar.name << " = 0;\n";
  c << region_code << "}\n\n";
  c << "int main(int argc, char **argv) {\n"
       "  if (argc != 5) {\n"
       "    fprintf(stderr, \"usage: %s CUT_SECONDS RUN_SECONDS MAX_RUNS FLUSH_BYTES\\n\", argv[0]);\n"
       "    return 2;\n"
       "  }\n"
       "  const double cut = atof(argv[1]), budget = atof(argv[2]);\n"
       "  const int max_runs = atoi(argv[3]);\n"
       "  const size_t flush = (size_t)atoll(argv[4]) / sizeof(double);\n"
       "  double *flush_buffer = flush ? (double *)pz_tune_alloc(flush, sizeof(double)) : 0;\n"
       "  for (size_t i = 0; i < flush; ++i) flush_buffer[i] = 0;\n"
       "#if defined(__x86_64__) || defined(__i386__)\n"
       "  _mm_setcsr(_mm_getcsr() | 0x8040); /* denormals flushed: time the arithmetic, not microcode assists */\n"
       "#endif\n"
    << join(setup, "\n") << "\n"
    << "  double first = 0, best = 0;\n"
    << "  const double began = pz_tune_now();\n"
    << "  int runs = 0;\n"
    << "  for (;;) {\n"
    << "    if (flush) pz_tune_flush(flush_buffer, flush);\n"
    << "    const double start = pz_tune_now();\n"
    << "    pz_tune_region(" << join(actuals, ", ") << ");\n"
    << "    const double t = pz_tune_now() - start;\n"
    << "    if (runs++ == 0) {\n"
    << "      first = best = t;\n"
    << "      printf(\"samples\");\n"
    << join(samples, "\n") << (samples.empty() ? "" : "\n") << "      printf(\"\\n\");\n"
    << "    }\n"
    << "    best = t < best ? t : best;\n"
    << "    /* the budget counts the flushes too: it is the wall time after the first run */\n"
    << "    if (first > cut || runs >= max_runs || pz_tune_now() - began - first >= budget) break;\n"
    << "  }\n"
    << "  printf(\"time %.9g %.9g %d\\n\", first, best, runs);\n"
    << "  return 0;\n"
    << "}\n";
  return c.str();
}

namespace {

struct Measurement {
  bool ok = false;
  std::string failure;  // why not ok
  double first = 0, best = 0;
  int runs = 0;
  std::vector<double> samples;
};

Measurement run_harness(const std::string& executable, double cut, double run_seconds, int max_runs, const TuneOptions& o) {
  Measurement m;
  std::ostringstream cmd;
  cmd.precision(6);
  if (o.threads > 0) cmd << "OMP_NUM_THREADS=" << o.threads << " ";
  cmd << "exec " << shell_quote(executable) << " " << std::fixed << cut << " " << run_seconds << " " << max_runs << " "
      << (o.cold ? o.flush_bytes : 0);
  util::Subprocess child(cmd.str());
  const auto deadline = util::Subprocess::Clock::now() + std::chrono::duration_cast<util::Subprocess::Clock::duration>(
                                                               std::chrono::duration<double>(cut + run_seconds + 5));
  std::string line;
  bool timed = false;
  for (;;) {
    const auto status = child.read_line(line, deadline);
    if (status == util::Subprocess::ReadStatus::kTimedOut) {
      child.stop();
      m.failure = "stopped after " + std::to_string(static_cast<int>(cut + run_seconds + 5)) + " s (slower than the cut-off)";
      return m;
    }
    if (status == util::Subprocess::ReadStatus::kEndOfOutput) break;
    std::istringstream in(line);
    std::string word;
    in >> word;
    if (word == "samples") {
      for (double v; in >> v;) m.samples.push_back(v);
    } else if (word == "time") {
      timed = static_cast<bool>(in >> m.first >> m.best >> m.runs);
    }
  }
  const std::string ended = child.exit_description(5.0);
  if (!timed || ended != "exited (status 0)") {
    m.failure = "the harness " + ended;
    return m;
  }
  m.ok = true;
  return m;
}

// Where the candidate's samples leave the reference's: empty when they agree within a
// relative tolerance (reassociated sums differ in their last bits), both NaN counting as equal.
// `garbage` is set when a sample is finite on one side only, or the counts differ.
std::string disagreement(const std::vector<double>& candidate, const std::vector<double>& reference, bool& garbage) {
  garbage = true;
  if (candidate.size() != reference.size()) return "a different number of samples";
  for (size_t k = 0; k < reference.size(); ++k)
    if (std::isfinite(candidate[k]) != std::isfinite(reference[k])) {
      std::ostringstream s;
      s << "sample " << k << " is " << candidate[k] << ", the source's " << reference[k];
      return s.str();
    }
  garbage = false;
  double scale = 0;
  for (double r : reference)
    if (std::isfinite(r)) scale = std::max(scale, std::fabs(r));
  for (size_t k = 0; k < reference.size(); ++k) {
    const double a = candidate[k], b = reference[k];
    if (std::isnan(a) && std::isnan(b)) continue;
    if (a == b) continue;
    if (std::isfinite(a) && std::isfinite(b) && std::fabs(a - b) <= 1e-4 * (std::fabs(a) + std::fabs(b)) + 1e-9 * scale) continue;
    std::ostringstream s;
    s.precision(9);
    s << "sample " << k << " is " << a << ", the source's " << b;
    return s.str();
  }
  return "";
}

std::string seconds_text(double s) {
  std::ostringstream t;
  t.precision(4);
  t << s << " s";
  return t.str();
}

// Every harness as it would be timed (code, sizes, data, mode) and how it would be run.
std::string tune_key(const std::vector<std::string>& harnesses, const std::vector<TuneCandidate>& candidates,
                     const TuneOptions& o) {
  std::uint64_t h = util::fnv1a(o.compiler + '\0' + o.flags + '\0' + std::to_string(o.threads) + '\0' +
                                std::to_string(o.cold ? o.flush_bytes : 0) + (o.exact_results ? "" : " inexact"));
  for (size_t k = 0; k < candidates.size(); ++k) h = util::fnv1a(candidates[k].name + '\0' + harnesses[k] + '\0', h);
  return util::hex64(h);
}

std::optional<TuneResult> cached_choice(const std::string& path, const std::vector<TuneCandidate>& candidates) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(util::read_text_file(path));
    TuneResult r;
    r.cached = true;
    const std::string chosen = j.at("chosen").get<std::string>();
    auto it = std::find_if(candidates.begin(), candidates.end(), [&](const TuneCandidate& c) { return c.name == chosen; });
    if (it == candidates.end()) return std::nullopt;
    r.chosen = static_cast<int>(it - candidates.begin());
    for (const auto& line : j.at("log")) r.log.push_back(line.get<std::string>());
    r.log.push_back("tune: the choice above was read from " + path);
    return r;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable: timed again and rewritten
  }
}

std::string sizes_text(const std::map<std::string, long long>& sizes) {
  std::string s;
  for (const auto& [name, value] : sizes) s += (s.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return s.empty() ? "no sizes" : s;
}

}  // namespace

TuneResult tune_region(const Scop& scop, const std::map<std::string, long long>& sizes,
                       const std::vector<TuneCandidate>& candidates, const TuneOptions& o) {
  if (candidates.empty()) throw std::invalid_argument("tune_region: no candidates");
  const std::string dir = (o.cache_dir.empty() ? default_cache_dir() : o.cache_dir);
  std::vector<std::string> harnesses;
  for (const auto& c : candidates) harnesses.push_back(tune_harness(scop, sizes, c.code, o.constant_sizes));
  const std::string cache_file = dir + "/tune-" + tune_key(harnesses, candidates, o) + ".json";
  if (auto cached = cached_choice(cache_file, candidates)) return *cached;

  const JitCache jit(dir, o.compiler, o.flags);
  using Clock = std::chrono::steady_clock;
  double running = 0;  // seconds spent in timing runs (compiling the harnesses is not counted)
  // The model's choice first (the cut-off for the others), then the source (the reference).
  std::vector<size_t> order{0};
  for (size_t k = 1; k < candidates.size(); ++k)
    if (candidates[k].name == "source") order.insert(order.begin() + 1, k);
    else order.push_back(k);
  std::vector<Measurement> results(candidates.size());
  std::optional<std::vector<double>> reference;
  // The fastest candidate's time and the fastest first run (cold: page faults, caches),
  // three times which a first run is cut off.
  double fastest = std::numeric_limits<double>::infinity(), fastest_first = fastest;
  TuneResult r;
  for (size_t position = 0; position < order.size(); ++position) {
    const size_t k = order[position];
    Measurement& m = results[k];
    const double left = o.seconds - running;
    if (left <= 0 && k != 0) {
      m.failure = "not timed: the tuning budget of " + seconds_text(o.seconds) + " is spent";
    } else {
      std::string executable;
      try {
        executable = jit.compile(harnesses[k], ".tune");
      } catch (const std::runtime_error& e) {
        m.failure = std::string("does not compile: ") + e.what();
      }
      if (!executable.empty()) {
        const bool is_reference = candidates[k].name == "source";
        const double cut =
            is_reference || !std::isfinite(fastest_first) ? std::max(left, 1.0) : std::min(std::max(left, 0.1), std::max(3 * fastest_first, 0.02));
        const double share = left / static_cast<double>(order.size() - position);
        const auto began = Clock::now();
        m = run_harness(executable, cut, std::clamp(share, 0.02, 1.0), 200, o);
        running += std::chrono::duration<double>(Clock::now() - began).count();
        if (m.ok && is_reference) reference = m.samples;
      }
    }
    if (m.ok) {
      fastest = std::min(fastest, m.best);
      fastest_first = std::min(fastest_first, m.first);
    }
  }
  for (size_t k : order) {
    Measurement& m = results[k];
    std::string note;
    if (m.ok && reference && candidates[k].name != "source") {
      bool garbage = false;
      if (const std::string why = disagreement(m.samples, *reference, garbage); !why.empty()) {
        if (garbage || o.exact_results) {
          m.ok = false;
          m.failure = "results differ from the source's (" + why + ")";
        } else {
          note = "; results differ from the source's beyond 1e-4 (" + why +
                 "): reassociated sums on ill-conditioned data, or a bug (polyc --no-reassociate tells)";
        }
      }
    }
    r.log.push_back("tune: " + candidates[k].name + ": " +
                    (m.ok ? seconds_text(m.best) + " (fastest of " + std::to_string(m.runs) + " run" + (m.runs > 1 ? "s" : "") + ")" + note
                          : m.failure));
  }
  int best = -1;
  for (size_t k = 0; k < candidates.size(); ++k)
    if (results[k].ok && (best < 0 || results[k].best < results[static_cast<size_t>(best)].best)) best = static_cast<int>(k);
  if (best < 0) {
    r.log.push_back("tune: no candidate ran to the end; kept the model's choice");
    return r;
  }
  const Measurement& model = results[0];
  if (model.ok && best != 0 && results[static_cast<size_t>(best)].best > model.best * (1 - o.margin)) best = 0;
  r.chosen = best;
  std::ostringstream decision;
  decision.precision(3);
  decision << "tune: chose " << candidates[static_cast<size_t>(best)].name << " at " << sizes_text(sizes);
  if (best != 0 && model.ok) decision << ", " << model.best / results[static_cast<size_t>(best)].best << "x the model's choice";
  if (best == 0) decision << " (no other candidate faster by " << o.margin * 100 << "%)";
  r.log.push_back(decision.str());
  nlohmann::json j{{"chosen", candidates[static_cast<size_t>(best)].name}, {"log", r.log}};
  util::write_text_atomically(cache_file, j.dump(2) + "\n");
  return r;
}

}  // namespace pz::poly
