// Empirical tuning (polyc --tune): where the cost model may be wrong, run the candidates.
//
// A region's candidates are the codes polyc writes for it under a few option sets (the
// model's choice, the source as written, without tiles, without packing, ...; polyc.cpp
// lists them). Each distinct code is put into a harness program (tune_harness) that
// allocates the region's arrays at concrete sizes, fills them with deterministic values,
// runs the region once (the reference check's samples, and the cut-off), then again until a
// time budget or a run count is spent. Harnesses are compiled through the JIT's cache and run
// as child processes (util/subprocess.h): a candidate that crashes or runs past its deadline
// loses, and takes nothing else down. The fastest candidate whose samples agree with the
// source's (see exact_results) wins; the model's choice is kept unless another is faster
// by `margin`.
//
// This is the empirical search of ATLAS (Whaley & Dongarra, SC 1998) and of iterative
// compilation (Kisuki, Knijnenburg & O'Boyle, 2000), over polyc's own decisions.
//
// Sizes: the output keeps its symbolic sizes (it is correct for every size); only the
// timing needs values. A size comes from TuneOptions::sizes, else it is the largest value
// for which every access stays inside the declared extents of its array (in_bounds_sizes.h).
// A size no declaration bounds (a stencil's time steps) must be given; without it the region
// is not tuned.
//
// The choice is cached: a file under the cache directory whose key hashes every
// candidate's harness (its code, sizes, data), the thread count and the compiler, so the
// same region asked again is not timed again, and any change to what would be timed
// times anew.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "polyhedral/ir/scop.h"

namespace pz::poly {

struct TuneOptions {
  bool enabled = false;
  std::map<std::string, long long> sizes;  // values of size parameters for the timing runs
  double seconds = 20;                     // per region: every candidate's timing runs (not their compiling)
  int threads = 0;                         // OMP_NUM_THREADS of the timing runs (0: inherited)
  double margin = 0.05;                    // another candidate must beat the model's by this share
  // Each run starts with cold caches: flush_bytes of other data read and written before it,
  // as PolyBench does before its timed call. Off: runs follow each other on warm caches.
  bool cold = false;
  long long flush_bytes = 32LL << 20;
  // The sizes (and scalars) as constants the compiler sees, the region a static function
  // called from one place: what a kernel called once from main with constants becomes after
  // inlining and constant propagation (PolyBench's kernels). Off: runtime values, the region
  // a separate function, as a library kernel is compiled.
  bool constant_sizes = false;
  // Whether a candidate's results must agree with the source's within 1e-4 to be chosen. Off
  // (polyc with reassociation), finite results that differ more are reported but allowed:
  // reordered sums on ill-conditioned data (PolyBench's gramschmidt) differ legitimately.
  // Non-finite results where the source's are finite, or the reverse, always disqualify.
  bool exact_results = true;
  std::string cache_dir;                   // empty: default_cache_dir() (jit.h)
  std::string compiler = "gcc";
  std::string flags = "-O3 -march=native -fopenmp";
};

// The extent of each dimension of each array at `sizes`: its declared extents where they
// evaluate (integer constants, the sizes, + - * / and parentheses) and cover every access,
// else one past the largest subscript accessed. Scalars have none.
std::map<std::string, std::vector<long long>> tune_extents(const Scop& scop, const std::map<std::string, long long>& sizes);

// A C program (with main) that times `region_code` (the code polyc writes for the region,
// or the region as written) at `sizes`. Its arguments: the seconds of its first run past
// which it stops (it has lost), the seconds and the count of the runs after it, and the
// bytes to stream through the caches before each run (0: none). It prints
// one line "first BEST_SECONDS RUNS" with the first run's and the fastest run's seconds,
// then one line "samples V..." of values sampled from the arrays the region writes.
std::string tune_harness(const Scop& scop, const std::map<std::string, long long>& sizes, const std::string& region_code,
                         bool constant_sizes = false);

struct TuneCandidate {
  std::string name;  // "model", "source", "no-tiles", ...
  std::string code;
};

struct TuneResult {
  int chosen = 0;  // index into the candidates
  bool cached = false;
  std::vector<std::string> log;  // one line per candidate, then the decision
};

// Times the candidates (see the header comment) and picks one. candidates[0] is the model's
// choice; a candidate named "source" is the reference for the check. Throws
// std::runtime_error when a harness does not compile (a bug: the candidates are polyc's
// output for a region that compiles).
TuneResult tune_region(const Scop& scop, const std::map<std::string, long long>& sizes,
                       const std::vector<TuneCandidate>& candidates, const TuneOptions& options);

}  // namespace pz::poly
