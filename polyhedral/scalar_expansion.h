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
// The arrays live on the stack of the generated code (Scop::arrays with `local`), indexed by
// L's iterator, which must be nonnegative. Their extent is the iterator's largest value + 1
// where that is a constant; otherwise the largest declared extent of an array dimension that
// the iterator subscripts directly inside L, and a run-time guard (`guards`) checks that the
// iterator stays below it, else the region runs as written. All of them together stay under
// kMaxExpansionBytes; loops whose arrays would not fit keep their scalars.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "polyhedral/builder.h"
#include "polyhedral/loop_tree.h"
#include "polyhedral/scop.h"

namespace pz::poly {

inline constexpr long long kMaxExpansionBytes = 512 * 1024;

struct ScalarExpansion {
  std::unique_ptr<LoopNode> tree;            // the region with the expanded scalars
  LowerOptions options;                      // with the new arrays' types and extents
  std::vector<std::string> local_arrays;     // the new arrays
  std::vector<std::string> guards;           // C conditions under which their extents suffice
  std::vector<std::string> removed_scalars;  // scalars no longer mentioned at all
};

using LowerTree = std::function<Scop(const LoopNode&, const LowerOptions&)>;

// The expansions of `root` (lowered as `scop` with `options`); nullopt when none is made.
// `lower_tree` lowers a candidate, for the check that its loop became parallel. One line per
// loop expanded or refused goes to `log`.
std::optional<ScalarExpansion> expand_scalars(const LoopNode& root, const Scop& scop, const LowerOptions& options,
                                              const LowerTree& lower_tree, std::vector<std::string>& log);

}  // namespace pz::poly
