// Scalar expansion, one loop at a time (Feautrier, "Array expansion", ICS 1988): a scalar
// whose every value lives within one iteration of a loop gets an element per iteration, so
// the loop no longer carries the scalar's false dependences and becomes parallel.
//
//   for (j = 0; j < h; j++) {              for (j = 0; j < h; j++) {
//     t = 0;                                 pz_t[j] = 0;
//     for (i = 0; i < w; i++) {      →       for (i = 0; i < w; i++) {
//       y[i][j] = x[i][j] + b * t;             y[i][j] = x[i][j] + b * pz_t[j];
//       t = y[i][j];                           pz_t[j] = y[i][j];
//     }                                      }
//   }                                      }
//
// A column-wise recurrence (PolyBench's deriche) then runs across a row at a time, with unit
// stride and in vectors, instead of down one column at a time.
//
// A loop L expands the scalars s for which
//   - s is dead after the region (the C frontend's liveness) and its declared type is known;
//   - every value of s read inside L was written in the same iteration of L and of the loops
//     around it, and no value of s flows into L or out of it (exact dataflow, isl);
// and it is expanded only when
//   - some array's last subscript is L's iterator, so that L, run innermost, sweeps it in
//     vectors (a row-wise recurrence expanded along its rows would gain threads only, and
//     its elements, shared with the outlined parallel loop, would lose their registers);
//   - L carries no dependence once they are (checked on the expanded program): an
//     expansion that leaves L sequential buys nothing.
//
// Arrays are expanded the same way, with L's iterator as a new first subscript: a loop L
// expands the array A (of constant declared extents) for which
//   - L is the innermost loop around every access to A in the region;
//   - two iterations of L touch an element of A in common, one writing it (the reuse of
//     storage that expansion removes);
//   - A's values stay within iterations of L, as for scalars above;
//   - L carries no dependence once it is expanded.
// Arrays are taken to be live after the region: a copy-out after it gives each element of A
// the value of its last write in the source's order. It repeats the loops around A's writes
// with each write `A[e] op= ...` turned into `A[e] = pz_A[i][e]`, and lowering keeps only
// the instances that write an element last (keep_last_writes), so it costs one copy of the
// elements written.
//
//   for (r ...) for (q ...) {                for (r ...) for (q ...) {
//     for (p ...) {                            for (p ...) {
//       sum[p] = 0;                              pz_sum[q][p] = 0;
//       for (s ...)                      →       for (s ...)
//         sum[p] += A[r][q][s] * C[s][p];          pz_sum[q][p] += A[r][q][s] * C[s][p];
//     }                                        }
//     for (p ...) A[r][q][p] = sum[p];         for (p ...) A[r][q][p] = pz_sum[q][p];
//   }                                        }
//                                            for (p ...) sum[p] = pz_sum[nq - 1][p];
//
// PolyBench's doitgen: each q then has its own row of sums, and the update is a product of
// the r-th slice of A with C, which polyc packs as a contraction under the loop over r
// (outer_loop.h, matmul_packing.h).
//
// The arrays live on the stack of the generated code (Scop::arrays with `local`), indexed by
// L's iterator, which must be nonnegative. Their extent is the iterator's largest value + 1
// where that is a constant; otherwise the largest declared extent of an array dimension that
// the iterator subscripts directly inside L, and a run-time guard (`guards`) checks that the
// iterator stays below it, else the region runs as written. All of them together stay under
// kMaxExpansionBytes; loops whose arrays would not fit keep their variables.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "polyhedral/frontend/builder.h"
#include "polyhedral/ir/loop_tree.h"
#include "polyhedral/ir/scop.h"

namespace pz::poly {

inline constexpr long long kMaxExpansionBytes = 512 * 1024;

struct ScalarExpansion {
  std::unique_ptr<LoopNode> tree;            // the region with the expanded scalars
  LowerOptions options;                      // with the new arrays' types and extents
  std::vector<std::string> local_arrays;     // the new arrays
  std::vector<std::string> guards;           // C conditions under which their extents suffice
  std::vector<std::string> removed_scalars;  // scalars no longer mentioned at all
  std::vector<const LoopNode*> copies;       // the copy-out statements in `tree`
};

using LowerTree = std::function<Scop(const LoopNode&, const LowerOptions&)>;

// The expansions of `root` (lowered as `scop` with `options`); nullopt when none is made.
// `lower_tree` lowers a candidate, for the check that its loop became parallel. One line per
// loop expanded or refused goes to `log`.
std::optional<ScalarExpansion> expand_scalars(const LoopNode& root, const Scop& scop, const LowerOptions& options,
                                              const LowerTree& lower_tree, std::vector<std::string>& log);

// Restricts the named statements of `scop` (the copy-outs, lowered) to their instances whose
// element no later instance of theirs writes: the last write of each element.
void keep_last_writes(Scop& scop, const std::set<std::string>& statements);

}  // namespace pz::poly
