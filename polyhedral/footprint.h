// Per-tile footprints: the array elements one tile of a band touches, as a fixed box per
// array (isl's simple fixed-box hull of the accesses of one tile, strides not removed yet).
// Used to size tiles against the cache; exact counts and data movement come later.
#pragma once

#include <isl/cpp.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "polyhedral/scop.h"

namespace pz::poly {

struct TileFootprint {
  std::map<std::string, long long> elements;  // per array: box volume (elements)
  long long bytes = 0;                        // sum of volume × element size
};

// The footprint of one tile of `band` with the given tile sizes (one per member), the loops
// above the band fixed. nullopt when some box is not bounded by a constant (an array
// dimension indexed by a loop outside the band and below it).
std::optional<TileFootprint> tile_footprint(const Scop& scop, const isl::schedule_node& band,
                                            const std::vector<long>& sizes);

}  // namespace pz::poly
