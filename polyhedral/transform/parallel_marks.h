// Marks loops for OpenMP, as schedule-tree marks the code generator turns into pragmas:
//  - "omp parallel for" above the outermost loop of each nest that carries no dependence
//    (in a permutable band any parallel member may be moved outermost first);
//  - "omp simd" above the innermost loop of each nest when it carries no dependence.
// Every candidate is checked against the dependences with the loops above it fixed
// (legality.h), not taken from isl's coincidence flags. A mark's isl_id user pointer holds
// the schedule depth of the loop it applies to (mark_loop_depth).
#pragma once

#include <isl/cpp.h>

#include <cstdint>
#include <string>
#include <vector>

#include "polyhedral/ir/scop.h"

namespace pz::poly {

inline constexpr const char* kParallelMark = "omp parallel for";
inline constexpr const char* kSimdMark = "omp simd";
// "omp simd accumulate S1 S4": an innermost loop whose loops over one of these statements
// alone run as scalar sums (reductions.h, accumulating_statements): the code generator
// loads the element before such a loop, emits `omp simd reduction` on the scalar and
// stores it after.
inline constexpr const char* kAccumulateMark = "omp simd accumulate";

// The largest value of `pa` (a function of the parameters only; taken) as a C expression:
// the maximum of its pieces, each evaluated everywhere (an upper bound); "" when a piece is
// not a plain affine expression (integer divisions, a denominator).
std::string pw_aff_bound_to_c(isl_pw_aff* pa);

inline int mark_loop_depth(isl_id* mark) { return static_cast<int>(reinterpret_cast<intptr_t>(isl_id_get_user(mark))); }

// With concrete sizes and min_work > 0, a loop is marked only when each entry into it (each
// fork/join) has at least min_work statement instances below it: a parallel loop inside a
// long sequential one (lu's and cholesky's k, a stencil's time loop) pays a barrier per
// outer iteration, which must stay small against the work it splits (polyc.h's default;
// polyhedral/README.md has the measurements). Parametric sizes are marked as before.
//
// With `reductions_of` (the scop the schedule is for), a loop that carries dependences only
// through reductions (reductions.h) is marked too, as "omp parallel for reduction(...)":
// a mark whose name starts with kParallelMark is the whole pragma.
//
// With parametric sizes and min_work > 0, the mark gets `if(parallel: WORK >= min_work)`,
// WORK a C expression of the parameters bounding the instances per entry (each statement's
// extents maximised over the loops above): the program decides at run time whether a fork
// pays. `num_threads`, when not empty, is a C expression put in a num_threads() clause
// (the caller's thread count, e.g. a kernel argument).
isl::schedule mark_parallel_loops(const isl::schedule& schedule, const isl::union_map& deps, std::vector<std::string>& log,
                                  long long min_work = 0, const Scop* reductions_of = nullptr,
                                  const std::string& num_threads = "");
// With `accumulations_of`, an innermost loop that is not parallel but has statements that
// accumulate into one element each is marked kAccumulateMark.
isl::schedule mark_simd_loops(const isl::schedule& schedule, const isl::union_map& deps, std::vector<std::string>& log,
                              const Scop* accumulations_of = nullptr);

}  // namespace pz::poly
