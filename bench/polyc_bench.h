// `polyzero bench polyc`: polyc's output against GCC, Graphite and LLVM Polly on the
// PolyBench-style kernels of tests/polyhedral/kernels, all measured in one run.
//
// Each kernel file is resized (its `#define NAME <int>` lines get the sizes of the chosen
// set), a timing harness is put around its scop regions and its printf output is captured
// as binary doubles instead of text, so the kernel sources stay unmodified PolyBench-style
// C. Every variant is compiled in a private temporary directory, run `repeats` times (best
// time of the scop regions kept), and its output compared with gcc -O3's.
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
  std::vector<std::string> kernels;  // empty: the default set (every PolyBench-style kernel)
  std::string size = "large";        // large | medium | small (the files' own, tiny sizes)
  int threads = 2;                   // OpenMP threads for polyc and parallel Polly
  int repeats = 3;                   // best of (fewer once a variant has run variant_seconds)
  double variant_seconds = 3;
  std::string kernels_dir;           // empty: $PZ_KERNELS_DIR or beside the executable (util/data_dirs.h)
  std::string work_dir;              // empty: a fresh temporary directory, removed afterwards
  double timeout_seconds = 300;      // per compile or run
  std::function<void(const std::string&)> progress;  // one line per step (stderr in the CLI)
};

struct VariantRun {
  std::string variant;  // gcc, graphite, polly, polly-parallel, polyc
  bool ok = false;
  double seconds = 0;    // best of the repeats, scop regions only
  double max_error = 0;  // against gcc -O3's output (see the header comment)
  std::string error;     // why it is not ok: compiler missing, compile failure, wrong output...
};

struct KernelResult {
  std::string kernel;
  std::map<std::string, std::string> sizes;  // the #define values used
  std::vector<VariantRun> runs;
  const VariantRun* run(const std::string& variant) const;
  // polyc's speedup over `variant` (0 when either is missing or wrong).
  double speedup_over(const std::string& variant) const;
};

struct PolycBenchResult {
  std::vector<std::string> variants;  // column order
  std::vector<std::string> notes;     // missing compilers, flags used
  std::vector<KernelResult> kernels;
  // Geometric mean over the kernels where both ran correctly, and how many those were.
  std::map<std::string, double> geomean_speedup;
  std::map<std::string, int> geomean_count;
  bool polyc_ok = true;  // polyc ran and matched gcc -O3 on every kernel
};

std::vector<std::string> default_polyc_kernels();
std::map<std::string, std::string> polyc_bench_sizes(const std::string& kernel, const std::string& size);

// The harness applied to one kernel source (exposed for tests): sizes substituted,
// timers around each scop region, printf captured.
std::string resize_kernel(const std::string& source, const std::map<std::string, std::string>& sizes);
std::string add_timers(const std::string& source);
std::string add_harness_prelude(const std::string& source);

PolycBenchResult run_polyc_bench(const PolycBenchOptions& options);

std::string format_polyc_table(const PolycBenchResult& result);
std::string format_polyc_json(const PolycBenchResult& result);

}  // namespace pz::bench
