// polyc: the source-to-source driver. Each scop region of a C file goes through
//   frontend → dependences → isl schedule → the schedule passes → C
// and replaces its region; the rest of the file is copied byte for byte. Every stage runs
// under a budget (stage_budget.h); a region whose pipeline runs over one is kept as written
// (its source order), with a warning naming the region and the stage.
//
// The schedule passes are a list of SchedulePass (pass.h), all of one signature, each
// re-checked for legality (an illegal step is undone and reported): time tiling (stencils),
// or loop order → tiling → unroll-and-jam; then parallel and simd marks. A reduction chain
// takes the register-blocked path instead (register_blocking.h); a scop with contractions is
// split into pieces, each contraction packed (matmul_packing.h), the rest compiled as above.
#pragma once

#include <string>
#include <vector>

#include "polyhedral/ir/isl_context.h"
#include "polyhedral/report.h"
#include "polyhedral/runtime/tuner.h"
#include "polyhedral/stage_budget.h"
#include "polyhedral/transform/matmul_packing.h"
#include "polyhedral/transform/register_blocking.h"
#include "polyhedral/transform/scheduler.h"
#include "polyhedral/transform/tiling.h"
#include "polyhedral/transform/time_tiling.h"

namespace pz::poly {

struct PolycOptions {
  ScheduleOptions schedule;
  TileOptions tile;
  TimeTileOptions time_tile;  // stencils: skewed time tiles run as parallel wavefronts
  bool parallel = false;   // mark outer parallel loops `omp parallel for`
  bool vectorize = false;  // mark innermost parallel loops `omp simd`
  int unroll_jam = 4;      // register tiling factor of the innermost band (< 2: off)
  // Whether sums may be reordered: `omp parallel for reduction(...)` and scalar `omp simd
  // reduction` accumulators (reductions.h). Off, every array element and scalar receives
  // its operations in the source's order, so the output compiled with -ffp-contract=off
  // computes bit for bit what the source does (the PolyBench test checks exactly that).
  bool reassociate = true;
  // A program (the file defines main) whose output has parallel loops gets a start-up hook
  // that makes libgomp's waiting threads sleep (OMP_WAIT_POLICY=passive unless
  // OMP_WAIT_POLICY or GOMP_SPINCOUNT is set), so that on a busy machine they do not take
  // the core of the thread they wait for, and starts its threads (busy_machine.h).
  bool passive_wait = true;
  // A C expression for the num_threads() clause of every parallel loop (empty: none, the
  // OpenMP default, i.e. OMP_NUM_THREADS).
  std::string num_threads;
  // Each parallel loop's team leaves out the cores other programs keep busy: the clause is
  // pz_polyc_team_size(num_threads), a helper polyc puts before the region's function
  // (busy_machine.h). Off: num_threads as given.
  bool adaptive_team = true;
  // With concrete sizes, keep the source's locality where tiles or forks cannot pay
  // (cost_model.h): no auto tiling for arrays that fit in L2/2, no parallel loop for fewer
  // than min_parallel_work instances in all.
  bool cost_model = true;
  // Where the arrays fit in L2/2 (no tile can pay) and the schedule gives no deepest
  // statement a better innermost loop than the source's (inner_loops.h), the region runs as
  // written: with concrete sizes the output is the region itself, with symbolic ones a
  // run-time test on the bytes touched chooses between the region as written and the
  // transformed code. Needs cost_model and automatic tiling.
  bool keep_source_without_gain = true;
  // C files: a region whose size parameters are bounded by its arrays' declared extents
  // also gets a version compiled at the largest sizes those allow (in_bounds_sizes.h), with
  // constant bounds and the cost model's decisions for them, chosen at run time where the
  // parameters have those values; other sizes run the generic code. PolyBench calls every
  // kernel so; Polly gets the same effect from its bounds assumptions and inlining. Where
  // the region is a reduction chain at those sizes and its arrays fit in L2/2, that copy is
  // register-blocked (register_blocking.h), also when register_block is off.
  bool size_versions = true;
  // Reduction chains (contractions, convolutions) get a register-blocked micro-kernel
  // schedule instead of the passes below (register_blocking.h). Off by default for C files.
  RegisterBlockOptions register_block = RegisterBlockOptions::off();
  // GEMM-class statements run as packed BLIS loops around a register-blocked micro-kernel,
  // the other statements as scops of their own (matmul_packing.h). Off by default in the
  // library, whose clients (nn/, recsys/) describe contractions as reduction chains; the
  // polyc command and bench turn it on, and so does recsys/ (KernelWriterOptions). With both
  // on, a scop with a contraction worth packing is packed, and register blocking serves the
  // rest (and, for symbolic sizes, the run-time branch of small contractions).
  MatmulPackingOptions matmul{.enabled = false};
  // Statement instances per fork/join below which a loop stays sequential (concrete sizes
  // only; 0: mark every parallel loop). See mark_parallel_loops() and polyhedral/README.md.
  long long min_parallel_work = 1LL << 20;
  // Footprints and data movement for the report (exact counts when sizes are concrete),
  // under an isl operation budget (0: none); over budget, the report says so.
  bool data_movement = true;
  unsigned long data_movement_budget = 4'000'000;  // per phase
  BudgetOptions budget;  // per stage and per region (stage_budget.h)
  // Each region's candidates timed at concrete sizes, the fastest kept (tuner.h).
  TuneOptions tune;
};

struct PolycResult {
  std::string output;
  std::vector<ScopReport> scops;
  // One line per region kept as written: "polyc: region 3 (line 41): scheduling exceeded
  // its budget (...); kept the source order".
  std::vector<std::string> warnings;
};

// Throws FrontendError for input outside the subset.
PolycResult polyc(const std::string& source, const PolycOptions& options);

// The same for a file whose regions use macros: `expanded` is `source` after the C
// preprocessor (preprocess.h). The k-th region of `expanded` is analysed and its code put
// in place of the k-th region of `source`; everything else is `source` byte for byte, and
// a region kept as written keeps `source`'s text. Frontend errors name lines of `source`.
PolycResult polyc(const std::string& source, const std::string& expanded, const PolycOptions& options);

// One scop (from either frontend, lowered in `ctx`) through the whole pipeline: its code as
// a C block, every line prefixed by `indent`. `scop` may gain statements (register blocking's
// store); `report` describes what was done. Throws BudgetExceeded when a stage runs over
// `options.budget` (`report` then holds what was done before).
std::string optimize_scop(IslContext& ctx, Scop& scop, const PolycOptions& options, ScopReport& report,
                          const std::string& indent = "", int line = 0);

}  // namespace pz::poly
