// Vector strips across independent recurrences (outer-loop vectorisation by strip-mining
// and interchange: Allen & Kennedy, "Optimizing Compilers for Modern Architectures", ch. 5;
// Nuzman & Zaks, "Outer-loop vectorization", PACT 2008).
//
// A nest whose innermost loop carries a true recurrence, a statement's flow dependence on
// itself (`q[i][j] = f(q[i][j-1])`: ADI's tridiagonal sweeps, a running maximum), runs one
// chain at a time, each iteration waiting for the latency of the one before (a division
// is ~13 cycles), and nothing vectorises.
// When another member of its permutable band carries no dependence, the chains along that
// member are independent. That member is strip-mined by W and the strip moved innermost:
//
//   for (i0 = 0; i0 < N; i0 += W)      the strips, outermost (parallel)
//     for (j ...)                        the recurrence, in order
//       for (i = i0; i < i0 + W; i++)    W independent chains: one vector step ('omp simd')
//
// Every access strided along i touches W cache lines per strip, each reused over the next
// iterations of j, so the strip keeps them in L1 (W * 64 bytes per array).
//
// The model says no where the chain is not a latency chain polyc leaves serial: an
// innermost loop that already carries no dependence (it is vectorised as it stands), or a
// statement below the band that is a reduction (reductions.h: it is vectorised with
// reassociated accumulators instead), or a parallel member of fewer than 8 iterations.
// Within a permutable band this is a rectangular tiling followed by a permutation, hence
// legal; the pass is still re-checked like every other.
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

#include "polyhedral/analysis/dependences.h"
#include "polyhedral/ir/scop.h"

namespace pz::poly {

// The strip width: the chains of 512 bytes of the band's narrowest element (64 doubles,
// 128 floats), several vectors' worth, so that their latencies overlap.
inline constexpr int kRecurrenceStripBytes = 512;

// `deps.raw` says which loops carry a recurrence (a statement's flow dependence on itself);
// `validity` which members are parallel.
isl::schedule strip_recurrences(const isl::schedule& schedule, const Scop& scop, const Dependences& deps,
                                const isl::union_map& validity, std::vector<std::string>& log);

}  // namespace pz::poly
