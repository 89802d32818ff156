// Rectangular tiling of permutable bands (two or more members), on two levels. Tile sizes
// are given, or chosen from the cache sizes: the outer tiles are the largest whose footprint
// (footprint.h) fits in half of L2, with a long innermost dimension (it is the stride-1 one
// after loop ordering, and long unit-stride strips keep the vectoriser and the prefetcher
// busy); inside each, when it does not fit in L1, the point loops are tiled again so that
// one inner tile fits in half of L1 (inner sizes divide the outer ones).
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

#include "polyhedral/analysis/cache_info.h"
#include "polyhedral/ir/scop.h"

namespace pz::poly {

struct TileOptions {
  enum class Mode { kOff, kAuto, kFixed };
  Mode mode = Mode::kAuto;
  std::vector<long> sizes;        // kFixed: per member, the last repeated for deeper bands
  std::vector<long> inner_sizes;  // kFixed: the second level, same rule (empty: one level)
  bool l1_tiles = true;           // kAuto: the second level, sized for L1
  CacheInfo cache;
};

// A band as it was before tiling (a node of that schedule) and its tile sizes; a band tiled
// on two levels appears twice, outer sizes first.
struct TiledBand {
  isl::schedule_node band;
  std::vector<long> sizes;
};

// `tiled`, when given, receives every band the pass tiled (for footprints and data movement).
isl::schedule tile_bands(const isl::schedule& schedule, const Scop& scop, const TileOptions& options,
                         std::vector<std::string>& log, std::vector<TiledBand>* tiled = nullptr);

}  // namespace pz::poly
