#include "bench/polyc_bench.h"

#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "polyhedral/polyc.h"
#include "polyhedral/shell.h"
#include "util/data_dirs.h"
#include "util/files.h"

namespace pz::bench {

namespace fs = std::filesystem;

namespace {

using Sizes = std::map<std::string, std::string>;

// "large" follows PolyBench 4.2 LARGE, except where a kernel alone would take tens of
// seconds at gcc -O3 (time steps cut, or a smaller N: noted), and the O(n^2) kernels,
// which are made larger than LARGE so their run is long enough to time. "medium" is
// PolyBench MEDIUM.
const std::map<std::string, std::map<std::string, Sizes>>& size_table() {
  static const std::map<std::string, std::map<std::string, Sizes>> table = {
      {"gemm", {{"large", {{"NI", "1000"}, {"NJ", "1100"}, {"NK", "1200"}}},
                {"medium", {{"NI", "200"}, {"NJ", "220"}, {"NK", "240"}}}}},
      // 2mm, 3mm, syrk, syr2k, trmm, covariance: LARGE halved in every dimension (gcc -O3 alone took
      // 3.6-43 s each: their source loop orders walk a matrix by columns).
      {"2mm", {{"large", {{"NI", "400"}, {"NJ", "450"}, {"NK", "550"}, {"NL", "600"}}},
               {"medium", {{"NI", "180"}, {"NJ", "190"}, {"NK", "210"}, {"NL", "220"}}}}},
      {"3mm", {{"large", {{"NI", "400"}, {"NJ", "450"}, {"NK", "500"}, {"NL", "550"}, {"NM", "600"}}},
               {"medium", {{"NI", "180"}, {"NJ", "190"}, {"NK", "200"}, {"NL", "210"}, {"NM", "220"}}}}},
      {"syrk", {{"large", {{"M", "500"}, {"N", "600"}}}, {"medium", {{"M", "200"}, {"N", "240"}}}}},
      {"syr2k", {{"large", {{"M", "500"}, {"N", "600"}}}, {"medium", {{"M", "200"}, {"N", "240"}}}}},
      {"trmm", {{"large", {{"M", "500"}, {"N", "600"}}}, {"medium", {{"M", "200"}, {"N", "240"}}}}},
      {"gemver", {{"large", {{"N", "4000"}}}, {"medium", {{"N", "400"}}}}},
      {"atax", {{"large", {{"M", "3800"}, {"N", "4200"}}}, {"medium", {{"M", "390"}, {"N", "410"}}}}},
      {"bicg", {{"large", {{"M", "3800"}, {"N", "4200"}}}, {"medium", {{"M", "390"}, {"N", "410"}}}}},
      {"mvt", {{"large", {{"N", "4000"}}}, {"medium", {{"N", "400"}}}}},
      {"lu", {{"large", {{"N", "800"}}}, {"medium", {{"N", "400"}}}}},                 // LARGE: 2000
      {"cholesky", {{"large", {{"N", "1200"}}}, {"medium", {{"N", "400"}}}}},
      {"covariance", {{"large", {{"M", "600"}, {"N", "700"}}}, {"medium", {{"M", "240"}, {"N", "260"}}}}},
      {"floyd-warshall", {{"large", {{"N", "1000"}}}, {"medium", {{"N", "500"}}}}},    // LARGE: 2800
      {"jacobi-1d", {{"large", {{"TSTEPS", "1000"}, {"N", "100000"}}},                 // LARGE: 500, 2000
                     {"medium", {{"TSTEPS", "100"}, {"N", "400"}}}}},
      {"jacobi-2d", {{"large", {{"TSTEPS", "200"}, {"N", "1300"}}},                    // LARGE: 500 steps
                     {"medium", {{"TSTEPS", "100"}, {"N", "250"}}}}},
      {"seidel-2d", {{"large", {{"TSTEPS", "40"}, {"N", "1000"}}},                     // LARGE: 500, 2000
                     {"medium", {{"TSTEPS", "100"}, {"N", "400"}}}}},
      {"fdtd-2d", {{"large", {{"TMAX", "200"}, {"NX", "1000"}, {"NY", "1200"}}},       // LARGE: 500 steps
                   {"medium", {{"TMAX", "100"}, {"NX", "200"}, {"NY", "240"}}}}},
      {"heat-3d", {{"large", {{"TSTEPS", "100"}, {"N", "120"}}},                       // LARGE: 500 steps
                   {"medium", {{"TSTEPS", "100"}, {"N", "40"}}}}},
  };
  return table;
}

const char* kPrelude = R"(/* polyzero bench harness: times the scop regions, captures printf as binary doubles */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double pz_bench_t0, pz_bench_total;
static FILE *pz_bench_out;
static double pz_bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static void pz_bench_start(void) { pz_bench_t0 = pz_bench_now(); }
static void pz_bench_stop(void) { pz_bench_total += pz_bench_now() - pz_bench_t0; }
__attribute__((constructor)) static void pz_bench_open(void) {
  const char *path = getenv("PZ_BENCH_OUT");
  if (path && *path) pz_bench_out = fopen(path, "wb");
#ifdef _OPENMP
  /* Start the thread pool outside the timed regions, as a long-running program would have. */
#pragma omp parallel
  { pz_bench_t0 = 0; }
#endif
}
__attribute__((destructor)) static void pz_bench_close(void) {
  if (pz_bench_out) fclose(pz_bench_out);
  fprintf(stderr, "pz_bench_seconds %.9f\n", pz_bench_total);
}
/* Every numeric conversion becomes one double in the output file. */
static int pz_bench_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  for (const char *p = fmt; *p; ++p) {
    if (*p != '%') continue;
    if (*++p == '%') continue;
    while (*p && strchr("-+ #0123456789.", *p)) ++p;
    int longs = 0;
    while (*p == 'l' || *p == 'h' || *p == 'z') longs += *p++ == 'l';
    double v;
    switch (*p) {
      case 'd': case 'i': v = longs ? (double)va_arg(ap, long) : (double)va_arg(ap, int); break;
      case 'u': case 'x': v = longs ? (double)va_arg(ap, unsigned long) : (double)va_arg(ap, unsigned); break;
      case 'f': case 'g': case 'e': case 'F': case 'G': case 'E': v = va_arg(ap, double); break;
      case 's': (void)va_arg(ap, const char *); continue;
      default: va_end(ap); return 0;
    }
    if (pz_bench_out) fwrite(&v, sizeof v, 1, pz_bench_out);
  }
  va_end(ap);
  return 0;
}
#define printf pz_bench_printf
)";

std::string slurp(const fs::path& p) { return util::read_text_file(p.string()); }

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

// Runs `cmd` under `timeout`; returns the exit status (124 on timeout).
int run_shell(const std::string& cmd, double timeout_seconds) {
  char limit[32];
  std::snprintf(limit, sizeof limit, "%.0f", std::max(1.0, timeout_seconds));
  std::string full = std::string("timeout ") + limit + " sh -c " + poly::shell_quote(cmd);
  int rc = std::system(full.c_str());
  if (rc == -1) return -1;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

bool have_command(const std::string& name) {
  return std::system(("command -v " + name + " > /dev/null 2>&1").c_str()) == 0;
}

std::string first_lines(const std::string& text, int n) {
  std::istringstream in(text);
  std::string line, out;
  for (int i = 0; i < n && std::getline(in, line); ++i) out += (i ? " | " : "") + line;
  return out;
}

struct Compiler {
  std::string variant, command;  // command: "gcc -O3 ..." (source and output appended)
  bool uses_polyc = false;
  bool threaded = false;
};

std::vector<double> read_doubles(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<double> v;
  double x;
  while (in.read(reinterpret_cast<char*>(&x), sizeof x)) v.push_back(x);
  return v;
}

// Largest |a-b| / max(|a|, rms/1e3) over the outputs; infinity when they cannot agree.
double compare(const std::vector<double>& ref, const std::vector<double>& got) {
  if (ref.size() != got.size() || ref.empty()) return INFINITY;
  double sq = 0;
  for (double x : ref) sq += std::isfinite(x) ? x * x : 0;
  double floor_scale = std::max(1e-300, std::sqrt(sq / static_cast<double>(ref.size())) * 1e-3);
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    double a = ref[i], b = got[i];
    if (std::isnan(a) || std::isnan(b)) {
      if (std::isnan(a) != std::isnan(b)) return INFINITY;
      continue;
    }
    if (a == b) continue;
    worst = std::max(worst, std::fabs(a - b) / std::max(std::fabs(a), floor_scale));
  }
  return worst;
}

constexpr double kTolerance = 1e-6;

// A tiny probe program: whether `command` compiles and the program runs (catches a
// missing OpenMP runtime for Polly's parallel code, which only fails at link time).
bool probe(const fs::path& dir, const std::string& name, const std::string& command, double timeout) {
  fs::path c = dir / (name + "_probe.c"), exe = dir / (name + "_probe");
  write_file(c,
             "#include <stdio.h>\nstatic double a[256][256];\nint main(void) {\n"
             "  for (int i = 0; i < 256; i++)\n    for (int j = 0; j < 256; j++) a[i][j] = i + j;\n"
             "  for (int i = 1; i < 256; i++)\n    for (int j = 0; j < 256; j++) a[i][j] += a[i - 1][j];\n"
             "  printf(\"%g\\n\", a[255][255]);\n  return 0;\n}\n");
  if (run_shell(command + " -o " + poly::shell_quote(exe.string()) + " " + poly::shell_quote(c.string()) + " -lm > /dev/null 2>&1", timeout) != 0)
    return false;
  return run_shell(poly::shell_quote(exe.string()) + " > /dev/null 2>&1", timeout) == 0;
}

std::vector<Compiler> find_compilers(const fs::path& dir, const PolycBenchOptions& o, std::vector<std::string>& notes) {
  std::vector<Compiler> out;
  const std::string gcc = "gcc -O3 -march=native";
  bool have_gcc = have_command("gcc");
  if (!have_gcc) throw std::runtime_error("gcc not found: it is both the baseline and polyc's back-end compiler");
  out.push_back({"gcc", gcc});
  if (probe(dir, "graphite", gcc + " -floop-nest-optimize", o.timeout_seconds)) {
    out.push_back({"graphite", gcc + " -floop-nest-optimize"});
  } else {
    notes.push_back("graphite: gcc -floop-nest-optimize does not work here (GCC built without isl?); column skipped");
  }
  std::string clang = have_command("clang") ? "clang" : have_command("clang-14") ? "clang-14" : "";
  if (clang.empty()) {
    notes.push_back("polly: no clang found; Polly columns skipped");
  } else {
    std::string polly = clang + " -O3 -march=native -mllvm -polly";
    if (probe(dir, "polly", polly, o.timeout_seconds)) {
      out.push_back({"polly", polly});
      // The OpenMP runtime comes from -fopenmp (LLVM's libomp also provides the GOMP entry
      // points that Polly's generated code calls). Seen here with clang 14: its 2-thread
      // gemm output is wrong with either runtime and with -polly-omp-backend=LLVM; the
      // output check reports it.
      std::string par = polly + " -mllvm -polly-parallel -fopenmp";
      if (probe(dir, "polly_parallel", par, o.timeout_seconds)) {
        out.push_back({"polly-parallel", par, false, true});
      } else {
        notes.push_back("polly-parallel: '" + par + "' does not build or run here; column skipped");
      }
    } else {
      notes.push_back("polly: '" + polly + "' does not work here (clang without Polly?); Polly columns skipped");
    }
  }
  out.push_back({"polyc", gcc + " -fopenmp", true, true});
  return out;
}

// polyc's output without a parallel loop needs only OpenMP's simd pragmas, not its
// runtime: built with -fopenmp, the harness would start a thread pool whose idle worker
// slowed serial code here (floyd-warshall, loops identical to the original: best of 8 runs
// 0.93-1.25 s against 0.75-0.77 s without the pool, 2026-11-30).
Compiler compiler_for(const Compiler& c, const std::string& polyc_output) {
  Compiler out = c;
  const std::string openmp = " -fopenmp";
  const bool ends_with_openmp = out.command.size() >= openmp.size() &&
                                out.command.compare(out.command.size() - openmp.size(), openmp.size(), openmp) == 0;
  if (ends_with_openmp && polyc_output.find("omp parallel") == std::string::npos) {
    out.command += "-simd";
    out.threaded = false;
  }
  return out;
}

// Best time of the scop regions over `repeats` runs; the first run's output is kept.
VariantRun measure(const fs::path& dir, const Compiler& c, const std::string& source, const PolycBenchOptions& o,
                   const std::vector<double>* reference, std::vector<double>& output) {
  VariantRun r;
  r.variant = c.variant;
  const std::string name = c.variant;
  fs::path src = dir / (name + ".c"), exe = dir / name, log = dir / (name + ".log");
  write_file(src, source);
  int rc = run_shell(c.command + " -o " + poly::shell_quote(exe.string()) + " " + poly::shell_quote(src.string()) + " -lm > " +
                         poly::shell_quote(log.string()) + " 2>&1",
                     o.timeout_seconds);
  if (rc != 0) {
    r.error = (rc == 124 ? "compile timed out: " : "compile failed: ") + first_lines(slurp(log), 3);
    return r;
  }
  fs::path out = dir / (name + ".bin"), err = dir / (name + ".stderr");
  std::string env = "OMP_NUM_THREADS=" + std::to_string(c.threaded ? o.threads : 1) + " ";
  double best = INFINITY, spent = 0;
  // Slow variants stop repeating once they have used their share: a 10 s baseline run
  // is not noisy enough to need three of them, and the whole set must stay in minutes.
  for (int k = 0; k < std::max(1, o.repeats) && spent < o.variant_seconds; ++k) {
    std::string cmd = env + "PZ_BENCH_OUT=" + poly::shell_quote(k == 0 ? out.string() : "") + " " + poly::shell_quote(exe.string()) +
                      " > /dev/null 2> " + poly::shell_quote(err.string());
    rc = run_shell(cmd, o.timeout_seconds);
    if (rc != 0) {
      r.error = rc == 124 ? "run timed out" : "run failed with status " + std::to_string(rc);
      return r;
    }
    std::string text = slurp(err);
    auto at = text.rfind("pz_bench_seconds ");
    if (at == std::string::npos) {
      r.error = "no timing in the program's output";
      return r;
    }
    double t = std::strtod(text.c_str() + at + 17, nullptr);
    best = std::min(best, t);
    spent += t;
  }
  r.seconds = best;
  output = read_doubles(out);
  if (output.empty()) {
    r.error = "no output values";
    return r;
  }
  if (reference) {
    r.max_error = compare(*reference, output);
    if (!(r.max_error <= kTolerance)) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "output differs from gcc -O3 (max relative error %.3g)", r.max_error);
      r.error = buf;
      return r;
    }
  }
  r.ok = true;
  return r;
}

class TempDir {
 public:
  explicit TempDir(const std::string& requested) {
    if (!requested.empty()) {
      path_ = requested;
      fs::create_directories(path_);
      return;
    }
    std::string tmpl = (fs::temp_directory_path() / "pz_bench_polyc_XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory");
    path_ = tmpl;
    owned_ = true;
  }
  ~TempDir() {
    std::error_code ec;
    if (owned_) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool owned_ = false;
};

}  // namespace

const VariantRun* KernelResult::run(const std::string& variant) const {
  for (const auto& r : runs)
    if (r.variant == variant) return &r;
  return nullptr;
}

double KernelResult::speedup_over(const std::string& variant) const {
  const VariantRun *base = run(variant), *mine = run("polyc");
  if (!base || !mine || !base->ok || !mine->ok || mine->seconds <= 0) return 0;
  return base->seconds / mine->seconds;
}

std::vector<std::string> default_polyc_kernels() {
  return {"gemm",   "2mm",       "3mm",       "syrk",    "syr2k",   "trmm",          "gemver",
          "atax",   "bicg",      "mvt",       "lu",      "cholesky", "covariance",   "floyd-warshall",
          "jacobi-1d", "jacobi-2d", "seidel-2d", "fdtd-2d", "heat-3d"};
}

std::map<std::string, std::string> polyc_bench_sizes(const std::string& kernel, const std::string& size) {
  if (size == "small") return {};
  auto k = size_table().find(kernel);
  if (k == size_table().end()) throw std::invalid_argument("no benchmark sizes for kernel '" + kernel + "' (use --size small)");
  auto s = k->second.find(size);
  if (s == k->second.end()) throw std::invalid_argument("unknown size '" + size + "' (large, medium or small)");
  return s->second;
}

std::string resize_kernel(const std::string& source, const std::map<std::string, std::string>& sizes) {
  std::string out = source;
  for (const auto& [name, value] : sizes) {
    std::regex define("(^|\n)[ \t]*#[ \t]*define[ \t]+" + name + "[ \t]+[^\n]*");
    std::smatch m;
    if (!std::regex_search(out, m, define)) throw std::invalid_argument("the kernel has no '#define " + name + "'");
    out = m.prefix().str() + m[1].str() + "#define " + name + " " + value + m.suffix().str();
  }
  return out;
}

std::string add_timers(const std::string& source) {
  static const std::regex scop(R"((^|\n)([ \t]*)#[ \t]*pragma[ \t]+scop[ \t]*\n)");
  static const std::regex endscop(R"((\n[ \t]*)#[ \t]*pragma[ \t]+endscop[ \t]*(\n|$))");
  std::string out = std::regex_replace(source, scop, "$1$2pz_bench_start();\n$2#pragma scop\n");
  out = std::regex_replace(out, endscop, "$1#pragma endscop$1pz_bench_stop();$2");
  return out;
}

std::string add_harness_prelude(const std::string& source) { return kPrelude + source; }

PolycBenchResult run_polyc_bench(const PolycBenchOptions& options) {
  PolycBenchOptions o = options;
  if (o.kernels.empty()) o.kernels = default_polyc_kernels();
  if (o.kernels_dir.empty())
    o.kernels_dir = util::require_data_dir({"PZ_KERNELS_DIR", "kernels", "tests/polyhedral/kernels", "gemm.c"},
                                           "the benchmark kernels");
  auto say = [&](const std::string& s) {
    if (o.progress) o.progress(s);
  };
  // Sizes are checked before anything is compiled: a typo fails at once.
  std::map<std::string, Sizes> sizes;
  std::map<std::string, std::string> sources;
  for (const auto& k : o.kernels) {
    sizes[k] = polyc_bench_sizes(k, o.size);
    fs::path file = fs::path(o.kernels_dir) / (k + ".c");
    if (!fs::exists(file)) throw std::invalid_argument("no kernel file " + file.string());
    sources[k] = slurp(file);
  }
  TempDir dir(o.work_dir);
  PolycBenchResult result;
  std::vector<Compiler> compilers = find_compilers(dir.path(), o, result.notes);
  for (const auto& c : compilers) {
    result.variants.push_back(c.variant);
    std::string flags = c.command;
    if (c.uses_polyc) flags = "polyc --tile auto --parallel --vectorize, then " + flags;
    if (c.uses_polyc) flags += " (-fopenmp-simd where the output has no parallel loop)";
    if (c.threaded) flags += " (OMP_NUM_THREADS=" + std::to_string(o.threads) + ")";
    result.notes.push_back(c.variant + ": " + flags);
  }
  poly::PolycOptions po;
  po.tile.mode = poly::TileOptions::Mode::kAuto;
  po.tile.cache = poly::CacheInfo::detect();
  po.parallel = po.vectorize = true;
  po.data_movement = false;  // the bench times the generated code, not the analysis

  for (const auto& k : o.kernels) {
    KernelResult kr;
    kr.kernel = k;
    kr.sizes = sizes[k];
    std::string safe = k;
    for (auto& ch : safe)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    fs::path kdir = dir.path() / safe;
    fs::create_directories(kdir);
    const std::string sized = add_timers(resize_kernel(sources[k], kr.sizes));
    std::string transformed;
    std::string polyc_error;
    try {
      transformed = poly::polyc(sized, po).output;
    } catch (const std::exception& e) {
      polyc_error = std::string("polyc failed: ") + e.what();
    }
    std::vector<double> reference;
    bool have_reference = false;
    for (const auto& c : compilers) {
      say(k + ": " + c.variant);
      VariantRun r;
      std::vector<double> out;
      if (c.uses_polyc && !polyc_error.empty()) {
        r.variant = c.variant;
        r.error = polyc_error;
      } else {
        r = measure(kdir, c.uses_polyc ? compiler_for(c, transformed) : c,
                    add_harness_prelude(c.uses_polyc ? transformed : sized), o, have_reference ? &reference : nullptr, out);
      }
      if (c.variant == "gcc" && r.ok) {
        reference = std::move(out);
        have_reference = true;
      }
      if (!r.ok) {
        say(k + ": " + c.variant + ": " + r.error);
        // A wrong or failing polyc fails the run; a baseline's wrong output is reported (and
        // left out of the means) but is not ours to fail on.
        if (c.uses_polyc) result.polyc_ok = false;
      }
      kr.runs.push_back(r);
    }
    result.kernels.push_back(std::move(kr));
  }
  for (const auto& v : result.variants) {
    if (v == "polyc") continue;
    double log_sum = 0;
    int n = 0;
    for (const auto& kr : result.kernels)
      if (double s = kr.speedup_over(v); s > 0) {
        log_sum += std::log(s);
        ++n;
      }
    result.geomean_count[v] = n;
    result.geomean_speedup[v] = n ? std::exp(log_sum / n) : 0;
  }
  return result;
}

std::string format_polyc_table(const PolycBenchResult& r) {
  std::ostringstream out;
  char buf[64];
  out << "times: best of the runs, scop regions only (seconds); speedup = baseline time / polyc time\n";
  std::snprintf(buf, sizeof buf, "%-16s", "kernel");
  out << buf;
  for (const auto& v : r.variants) {
    std::snprintf(buf, sizeof buf, " %14s", v.c_str());
    out << buf;
  }
  out << "  |";
  for (const auto& v : r.variants)
    if (v != "polyc") {
      std::snprintf(buf, sizeof buf, " %14s", ("vs " + v).c_str());
      out << buf;
    }
  out << "\n";
  for (const auto& k : r.kernels) {
    std::snprintf(buf, sizeof buf, "%-16s", k.kernel.c_str());
    out << buf;
    for (const auto& v : r.variants) {
      const VariantRun* run = k.run(v);
      if (run && run->ok) std::snprintf(buf, sizeof buf, " %14.4f", run->seconds);
      else std::snprintf(buf, sizeof buf, " %14s", run && run->error.rfind("output differs", 0) == 0 ? "WRONG" : "failed");
      out << buf;
    }
    out << "  |";
    for (const auto& v : r.variants)
      if (v != "polyc") {
        double s = k.speedup_over(v);
        if (s > 0) std::snprintf(buf, sizeof buf, " %13.2fx", s);
        else std::snprintf(buf, sizeof buf, " %14s", "-");
        out << buf;
      }
    out << "\n";
  }
  std::snprintf(buf, sizeof buf, "%-16s", "geomean");
  out << buf;
  for (size_t i = 0; i < r.variants.size(); ++i) out << std::string(15, ' ');
  out << "  |";
  for (const auto& v : r.variants)
    if (v != "polyc") {
      auto g = r.geomean_speedup.find(v);
      if (g != r.geomean_speedup.end() && g->second > 0) std::snprintf(buf, sizeof buf, " %13.2fx", g->second);
      else std::snprintf(buf, sizeof buf, " %14s", "-");
      out << buf;
    }
  out << "\n";
  for (const auto& k : r.kernels)
    for (const auto& run : k.runs)
      if (!run.ok) out << "  " << k.kernel << " / " << run.variant << ": " << run.error << "\n";
  for (const auto& n : r.notes) out << "  " << n << "\n";
  bool baselines_agree = true;
  for (const auto& k : r.kernels)
    for (const auto& run : k.runs)
      if (run.variant != "polyc" && run.error.rfind("output differs", 0) == 0) baselines_agree = false;
  out << (r.polyc_ok ? "polyc's output agrees with gcc -O3 within 1e-6 on every kernel\n"
                              : "POLYC FAILED OR GAVE WRONG OUTPUT (see above)\n");
  if (!baselines_agree) out << "some baseline outputs differ from gcc -O3 (WRONG above; left out of the means)\n";
  return out.str();
}

std::string format_polyc_json(const PolycBenchResult& r) {
  nlohmann::json j;
  j["variants"] = r.variants;
  j["notes"] = r.notes;
  j["polyc_ok"] = r.polyc_ok;
  j["kernels"] = nlohmann::json::array();
  for (const auto& k : r.kernels) {
    nlohmann::json jk;
    jk["kernel"] = k.kernel;
    jk["sizes"] = k.sizes;
    for (const auto& run : k.runs) {
      nlohmann::json jr = {{"ok", run.ok}, {"max_error", run.max_error}};
      if (run.ok) jr["seconds"] = run.seconds;
      if (!run.error.empty()) jr["error"] = run.error;
      jk["runs"][run.variant] = jr;
    }
    for (const auto& v : r.variants)
      if (v != "polyc" && k.speedup_over(v) > 0) jk["speedup_over"][v] = k.speedup_over(v);
    j["kernels"].push_back(jk);
  }
  for (const auto& [v, g] : r.geomean_speedup) {
    j["geomean_speedup"][v] = g;
    j["geomean_kernels"][v] = r.geomean_count.at(v);
  }
  return j.dump(2) + "\n";
}

}  // namespace pz::bench
