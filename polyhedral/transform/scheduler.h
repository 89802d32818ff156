// The starting schedule: isl's Pluto-style scheduler (maximal permutable, coincident bands;
// proximity = validity = all dependences), under an operation budget. When the budget is
// exceeded, or isl fails, it falls back to a cheaper configuration (no fusion across SCCs)
// and finally to the source order, which is always legal.
#pragma once

#include <isl/cpp.h>

#include <string>

#include "polyhedral/analysis/dependences.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/ir/scop.h"

namespace pz::poly {

struct ScheduleOptions {
  // kMin: statements of different SCCs never share a loop (isl's serialize_sccs): deeper
  // permutable bands (GEMM keeps i,j,k together). kMax: isl's clustering fuses what it can.
  enum class Fusion { kMin, kMax };
  Fusion fusion = Fusion::kMin;
  int max_coefficient = 4;                  // bounds skewing coefficients
  unsigned long budget = 20'000'000;        // isl operations per attempt
  bool use_isl = true;                      // false: keep the source order
  // Arrays larger than this are "streamed" (read from memory, not cache): see
  // splits_streamed_nest(). 0 disables the check.
  long stream_bytes = 1024 * 1024;
  // A sweep of an innermost loop spanning more bytes of lines than this overflows L1 (half
  // its size): see walks_columns(). 0 disables the check.
  long column_sweep_bytes = 16 * 1024;
  // Reject isl's schedule when it skews (a loop over i+j) without making an outermost loop
  // parallel: floyd-warshall got (k, i+j, i), whose inner loop walks a column diagonal
  // (0.2x gcc -O3); seidel-2d got a time-skewed wavefront parallel only inside a sequential
  // loop of 3150 steps (a barrier each: 0.05x).
  bool reject_useless_skew = true;
  // Also try isl without an outer coincidence request and keep that schedule when its
  // outermost band is deeper and unskewed (compute_schedule).
  bool deepen_outer_band = true;
};

// One run of isl's scheduler (validity = proximity = coincidence = `validity`) under the
// options' budget; a null schedule with `error` set when isl fails or runs out of budget.
// outer_coincidence = false lets isl skew an outer sequential loop into a permutable band
// (what time tiling needs).
isl::schedule run_isl_scheduler(IslContext& ctx, const Scop& scop, const isl::union_map& validity, bool serialize,
                                const ScheduleOptions& options, std::string& error, bool outer_coincidence = true);

bool skews_without_parallelism(const isl::schedule& schedule);
bool skews(const isl::schedule& schedule);
// Members of the band reached from the root through single-child nodes (0: none).
int outermost_band_members(const isl::schedule& schedule);

// True when `schedule` puts in different loop nests two statements that share a loop in the
// source and both read, without reuse, one array larger than `stream_bytes` (a matrix
// streamed once: atax's and bicg's A). Distributing them doubles the memory traffic of a
// bandwidth-bound kernel, and tiling cannot win it back since nothing is reused; the source
// order is then the better schedule. Writes `why` when true.
bool splits_streamed_nest(const Scop& scop, const isl::schedule& schedule, long stream_bytes, std::string& why);

// True when `schedule` makes the innermost loop of one of the deepest statements walk an
// array down its columns (a row per step) where the source's innermost loop walks it with
// unit stride, no member of that innermost band walks it with unit stride (so loop order
// cannot repair it), and one sweep of that loop spans more than `sweep_bytes` of cache lines
// (always so when its extent is a parameter). Each line then serves one element per sweep
// and each step a page of the TLB: isl's column-wise triangular solve (trisolv: j outer, a
// parallel inner loop down L's column j) against the source's row-wise dot products, which
// the reductions vectorise. Writes `why` when true.
bool walks_columns(const Scop& scop, const isl::schedule& schedule, long sweep_bytes, std::string& why);

struct ScheduleResult {
  isl::schedule schedule;
  std::string origin;  // "isl (fusion=min)", "source order (isl: maximal number of operations exceeded)", ...
};

ScheduleResult compute_schedule(IslContext& ctx, const Scop& scop, const Dependences& deps,
                                const ScheduleOptions& options);

}  // namespace pz::poly
