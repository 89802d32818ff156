#include "bench/polyc_bench.h"

#include <nlohmann/json.hpp>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "polyhedral/frontend/preprocess.h"
#include "polyhedral/polyc.h"
#include "polyhedral/runtime/shell.h"
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

// PolyBench's array dumps at EXTRALARGE reach hundreds of MiB (fdtd-2d prints three arrays
// of 2000 × 2600 values, lu one of 4000 × 4000), past read_text_file's default bound.
constexpr std::uint64_t kMaxDumpBytes = std::uint64_t{1} << 30;
std::string slurp_dump(const fs::path& p) { return util::read_text_file(p.string(), kMaxDumpBytes); }

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

}  // namespace

int stack_shift_bytes(int round) { return static_cast<int>((1040LL * round) % 4096); }

double summarise_times(std::vector<double> times, const std::string& statistic) {
  if (statistic != "median" && statistic != "best")
    throw std::invalid_argument("statistic must be median or best (got " + statistic + ")");
  if (times.empty()) return 0;
  std::sort(times.begin(), times.end());
  if (statistic == "best") return times.front();
  const std::size_t mid = times.size() / 2;
  return times.size() % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
}

namespace {

// The statistic of the scop regions' time over `repeats` runs; the first run's output is kept.
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
  double spent = 0;
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
    r.times.push_back(t);
    spent += t;
  }
  r.seconds = summarise_times(r.times, o.statistic);
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

double KernelResult::speedup_over(const std::string& variant, const std::string& mine_variant) const {
  const VariantRun *base = run(variant), *mine = run(mine_variant);
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

namespace {

// A process spinning on one core for as long as this object lives (--busy-core).
class BusyCore {
 public:
  explicit BusyCore(bool enabled) {
    if (!enabled) return;
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    int cpu = -1;
    if (::sched_getaffinity(0, sizeof allowed, &allowed) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &allowed)) cpu = c;
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("--busy-core: fork failed");
    if (pid_ == 0) {
      if (cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        ::sched_setaffinity(0, sizeof one, &one);
      }
      volatile unsigned long spin = 0;
      for (;;) spin = spin + 1;
    }
    cpu_ = cpu;
  }
  ~BusyCore() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  int cpu() const { return cpu_; }
  bool active() const { return pid_ > 0; }

 private:
  pid_t pid_ = -1;
  int cpu_ = -1;
};

const std::vector<std::string>& polybench_datasets() {
  static const std::vector<std::string> all = {"MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"};
  return all;
}

std::string kernel_name(const std::string& relative) { return fs::path(relative).stem().string(); }

// A dataset between two of PolyBench's ("MINI-SMALL"): sizes PolyBench does not define. Each
// size macro of the kernel's header is the smallest prime at or above the mean of its values
// in the two datasets; the time steps (TSTEPS, TMAX) are the smaller dataset's.
struct DatasetSpec {
  std::string name;            // as printed: "SMALL", "MINI-SMALL"
  std::string base;            // the -D<base>_DATASET the build defines
  std::string upper;           // "" for PolyBench's own datasets
};

DatasetSpec parse_dataset(const std::string& text) {
  std::string up = text;
  for (auto& ch : up) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const auto& all = polybench_datasets();
  auto index = [&](const std::string& d) { return std::find(all.begin(), all.end(), d) - all.begin(); };
  const std::size_t dash = up.find('-');
  const std::string lower = up.substr(0, dash), upper = dash == std::string::npos ? "" : up.substr(dash + 1);
  const long n = static_cast<long>(all.size());
  if (index(lower) == n || (dash != std::string::npos && (index(upper) == n || index(upper) <= index(lower))))
    throw std::invalid_argument("unknown dataset '" + text +
                                "' (MINI, SMALL, MEDIUM, LARGE, EXTRALARGE, all, or two of them in that order as "
                                "MINI-SMALL: sizes between them)");
  return {up, lower, upper};
}

// The `# define NAME VALUE` lines of `header`'s `# ifdef <dataset>_DATASET` block.
std::map<std::string, long long> header_dataset_sizes(const fs::path& header, const std::string& dataset) {
  const std::string text = slurp(header);
  const std::regex block("#\\s*ifdef\\s+" + dataset + "_DATASET([\\s\\S]*?)#\\s*endif");
  std::smatch m;
  std::map<std::string, long long> sizes;
  if (!std::regex_search(text, m, block)) return sizes;
  static const std::regex define(R"(#\s*define\s+([A-Z][A-Z0-9_]*)\s+(\d+))");
  const std::string body = m[1];
  for (auto it = std::sregex_iterator(body.begin(), body.end(), define); it != std::sregex_iterator(); ++it)
    sizes[(*it)[1]] = std::stoll((*it)[2]);
  return sizes;
}

long long prime_at_or_above(long long n) {
  for (n = std::max(n, 2LL);; ++n) {
    bool prime = true;
    for (long long d = 2; d * d <= n && prime; ++d) prime = n % d != 0;
    if (prime) return n;
  }
}

// The -D<NAME>=<value> flags of a between-dataset for the kernel `src` (its header beside
// it); none for PolyBench's own datasets. Throws when the header has no such blocks.
std::vector<std::string> between_size_flags(const DatasetSpec& ds, const fs::path& src) {
  std::vector<std::string> flags;
  if (ds.upper.empty()) return flags;
  const fs::path header = fs::path(src).replace_extension(".h");
  const auto lower = header_dataset_sizes(header, ds.base), upper = header_dataset_sizes(header, ds.upper);
  if (lower.empty() || upper.empty())
    throw std::runtime_error(header.string() + " defines no sizes for " + ds.base + "_DATASET and " + ds.upper + "_DATASET");
  for (const auto& [name, low] : lower) {
    const auto high = upper.find(name);
    const bool steps = name == "TSTEPS" || name == "TMAX";
    const long long value = steps || high == upper.end() ? low : prime_at_or_above((low + high->second) / 2);
    flags.push_back("-D" + name + "=" + std::to_string(value));
  }
  return flags;
}

struct PolybenchRun {
  int rc = 0;
  double seconds = 0;
};

// PolyBench's kernel timer. gettimeofday prints whole microseconds, too coarse for the
// MINI kernels (1-10 us), so where the CPU has an invariant time-stamp counter the runs use
// PolyBench's own POLYBENCH_CYCLE_ACCURATE_TIMER (RDTSC ticks), converted to seconds at the
// counter's rate measured here against the steady clock.
struct PolybenchClock {
  std::string flag;               // the extra -D, empty for gettimeofday
  double ticks_per_second = 1.0;  // what one printed unit is worth
};

#if defined(__x86_64__)
bool cpu_has_invariant_tsc() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line);
    bool constant = false, nonstop = false;
    for (std::string w; words >> w;) {
      constant = constant || w == "constant_tsc";
      nonstop = nonstop || w == "nonstop_tsc";
    }
    return constant && nonstop;
  }
  return false;
}

double measured_tsc_rate() {
  auto ticks = [] {
    unsigned lo = 0, hi = 0;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return static_cast<double>((static_cast<unsigned long long>(hi) << 32) | lo);
  };
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const double c0 = ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double c1 = ticks();
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return (c1 - c0) / seconds;
}
#endif

const PolybenchClock& polybench_clock() {
  static const PolybenchClock clock = [] {
    PolybenchClock c;
#if defined(__x86_64__)
    if (cpu_has_invariant_tsc()) {
      c.flag = "-DPOLYBENCH_CYCLE_ACCURATE_TIMER";
      c.ticks_per_second = measured_tsc_rate();
    }
#endif
    return c;
  }();
  return clock;
}

// Runs `exe` (PolyBench with -DPOLYBENCH_TIME prints the kernel's time on stdout, in
// polybench_clock()'s units), its dump to `dump` when not empty, with the environment of
// layout round `round` (stack_shift_bytes).
PolybenchRun run_polybench_binary(const fs::path& exe, int threads, const fs::path& dump, const fs::path& out, double timeout,
                                  int round = 0) {
  PolybenchRun r;
  std::string cmd = "PZ_BENCH_STACK_SHIFT=" + std::string(stack_shift_bytes(round), 'x') + " OMP_NUM_THREADS=" +
                    std::to_string(threads) + " " + poly::shell_quote(exe.string()) + " > " +
                    poly::shell_quote(out.string()) + " 2> " + (dump.empty() ? std::string("/dev/null") : poly::shell_quote(dump.string()));
  r.rc = run_shell(cmd, timeout);
  if (r.rc != 0) return r;
  std::istringstream text(slurp(out));
  std::string word, last;
  while (text >> word) last = word;
  char* end = nullptr;
  r.seconds = std::strtod(last.c_str(), &end) / polybench_clock().ticks_per_second;
  if (last.empty() || end != last.c_str() + last.size()) r.rc = -2;
  return r;
}

int compile_polybench(const std::string& command, const fs::path& src, const fs::path& exe, const fs::path& polybench_o,
                      const fs::path& log, double timeout) {
  return run_shell(command + " -o " + poly::shell_quote(exe.string()) + " " + poly::shell_quote(src.string()) + " " +
                       poly::shell_quote(polybench_o.string()) + " -lm > " + poly::shell_quote(log.string()) + " 2>&1",
                   timeout);
}

std::string polybench_run_error(int rc) {
  return rc == 124 ? "run timed out" : rc == -2 ? "no time printed" : "run failed with status " + std::to_string(rc);
}

// The binary of one entry of KernelResult::runs and its thread count.
struct TimedBinary {
  fs::path exe;
  int threads = 1;
};

constexpr double kWarmRunBelowSeconds = 0.01;

// The runs after each variant's first: round by round, every variant once a round, so that
// a machine whose speed drifts over minutes (a shared VM, another process) slows all the
// variants alike instead of whichever ran while it was slow; each round with its own stack
// shift (stack_shift_bytes), the same for every variant. A variant whose first run took
// less than kWarmRunBelowSeconds runs once untimed right before each timed run, as
// PolyBench's own time_benchmark.sh runs a binary back to back: a kernel of microseconds
// run right after other processes starts colder than one run after itself, in a time too
// short to hide it. A variant that has run variant_seconds in all stops repeating. Then
// each variant's time is the statistic of its runs. Returns the variants whose repeat failed.
std::vector<std::string> time_interleaved(KernelResult& kr, const std::vector<TimedBinary>& timed, const PolycBenchOptions& o,
                                          const fs::path& out, const std::function<void(const std::string&)>& say) {
  std::vector<std::string> failed;
  for (int k = 1; k < o.repeats; ++k)
    for (std::size_t i = 0; i < kr.runs.size(); ++i) {
      VariantRun& r = kr.runs[i];
      double spent = 0;
      for (double t : r.times) spent += t;
      if (!r.ok || spent >= o.variant_seconds) continue;
      const bool warm_up = !r.times.empty() && r.times.front() < kWarmRunBelowSeconds;
      PolybenchRun pr;
      if (warm_up) pr = run_polybench_binary(timed[i].exe, timed[i].threads, fs::path(), out, o.timeout_seconds, k);
      if (pr.rc == 0) pr = run_polybench_binary(timed[i].exe, timed[i].threads, fs::path(), out, o.timeout_seconds, k);
      if (pr.rc != 0) {
        r.ok = false;
        r.error = "repeat " + std::to_string(k + 1) + ": " + polybench_run_error(pr.rc);
        say(r.variant + ": " + r.error);
        failed.push_back(r.variant);
        continue;
      }
      r.times.push_back(pr.seconds);
    }
  for (VariantRun& r : kr.runs)
    if (!r.times.empty()) r.seconds = summarise_times(r.times, o.statistic);
  return failed;
}

bool is_polyc_variant(const std::string& v) { return v == "polyc" || v == "polyc-1t" || v == "polyc-tuned"; }

std::string join_flags(const std::vector<std::string>& flags) {
  std::string out;
  for (const auto& f : flags) out += " " + poly::shell_quote(f);
  return out;
}

// Per variant other than polyc: the geometric mean of polyc's speed-up over it, and over
// how many kernels (those where both ran).
void fill_geomeans(PolycBenchResult& result) {
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
}

// The dataset's sizes for --tune-sizes: PolyBench passes each size to the kernel as the
// lower-case name of its macro (NI as ni, TSTEPS as tsteps); every integer macro the
// preprocessor defines is offered, and polyc takes those that name a region's sizes.
std::map<std::string, long long> dataset_sizes(const std::string& command, const fs::path& src, const fs::path& out,
                                               double timeout) {
  std::map<std::string, long long> sizes;
  if (run_shell(command + " -E -dM " + poly::shell_quote(src.string()) + " > " + poly::shell_quote(out.string()) + " 2>/dev/null",
                timeout) != 0)
    return sizes;
  static const std::regex define(R"(^#define ([A-Z][A-Z0-9_]*) (\d+)$)");
  std::istringstream lines(slurp(out));
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, define) || m[2].str().size() > 9) continue;
    std::string name = m[1];
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    sizes[name] = std::stoll(m[2]);
  }
  return sizes;
}

PolycBenchResult run_polybench_suite(const PolycBenchOptions& options) {
  PolycBenchOptions o = options;
  const std::string pb = find_polybench_dir(o.polybench_dir);
  auto say = [&](const std::string& s) {
    if (o.progress) o.progress(s);
  };
  std::vector<DatasetSpec> datasets;
  for (const auto& d : o.datasets) {
    std::string up = d;
    for (auto& ch : up) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (up == "ALL") {
      datasets.clear();
      for (const auto& all : polybench_datasets()) datasets.push_back({all, all, ""});
      break;
    }
    datasets.push_back(parse_dataset(d));
  }
  if (datasets.empty()) throw std::invalid_argument("no dataset given");
  const std::vector<std::string> all_kernels = polybench_kernels(pb);
  std::vector<std::string> kernels;
  if (o.kernels.empty()) {
    kernels = all_kernels;
  } else {
    for (const auto& k : o.kernels) {
      auto it = std::find_if(all_kernels.begin(), all_kernels.end(), [&](const std::string& p) { return kernel_name(p) == k; });
      if (it == all_kernels.end()) throw std::invalid_argument("no PolyBench kernel '" + k + "' in " + pb + "/utilities/benchmark_list");
      kernels.push_back(*it);
    }
  }
  const std::vector<std::string> all_variants = {"gcc", "polly", "polly-parallel", "polyc-1t", "polyc", "polyc-tuned"};
  // polyc-tuned times a dozen candidates per region: only when asked for.
  std::vector<std::string> wanted = o.variants;
  if (wanted.empty()) wanted.assign(all_variants.begin(), all_variants.end() - 1);
  for (const auto& v : wanted)
    if (std::find(all_variants.begin(), all_variants.end(), v) == all_variants.end())
      throw std::invalid_argument("unknown variant '" + v + "' (gcc, polly, polly-parallel, polyc-1t, polyc, polyc-tuned)");
  if (std::find(wanted.begin(), wanted.end(), "gcc") == wanted.end()) wanted.insert(wanted.begin(), "gcc");
  auto want = [&](const std::string& v) { return std::find(wanted.begin(), wanted.end(), v) != wanted.end(); };

  TempDir dir(o.work_dir);
  PolycBenchResult result;
  result.statistic = o.statistic;
  summarise_times({}, o.statistic);  // an unknown statistic fails before any compile
  BusyCore busy(o.busy_core);
  if (busy.active())
    result.notes.push_back("busy core: a spinning process (nice 0) pinned to CPU " + std::to_string(busy.cpu()) + " for the whole run");
  // Compilers, as in the kernel suite (a missing one drops its columns).
  std::vector<std::string> notes;
  std::vector<Compiler> found = find_compilers(dir.path(), o, notes);
  std::map<std::string, std::string> command;
  for (const auto& c : found) command[c.variant] = c.command;
  for (const auto& n : notes)
    if (n.rfind("graphite", 0) != 0) result.notes.push_back(n);
  command["polyc-1t"] = command["polyc-tuned"] = command["polyc"];
  for (const auto& v : all_variants)
    if (want(v) && command.count(v)) result.variants.push_back(v);
  const std::string strict_flag = " -ffp-contract=off";
  for (const auto& v : result.variants) {
    std::string what = v == "polyc" || v == "polyc-1t"
                           ? "polyzero polyc --cpp --tile auto --parallel --vectorize, then " + command[v]
                           : command[v];
    if (v == "polyc-tuned")
      what = "polyzero polyc --cpp --tile auto --parallel --vectorize --tune --tune-cold --tune-constant-sizes --tune-threads 1 --tune-seconds " +
             std::to_string(static_cast<int>(o.tune_seconds)) + " --tune-sizes <the dataset's sizes>, then " + command[v];
    if (v == "polyc-1t" || v == "polyc-tuned") what += " (OMP_NUM_THREADS=1)";
    if (v == "polyc" || v == "polly-parallel") what += " (OMP_NUM_THREADS=" + std::to_string(o.threads) + ")";
    result.notes.push_back(v + ": " + what);
  }
  result.notes.push_back("PolyBench " + pb + ": -D<SIZE>_DATASET -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS" +
                         std::string(o.scalar_bounds ? " -DPOLYBENCH_USE_SCALAR_LB" : "") + ", polybench.o by gcc -O2; "
                         "times are PolyBench's (the kernel call" +
                         std::string(polybench_clock().flag.empty() ? "" : ", RDTSC ticks at the measured counter rate") +
                         "), the " + o.statistic + " of " + std::to_string(o.repeats) +
                         " runs, the variants' runs interleaved, each round with its own stack shift, a run of a binary "
                         "whose first took under " + std::to_string(static_cast<int>(kWarmRunBelowSeconds * 1000)) +
                         " ms right after an untimed one");
  for (const auto& spec : datasets)
    if (!spec.upper.empty())
      result.notes.push_back(spec.name + ": each size macro the smallest prime at or above the mean of its " + spec.base +
                             " and " + spec.upper + " values, the time steps " + spec.base + "'s (-D<NAME>=<value>)");

  poly::PolycOptions po;
  po.tile.mode = poly::TileOptions::Mode::kAuto;
  po.tile.cache = poly::CacheInfo::detect();
  po.parallel = po.vectorize = true;
  po.matmul.enabled = true;
  po.data_movement = false;
  poly::PolycOptions strict_po = po;
  strict_po.reassociate = false;

  for (const auto& spec : datasets) {
    const std::string& ds = spec.name;
    std::vector<std::string> cpp_flags = {"-I" + pb + "/utilities", "-D" + spec.base + "_DATASET", "-DPOLYBENCH_TIME",
                                          "-DPOLYBENCH_DUMP_ARRAYS"};
    if (!polybench_clock().flag.empty()) cpp_flags.push_back(polybench_clock().flag);
    if (o.scalar_bounds) cpp_flags.push_back("-DPOLYBENCH_USE_SCALAR_LB");
    const fs::path dsdir = dir.path() / ds;
    fs::create_directories(dsdir);
    const fs::path polybench_o = dsdir / "polybench.o";
    if (run_shell("gcc -O2" + join_flags(cpp_flags) + " -c -o " + poly::shell_quote(polybench_o.string()) + " " +
                      poly::shell_quote(pb + "/utilities/polybench.c") + " > " + poly::shell_quote((dsdir / "polybench.log").string()) + " 2>&1",
                  o.timeout_seconds) != 0)
      throw std::runtime_error("cannot compile " + pb + "/utilities/polybench.c: " + first_lines(slurp(dsdir / "polybench.log"), 3));
    for (const auto& rel : kernels) {
      const std::string name = kernel_name(rel);
      const fs::path src = fs::path(pb) / rel;
      std::vector<std::string> flags = cpp_flags;
      flags.push_back("-I" + src.parent_path().string());
      for (const auto& f : between_size_flags(spec, src)) flags.push_back(f);
      const std::string fl = join_flags(flags);
      KernelResult kr;
      kr.kernel = name;
      kr.dataset = ds;
      const fs::path kdir = dsdir / name;
      fs::create_directories(kdir);
      // polyc's output, and (for the strict check) its --no-reassociate output.
      std::string polyc_error;
      const fs::path polyc_src = kdir / (name + ".polyc.c"), strict_src = kdir / (name + ".polyc-strict.c");
      auto run_polyc = [&](const poly::PolycOptions& opts, const fs::path& out) {
        try {
          poly::PreprocessOptions cpp;
          cpp.compiler = "gcc";
          cpp.flags = flags;
          write_file(out, poly::polyc(slurp(src), poly::preprocess_c_file(src.string(), cpp), opts).output);
          return std::string();
        } catch (const std::exception& e) {
          return std::string("polyc failed: ") + e.what();
        }
      };
      if (want("polyc") || want("polyc-1t")) {
        say(ds + " " + name + ": polyc");
        polyc_error = run_polyc(po, polyc_src);
      }
      std::string tuned_error;
      const fs::path tuned_src = kdir / (name + ".polyc-tuned.c");
      if (want("polyc-tuned")) {
        say(ds + " " + name + ": polyc --tune");
        poly::PolycOptions tuned = po;
        tuned.tune.enabled = true;
        tuned.tune.threads = 1;
        tuned.tune.cold = true;            // PolyBench flushes the caches before its timed call
        tuned.tune.constant_sizes = true;  // and calls its static kernel once, with constants
        tuned.tune.seconds = o.tune_seconds;
        tuned.tune.sizes = dataset_sizes(command["gcc"] + fl, src, kdir / "macros.txt", o.timeout_seconds);
        tuned_error = run_polyc(tuned, tuned_src);
      }
      const fs::path ref_dump = kdir / "gcc.dump";
      bool polyc_built = false;  // polyc-1t and polyc run one binary
      bool have_reference = false;
      auto strict_check = [&](int threads) -> std::string {
        // gcc -O3 -ffp-contract=off against polyc --no-reassociate: the same operations in
        // the same order on every element, so the dumps must be identical.
        if (std::string e = run_polyc(strict_po, strict_src); !e.empty()) return e;
        const fs::path ref_exe = kdir / "gcc-strict", exe = kdir / "polyc-strict";
        const fs::path rd = kdir / "gcc-strict.dump", pd = kdir / "polyc-strict.dump", out = kdir / "strict.out";
        // With o.strict the reference itself was built with -ffp-contract=off.
        const bool reuse = o.strict && have_reference;
        if (!reuse && compile_polybench(command["gcc"] + strict_flag + fl, src, ref_exe, polybench_o,
                                        kdir / "gcc-strict.log", o.timeout_seconds) != 0)
          return "strict check: gcc -ffp-contract=off failed";
        if (compile_polybench(command["polyc"] + strict_flag + fl, strict_src, exe, polybench_o, kdir / "polyc-strict.log",
                              o.timeout_seconds) != 0)
          return "strict check: compiling polyc --no-reassociate's output failed: " + first_lines(slurp(kdir / "polyc-strict.log"), 3);
        if (!reuse && run_polybench_binary(ref_exe, 1, rd, out, o.timeout_seconds).rc != 0)
          return "strict check: gcc's binary failed";
        if (run_polybench_binary(exe, threads, pd, out, o.timeout_seconds).rc != 0) return "strict check: polyc's binary failed";
        const fs::path& reference = reuse ? ref_dump : rd;
        if (slurp_dump(reference) != slurp_dump(pd)) {
          std::string diff = compare_polybench_dumps(reference.string(), pd.string());
          return "polyc --no-reassociate differs from gcc -O3 (both -ffp-contract=off): " + (diff.empty() ? "rounding at print" : diff);
        }
        return "";
      };
      std::vector<TimedBinary> timed;  // per entry of kr.runs
      for (const auto& v : result.variants) {
        say(ds + " " + name + ": " + v);
        VariantRun r;
        r.variant = v;
        const bool is_tuned = v == "polyc-tuned", shares_polyc = v == "polyc" || v == "polyc-1t";
        const bool is_polyc = is_polyc_variant(v);
        const int threads = v == "polyc" || v == "polly-parallel" ? o.threads : 1;
        const fs::path exe = kdir / (shares_polyc ? "polyc" : v);
        const fs::path dump = kdir / (v + ".dump"), out = kdir / (v + ".out");
        const fs::path& source = is_tuned ? tuned_src : shares_polyc ? polyc_src : src;
        if (shares_polyc && !polyc_error.empty()) {
          r.error = polyc_error;
        } else if (is_tuned && !tuned_error.empty()) {
          r.error = tuned_error;
        } else if (!(shares_polyc && polyc_built) &&
                   compile_polybench(command[v] + (v == "gcc" && o.strict ? strict_flag : "") + fl, source, exe, polybench_o, kdir / (v + ".log"),
                                     o.timeout_seconds) != 0) {
          r.error = "compile failed: " + first_lines(slurp(kdir / (v + ".log")), 3);
        } else {
          polyc_built = polyc_built || shares_polyc;
          PolybenchRun pr = run_polybench_binary(exe, threads, dump, out, o.timeout_seconds);
          if (pr.rc != 0) r.error = polybench_run_error(pr.rc);
          if (r.error.empty()) {
            r.times.push_back(pr.seconds);
            if (v == "gcc") {
              have_reference = true;
              r.ok = true;
            } else if (!have_reference) {
              r.error = "no gcc -O3 reference to compare with";
            } else if (std::string diff = compare_polybench_dumps(ref_dump.string(), dump.string()); diff.empty()) {
              r.ok = true;
            } else if (is_polyc) {
              std::string strict = strict_check(threads);
              if (strict.empty()) {
                r.ok = true;
                r.note = "dump differs (" + diff + ") but polyc --no-reassociate matches gcc bit for bit: ill-conditioned";
              } else {
                r.error = "output differs from gcc -O3: " + diff + "; " + strict;
              }
            } else {
              r.error = "output differs from gcc -O3: " + diff;
            }
          }
        }
        if (v == "polyc" && r.ok && o.strict) {
          if (std::string strict = strict_check(threads); !strict.empty()) {
            r.ok = false;
            r.error = strict;
          }
        }
        if (!r.ok) {
          say(ds + " " + name + ": " + v + ": " + r.error);
          if (is_polyc) result.polyc_ok = false;
        }
        kr.runs.push_back(r);
        timed.push_back({exe, threads});
      }
      for (const std::string& v : time_interleaved(kr, timed, o, kdir / "repeat.out",
                                                    [&](const std::string& line) { say(ds + " " + name + ": " + line); }))
        if (is_polyc_variant(v)) result.polyc_ok = false;
      // The dumps of a large dataset take disk space; the binaries and sources stay.
      if (o.work_dir.empty())
        for (const auto& v : result.variants) {
          std::error_code ec;
          fs::remove(kdir / (v + ".dump"), ec);
        }
      result.kernels.push_back(std::move(kr));
    }
  }
  fill_geomeans(result);
  return result;
}

}  // namespace

std::string find_polybench_dir(const std::string& given) {
  std::vector<std::string> looked;
  auto holds = [](const std::string& d) { return fs::exists(fs::path(d) / "utilities" / "polybench.h"); };
  if (!given.empty()) {
    if (holds(given)) return given;
    looked.push_back("--polybench " + given);
  } else if (const char* env = std::getenv("POLYBENCH_DIR"); env && *env) {
    if (holds(env)) return env;
    looked.push_back("$POLYBENCH_DIR=" + std::string(env));
  } else {
    looked.push_back("$POLYBENCH_DIR (unset)");
  }
  std::string where;
  for (const auto& l : looked) where += (where.empty() ? "" : ", ") + l;
  throw std::invalid_argument("PolyBench/C 4.2.1 not found: looked in " + where +
                              " for utilities/polybench.h; give the unpacked suite with --polybench DIR or $POLYBENCH_DIR");
}

std::vector<std::string> polybench_kernels(const std::string& dir) {
  const fs::path list = fs::path(dir) / "utilities" / "benchmark_list";
  if (!fs::exists(list)) throw std::invalid_argument("no " + list.string() + " (is " + dir + " PolyBench/C 4.2.1?)");
  std::istringstream in(slurp(list));
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find_last_not_of(" \t\r") + 1);
    if (line.rfind("./", 0) == 0) line = line.substr(2);
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

std::string DumpComparison::describe() const {
  if (agree()) return "";
  std::string out;
  if (differing > 0) {
    out = std::to_string(differing) + " of " + std::to_string(values) + " values differ; first: ";
    for (size_t i = 0; i < first.size(); ++i) out += (i ? ", " : "") + first[i];
  }
  if (!structure.empty()) out += (out.empty() ? "" : "; ") + structure;
  if (out.empty()) out = "no values in the dumps";
  return out;
}

DumpComparison compare_polybench_dump_text(const std::string& expected, const std::string& actual, double relative,
                                           double absolute, int listed) {
  DumpComparison d;
  std::istringstream a(expected), b(actual);
  std::string x, y, array = "?", previous;
  long long index = 0;  // within the current array
  for (long long word = 0;; ++word) {
    const bool more_a = static_cast<bool>(a >> x), more_b = static_cast<bool>(b >> y);
    if (!more_a && !more_b) break;
    if (more_a != more_b) {
      d.structure = "the dumps differ in length at word " + std::to_string(word);
      break;
    }
    char* ex = nullptr;
    char* ey = nullptr;
    const double fx = std::strtod(x.c_str(), &ex), fy = std::strtod(y.c_str(), &ey);
    const bool numbers = !x.empty() && !y.empty() && *ex == 0 && *ey == 0;
    if (!numbers) {
      if (x != y) {
        d.structure = "word " + std::to_string(word) + ": " + x + " against " + y;
        break;
      }
      if (previous == "dump:") {
        array = x;
        index = 0;
      }
      previous = x;
      continue;
    }
    previous.clear();
    ++d.values;
    const long long at = index++;
    if (x == y || (std::isnan(fx) && std::isnan(fy))) continue;
    if (std::fabs(fx - fy) <= absolute + relative * std::max(std::fabs(fx), std::fabs(fy))) continue;
    if (static_cast<int>(d.first.size()) < listed) d.first.push_back(array + "[" + std::to_string(at) + "]: " + x + " against " + y);
    ++d.differing;
  }
  return d;
}

std::string compare_polybench_dumps(const std::string& reference_path, const std::string& path) {
  std::ifstream a(reference_path), b(path);
  if (!a) return "no reference dump " + reference_path;
  if (!b) return "no dump " + path;
  return compare_polybench_dump_text(slurp_dump(reference_path), slurp_dump(path), 1e-6).describe();
}

PolycBenchResult run_polyc_bench(const PolycBenchOptions& options) {
  if (options.suite == "polybench") return run_polybench_suite(options);
  if (options.suite != "kernels") throw std::invalid_argument("unknown suite '" + options.suite + "' (kernels or polybench)");
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
  result.statistic = o.statistic;
  summarise_times({}, o.statistic);  // an unknown statistic fails before any compile
  BusyCore busy(o.busy_core);
  if (busy.active())
    result.notes.push_back("busy core: a spinning process (nice 0) pinned to CPU " + std::to_string(busy.cpu()) + " for the whole run");
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
  po.matmul.enabled = true;
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
  fill_geomeans(result);
  return result;
}

namespace {

// Suite "polybench": one row per kernel and dataset, the speedups of polyc on 1 and on T
// threads, and the geometric means per dataset.
std::string format_polybench_table(const PolycBenchResult& r) {
  std::ostringstream out;
  char buf[96];
  auto has = [&](const std::string& v) { return std::find(r.variants.begin(), r.variants.end(), v) != r.variants.end(); };
  std::vector<std::pair<std::string, std::string>> ratios;  // (mine, baseline)
  for (const char* mine : {"polyc-1t", "polyc-tuned", "polyc"})
    for (const char* base : {"gcc", "polly", "polly-parallel"})
      if (has(mine) && has(base) && !(std::string(mine) != "polyc" && std::string(base) == "polly-parallel"))
        ratios.emplace_back(mine, base);
  out << "times: PolyBench's kernel time, " + r.statistic + " of the runs (seconds); speedup = baseline time / polyc time "
         "(polyc-1t: one thread, polyc-tuned: one thread after --tune, polyc: the bench's thread count)\n";
  std::snprintf(buf, sizeof buf, "%-15s %-10s", "kernel", "dataset");
  out << buf;
  for (const auto& v : r.variants) {
    std::snprintf(buf, sizeof buf, " %14s", v.c_str());
    out << buf;
  }
  out << "  |";
  for (const auto& [m, b] : ratios) {
    std::snprintf(buf, sizeof buf, " %18s", (m + "/" + b).c_str());
    out << buf;
  }
  out << "\n";
  std::vector<std::string> datasets;
  for (const auto& k : r.kernels)
    if (std::find(datasets.begin(), datasets.end(), k.dataset) == datasets.end()) datasets.push_back(k.dataset);
  for (const auto& ds : datasets) {
    for (const auto& k : r.kernels) {
      if (k.dataset != ds) continue;
      std::snprintf(buf, sizeof buf, "%-15s %-10s", k.kernel.c_str(), k.dataset.c_str());
      out << buf;
      for (const auto& v : r.variants) {
        const VariantRun* run = k.run(v);
        if (run && run->ok) std::snprintf(buf, sizeof buf, " %14.6f", run->seconds);
        else std::snprintf(buf, sizeof buf, " %14s", run && run->error.find("output differs") != std::string::npos ? "WRONG" : "failed");
        out << buf;
      }
      out << "  |";
      for (const auto& [m, b] : ratios) {
        double s = k.speedup_over(b, m);
        if (s > 0) std::snprintf(buf, sizeof buf, " %17.2fx", s);
        else std::snprintf(buf, sizeof buf, " %18s", "-");
        out << buf;
      }
      out << "\n";
    }
    std::snprintf(buf, sizeof buf, "%-15s %-10s", "geomean", ds.c_str());
    out << buf;
    for (size_t i = 0; i < r.variants.size(); ++i) out << std::string(15, ' ');
    out << "  |";
    for (const auto& [m, b] : ratios) {
      double log_sum = 0;
      int n = 0;
      for (const auto& k : r.kernels)
        if (double s = k.dataset == ds ? k.speedup_over(b, m) : 0; s > 0) {
          log_sum += std::log(s);
          ++n;
        }
      if (n) std::snprintf(buf, sizeof buf, " %12.2fx (%2d)", std::exp(log_sum / n), n);
      else std::snprintf(buf, sizeof buf, " %18s", "-");
      out << buf;
    }
    out << "\n";
  }
  for (const auto& k : r.kernels)
    for (const auto& run : k.runs) {
      if (!run.ok) out << "  " << k.kernel << " " << k.dataset << " / " << run.variant << ": " << run.error << "\n";
      if (!run.note.empty()) out << "  " << k.kernel << " " << k.dataset << " / " << run.variant << ": " << run.note << "\n";
    }
  for (const auto& n : r.notes) out << "  " << n << "\n";
  out << (r.polyc_ok ? "polyc's output agrees with gcc -O3's dumps on every kernel and dataset\n"
                     : "POLYC FAILED OR GAVE WRONG OUTPUT (see above)\n");
  return out.str();
}

}  // namespace

std::string format_polyc_table(const PolycBenchResult& r) {
  for (const auto& k : r.kernels)
    if (!k.dataset.empty()) return format_polybench_table(r);
  std::ostringstream out;
  char buf[64];
  out << "times: " + r.statistic + " of the runs, scop regions only (seconds); speedup = baseline time / polyc time\n";
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
  j["statistic"] = r.statistic;
  j["kernels"] = nlohmann::json::array();
  for (const auto& k : r.kernels) {
    nlohmann::json jk;
    jk["kernel"] = k.kernel;
    if (!k.dataset.empty()) jk["dataset"] = k.dataset;
    else jk["sizes"] = k.sizes;
    for (const auto& run : k.runs) {
      nlohmann::json jr = {{"ok", run.ok}, {"max_error", run.max_error}};
      if (run.ok) jr["seconds"] = run.seconds;
      if (!run.times.empty()) jr["times"] = run.times;
      if (!run.error.empty()) jr["error"] = run.error;
      if (!run.note.empty()) jr["note"] = run.note;
      jk["runs"][run.variant] = jr;
    }
    for (const auto& v : r.variants)
      if (v != "polyc" && k.speedup_over(v) > 0) jk["speedup_over"][v] = k.speedup_over(v);
    if (k.run("polyc-1t"))
      for (const auto& v : r.variants)
        if (v != "polyc" && v != "polyc-1t" && k.speedup_over(v, "polyc-1t") > 0)
          jk["speedup_1t_over"][v] = k.speedup_over(v, "polyc-1t");
    j["kernels"].push_back(jk);
  }
  for (const auto& [v, g] : r.geomean_speedup) {
    j["geomean_speedup"][v] = g;
    j["geomean_kernels"][v] = r.geomean_count.at(v);
  }
  // Suite "polybench": per dataset, the geometric means of polyc's (T threads) and
  // polyc-1t's speedups over each baseline, and how many kernels each covers.
  for (const auto& k : r.kernels) {
    if (k.dataset.empty()) continue;
    for (const char* mine : {"polyc", "polyc-1t"})
      for (const auto& base : r.variants) {
        if (base == "polyc" || base == "polyc-1t" || !k.run(mine)) continue;
        const double sp = k.speedup_over(base, mine);
        if (sp <= 0) continue;
        auto& slot = j["geomean_by_dataset"][k.dataset][std::string(mine) + "/" + base];
        const double n = slot.is_null() ? 0 : slot["kernels"].get<double>();
        const double log_mean = slot.is_null() ? 0 : slot["log_mean"].get<double>();
        slot["kernels"] = n + 1;
        slot["log_mean"] = (log_mean * n + std::log(sp)) / (n + 1);
        slot["speedup"] = std::exp(slot["log_mean"].get<double>());
      }
  }
  return j.dump(2) + "\n";
}

}  // namespace pz::bench
