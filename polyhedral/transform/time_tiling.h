// Time tiling with wavefront parallelism for stencils (issue 4: "skewing/time-tiling for
// stencils with wavefront parallelism").
//
// A stencil (an outer time loop around sweeps whose dependences have short, constant
// distances) gets from the default scheduler a sequential time loop around untiled,
// too-small-to-fork sweeps. This pass builds instead:
//   1. a time-space band that is fully permutable: isl's scheduler without the
//      outer-coincidence requirement and with fusion across SCCs skews it for us
//      (jacobi-2d: S0 -> (2t, 2t+i, 2t+j), S1 -> (2t+1, 2t+1+i, 2t+1+j)); the band is
//      kept only if every dependence distance in it is non-negative in every member
//      (checked here, not taken from isl's flags) and bounded by a small constant (uniform
//      stencil dependences: lu's or floyd-warshall's span the whole matrix and are left to
//      the other passes);
//   2. parallelogram tiles of that band, time tile x space tiles, sized so that one tile's
//      footprint (footprint.h: box hull of everything it touches) fits in half of L2;
//   3. a wavefront over the tiles: the outer loop runs w = T0 + T1 (the sum of the first two
//      tile coordinates), then a band (T1, T2, ...), then the point loops. Tiles of one
//      wavefront are independent along T1 (every tile-level distance is >= 0 in every
//      member, so a dependence inside one wavefront has dT0 = dT1 = 0). The parallel pass
//      (parallel_marks.h) then finds T1 parallel with w fixed and marks it; this pass
//      does not mark anything itself.
// The result goes through the same legality check as every pass (polyc.cpp).
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <string>
#include <vector>

#include "polyhedral/analysis/cache_info.h"
#include "polyhedral/analysis/dependences.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/ir/scop.h"
#include "polyhedral/transform/scheduler.h"

namespace pz::poly {

struct TimeTileOptions {
  bool enabled = true;
  std::vector<long> sizes;  // per band member (the last repeated); empty: from the cache sizes
  long max_distance = 8;    // a dependence distance above this in any member: not a stencil
  CacheInfo cache;
};

// The time-tiled, wavefront schedule of `scop`, or nullopt (with the reason in `log`) when
// the scop is not a stencil this pass handles.
std::optional<isl::schedule> time_tile(IslContext& ctx, const Scop& scop, const Dependences& deps,
                                       const ScheduleOptions& schedule_options, const TimeTileOptions& options,
                                       std::vector<std::string>& log);

}  // namespace pz::poly
