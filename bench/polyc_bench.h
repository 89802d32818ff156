// `polyzero bench polyc`: polyc's output against GCC, Graphite and LLVM Polly on the
// PolyBench-style kernels of tests/polyhedral/kernels, all measured in one run; or, with
// suite "polybench", on the unmodified PolyBench/C 4.2.1 sources at any of its dataset sizes.
//
// Suite "polybench": every variant compiles the kernel's own file with PolyBench's flags
// (-D<SIZE>_DATASET -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS, utilities/ on the include
// path) and links one polybench.o; polyc reads the file after the preprocessor and writes
// it back with the region replaced (polyc.h), then gcc compiles that. Times are PolyBench's
// own (the kernel call; RDTSC ticks where the CPU's counter is invariant), the median (or best) of the repeats, every variant's runs
// interleaved round by round after its first (each round with its own stack shift, a short
// run after an untimed one of the same binary); the array dumps (stderr) are compared with
// gcc -O3's. Variants: gcc -O3, Polly, parallel Polly (T threads), polyc on 1 and on T
// threads (one binary). Where polyc's dump differs beyond the tolerance, polyc
// --no-reassociate built with -ffp-contract=off must match gcc -O3 -ffp-contract=off
// exactly: then the kernel is ill-conditioned (gramschmidt's rank-deficient columns turn
// rounding into O(1) differences) and the result is accepted with a note.
//
// Each kernel file is resized (its `#define NAME <int>` lines get the sizes of the chosen
// set), a timing harness is put around its scop regions and its printf output is captured
// as binary doubles instead of text, so the kernel sources stay unmodified PolyBench-style
// C. Every variant is compiled in a private temporary directory, run `repeats` times (the
// median or best time of the scop regions kept), and its output compared with gcc -O3's.
//
// Decisions:
// - Baselines run single-threaded except Polly with -polly-parallel, which gets the same
//   OpenMP thread count as polyc's output: that is the fair comparison for a parallelising
//   compiler, and the plain Polly column shows what it does without threads.
// - A missing compiler is reported and its columns skipped, not an error.
// - Outputs agree when every value is within a relative 1e-6 of gcc -O3's (scaled by the
//   output's RMS for values near zero): the variants may contract a*b+c into FMAs
//   differently, so bit equality is not expected, but a wrong schedule is far outside it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace pz::bench {

struct PolycBenchOptions {
  // "kernels": the PolyBench-style kernels of tests/polyhedral/kernels (the quick default);
  // "polybench": the unmodified PolyBench/C 4.2.1 sources (see run_polyc_bench).
  std::string suite = "kernels";
  std::vector<std::string> kernels;  // empty: the default set (every PolyBench-style kernel)
  std::string size = "large";        // large | medium | small (the files' own, tiny sizes)
  int threads = 2;                   // OpenMP threads for polyc and parallel Polly
  int repeats = 3;                   // runs per variant (fewer once it has run variant_seconds)
  // What a variant's time is of its runs: "median" (robust where the machine's speed drifts
  // or another process takes a core now and then) or "best" (the fastest run).
  std::string statistic = "median";
  double variant_seconds = 3;
  std::string kernels_dir;           // empty: $PZ_KERNELS_DIR or beside the executable (util/data_dirs.h)
  std::string work_dir;              // empty: a fresh temporary directory, removed afterwards
  double timeout_seconds = 300;      // per compile or run
  std::function<void(const std::string&)> progress;  // one line per step (stderr in the CLI)
  // suite "polybench":
  std::string polybench_dir;               // empty: $POLYBENCH_DIR
  std::vector<std::string> datasets = {"SMALL"};  // MINI SMALL MEDIUM LARGE EXTRALARGE, or two as MINI-SMALL
  // empty: gcc polly polly-parallel polyc-1t polyc; also polyc-tuned (polyc --tune, one thread)
  std::vector<std::string> variants;
  double tune_seconds = 10;  // polyc-tuned: --tune-seconds per region
  // Also check polyc --no-reassociate, compiled with -ffp-contract=off, bit for bit against
  // gcc -O3 -ffp-contract=off (the test does; the bench does it only where the dumps differ).
  // The gcc reference is then itself built with -ffp-contract=off.
  bool strict = false;
  // -DPOLYBENCH_USE_SCALAR_LB for every variant: loop bounds are the dataset's constants
  // instead of the kernel function's size arguments (polyc's cost model then sees sizes).
  bool scalar_bounds = false;
  // A process spinning on one core (the last one this process may use, nice 0) for the
  // whole run: how the outputs fare on a machine that is not idle.
  bool busy_core = false;
};

struct VariantRun {
  std::string variant;  // gcc, graphite, polly, polly-parallel, polyc
  bool ok = false;
  double seconds = 0;    // the statistic of `times`, scop regions only
  std::vector<double> times;  // every run's time, in the order run
  double max_error = 0;  // against gcc -O3's output (see the header comment)
  std::string error;     // why it is not ok: compiler missing, compile failure, wrong output...
  std::string note;      // e.g. why differing dumps were accepted (ill-conditioned kernel)
};

struct KernelResult {
  std::string kernel;
  std::string dataset;  // suite "polybench": MINI ... EXTRALARGE
  std::map<std::string, std::string> sizes;  // the #define values used
  std::vector<VariantRun> runs;
  const VariantRun* run(const std::string& variant) const;
  // polyc's (or `mine`'s) speedup over `variant` (0 when either is missing or wrong).
  double speedup_over(const std::string& variant, const std::string& mine = "polyc") const;
};

struct PolycBenchResult {
  std::vector<std::string> variants;  // column order
  std::vector<std::string> notes;     // missing compilers, flags used
  std::vector<KernelResult> kernels;
  // Geometric mean over the kernels where both ran correctly, and how many those were.
  std::map<std::string, double> geomean_speedup;
  std::map<std::string, int> geomean_count;
  bool polyc_ok = true;  // polyc ran and matched gcc -O3 on every kernel
  std::string statistic = "median";  // PolycBenchOptions::statistic of the run
};

// The median (the mean of the middle two for an even count) or the least of `times`; 0 for
// none. std::invalid_argument for another statistic.
double summarise_times(std::vector<double> times, const std::string& statistic);

// Bytes of padding in the environment of a binary's run in timing round `round`. Where a
// process's stack starts depends on the size of its environment and arguments, so the
// addresses of a kernel's stack arrays against its heap arrays (4K aliasing, cache-line
// splits) change with them, and with them a small kernel's time, though the code is the same
// (Mytkowicz et al., "Producing Wrong Data Without Doing Anything Obviously Wrong!",
// ASPLOS 2009). Every variant runs round k with the same padding, and each round another:
// none in round 0, then (1040·k) mod 4096, which visits each multiple of 16 below 4096
// once in 256 rounds, so a statistic is taken over layouts rather than fixed by one.
int stack_shift_bytes(int round);

std::vector<std::string> default_polyc_kernels();
std::map<std::string, std::string> polyc_bench_sizes(const std::string& kernel, const std::string& size);

// The harness applied to one kernel source (exposed for tests): sizes substituted,
// timers around each scop region, printf captured.
std::string resize_kernel(const std::string& source, const std::map<std::string, std::string>& sizes);
std::string add_timers(const std::string& source);
std::string add_harness_prelude(const std::string& source);

// PolyBench/C 4.2.1. The directory is `given`, else $POLYBENCH_DIR; std::invalid_argument
// saying where it looked when neither holds utilities/polybench.h.
std::string find_polybench_dir(const std::string& given);
// The kernels of utilities/benchmark_list, as paths relative to the suite ("stencils/adi/adi.c").
std::vector<std::string> polybench_kernels(const std::string& dir);
// Two PolyBench array dumps (POLYBENCH_DUMP_ARRAYS) compared word by word: the frame's words
// ("begin dump: A", "end dump: A") equal, each number within `absolute` (the printed
// precision: 2 decimals) plus `relative` of the larger magnitude; NaN matches NaN.
struct DumpComparison {
  long long values = 0;             // numbers compared
  long long differing = 0;          // numbers outside the tolerance
  std::string structure;            // why the dumps do not line up (length, frame), or ""
  std::vector<std::string> first;   // the first differing numbers: "A[i]: expected against actual"
  bool agree() const { return differing == 0 && structure.empty() && values > 0; }
  // "" when they agree; else the count, the first differing values, the structural problem.
  std::string describe() const;
};
DumpComparison compare_polybench_dump_text(const std::string& expected, const std::string& actual, double relative,
                                           double absolute = 0.0100001, int listed = 3);
// The files' dumps compared with a relative 1e-6 (double). Returns "" when they agree, else
// the differences (DumpComparison::describe).
std::string compare_polybench_dumps(const std::string& reference_path, const std::string& path);

PolycBenchResult run_polyc_bench(const PolycBenchOptions& options);

std::string format_polyc_table(const PolycBenchResult& result);
std::string format_polyc_json(const PolycBenchResult& result);

}  // namespace pz::bench
