// Rectangular tiling of permutable bands (two or more members). Tile sizes are given, or
// chosen from the cache sizes: the largest tile whose footprint (footprint.h) fits in half
// of L2, with a long innermost dimension (it is the stride-1 one after loop ordering, and
// long unit-stride strips keep the vectoriser and the prefetcher busy).
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

#include "polyhedral/cache_info.h"
#include "polyhedral/scop.h"

namespace pz::poly {

struct TileOptions {
  enum class Mode { kOff, kAuto, kFixed };
  Mode mode = Mode::kAuto;
  std::vector<long> sizes;  // kFixed: per member, the last repeated for deeper bands
  CacheInfo cache;
};

// A band as it was before tiling (a node of that schedule) and its tile sizes.
struct TiledBand {
  isl::schedule_node band;
  std::vector<long> sizes;
};

// `tiled`, when given, receives every band the pass tiled (for footprints and data movement).
isl::schedule tile_bands(const isl::schedule& schedule, const Scop& scop, const TileOptions& options,
                         std::vector<std::string>& log, std::vector<TiledBand>* tiled = nullptr);

}  // namespace pz::poly
