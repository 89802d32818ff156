// Register tiling (unroll-and-jam) of the innermost permutable band: one member, the one
// along which most accesses are invariant, is strip-mined by `factor` and its strip moved
// innermost and fully unrolled by isl's AST builder. The copies of the statement then sit
// side by side in the body of the stride-1 loop, so an access invariant along that member
// (C[i][j] in C[i][j] += A[i][k] * B[k][j] when k is unrolled) is loaded and stored once
// per `factor` iterations instead of every iteration, and the vectoriser sees independent
// multiply-adds. Within a permutable band this is a tiling, hence legal; the pass is still
// checked like every other. The strip band sits under a mark (kUnrollJamMark) so that the
// simd pass skips it and vectorises the stride-1 loop above it.
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

#include "polyhedral/ir/scop.h"

namespace pz::poly {

inline constexpr const char* kUnrollJamMark = "unroll-and-jam";

// Only bands whose innermost (stride-1) member carries no dependence in `deps` are
// register-tiled: the unrolled copies are meant for the vectorised loop. `untiled`: the
// schedule has no tiles, so a member whose bounds move with the band's other loops (a
// triangle) is left alone.
isl::schedule register_tile(const isl::schedule& schedule, const Scop& scop, int factor, const isl::union_map& deps,
                            bool untiled, std::vector<std::string>& log);

// For code generation, after every other pass (an isolate option is in the band's own
// coordinates, which later passes may permute): each unroll-and-jam strip's band isolates
// the points where the strip is whole, so that isl prints those copies without guards.
isl::schedule isolate_whole_strips(const isl::schedule& schedule);

}  // namespace pz::poly
