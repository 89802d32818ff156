// What a schedule does to the innermost loops of a scop's deepest statements, against the
// source's: the cost model's prediction of a gain where no tile can pay (cost_model.h).
//
// When a scop's arrays fit in L2/2, no tile reuses more than a plain sweep does; what is
// left of a schedule's gain is the kind of the innermost loops, the ones the back-end
// compiler vectorises: a loop whose iterations are independent runs several of them at once
// (SIMD lanes, or independent chains filling the pipeline, as recurrence strips do), one
// that carries a dependence runs them one after the other, and an independent loop that
// walks every array by unit steps (or leaves it invariant) loads whole vectors. A
// reduction the schedule only accumulates in a vector register (reductions.h) counts as
// carried: its gain needs trip counts small sizes do not have, while a horizontal sum per
// run of the loop is paid at every size.
//
// The kind of one statement's innermost loop is read from the schedule's map: the last
// dimension along which the statement's instances move is its innermost loop; a
// dependence of the statement on itself between instances equal in every outer dimension
// and different in that one is carried; the element each access reaches at the next
// iteration (every other dimension fixed) is invariant or a unit step of the last
// subscript. Dependences between different statements sharing the loop are not seen: a
// prediction of profit, never a legality check.
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

#include "polyhedral/ir/scop.h"

namespace pz::poly {

// In the order of their gain. kMarkedSimd: independent, unit stride and under an "omp simd"
// mark, which lets the back-end compiler vectorise without the run-time alias checks and
// the trip-count doubts it has about a loop as written (heat-3d at PolyBench's MINI size,
// inner loops of 8 iterations: 2.4x gcc -O3 on the same loops with the mark).
// kAccumulated: carried only through sums the schedule keeps in a vector accumulator
// ("omp simd accumulate", reductions.h); it gains only over long runs of the loop (below).
enum class InnerLoopKind { kCarried = 0, kAccumulated = 1, kIndependentStrided = 2, kIndependentUnit = 3, kMarkedSimd = 4 };

// A vector accumulator pays its horizontal sum and remainder once per run of the loop, and
// the scalar chain it replaces costs the add's latency per iteration. Where every run of the
// loop has the same length (a rectangular nest: gesummv's and atax's rows), a run of two
// 256-bit vectors of floats already gains; where runs vary (a triangular nest: cholesky's,
// trisolv's), most runs are far shorter than the longest, and the cost model counts a gain
// only from this many iterations in the longest run (8 vectors of AVX-512 doubles).
inline constexpr long long kAccumulatedMinTrips = 64;
inline constexpr long long kAccumulatedMinEqualTrips = 8;

const char* inner_loop_kind_name(InnerLoopKind kind);

// The kind of `statement`'s innermost loop under `schedule` (statement instances to schedule
// points), with `validity` the scop's dependences. A statement outside every loop is
// kIndependentUnit (nothing to gain).
InnerLoopKind inner_loop_kind(const Statement& statement, const isl::union_map& schedule, const isl::union_map& validity);

// An "omp simd" mark on a loop the back-end compiler vectorises anyway (independent, unit
// stride) saves it the run-time alias check and the scalar remainder it emits around the
// loop: a gain on short runs (heat-3d at MINI, 8 iterations), none on longer ones (jacobi-1d
// and jacobi-2d at MINI, 28 iterations a run; fdtd-2d at SMALL; polyhedral/README.md). From
// this many iterations a run the cost model counts no gain.
inline constexpr long long kMarkedSimdMaxTrips = 16;

struct InnerLoopGain {
  std::string statement;
  InnerLoopKind before = InnerLoopKind::kCarried, after = InnerLoopKind::kCarried;
  // For kAccumulated and kMarkedSimd: the most iterations of one run of the loop, as a C expression of the
  // parameters ("" when isl gives no affine bound) and as a number when constant (else -1).
  std::string trips_c;
  long long trips = -1;
  // Whether every run of the innermost loop has the same number of iterations, at every
  // value of the parameters (the runs of a rectangular nest).
  bool equal_runs = false;
  std::string describe() const;  // "S2 (carried -> independent, unit stride)"
  // For kAccumulated: the fewest iterations of the longest run at which the cost model
  // counts the accumulator a gain (kAccumulatedMinEqualTrips or kAccumulatedMinTrips).
  long long accumulated_min_trips() const { return equal_runs ? kAccumulatedMinEqualTrips : kAccumulatedMinTrips; }
};

// The deepest statements of `scop` (most loops around them) whose innermost loop is of a
// better kind under `schedule` (with its simd and accumulate marks, parallel_marks.h) than
// under the source order (`scop.schedule`). Empty: the schedule predicts no gain at sizes
// that fit the cache. Throws isl::exception when isl fails (callers' budget).
std::vector<InnerLoopGain> inner_loop_gains(const Scop& scop, const isl::union_map& validity, const isl::schedule& schedule);

}  // namespace pz::poly
