// Footprints and data movement.
//
// Per-tile footprints: the array elements one tile of a band touches, (a) as a fixed box per
// array (isl's simple fixed-box hull of one tile's accesses, each dimension's extent divided
// by its stride, so `A[2*i]` over 8 iterations is 8 elements, not 15), used to size tiles
// against the cache; and (b) exactly when every size is concrete and the count fits its
// budget (point_count.h: boxes in closed form, other sets by a bounded enumeration).
//
// Data movement (the model, also in README.md and printed by `--report`), in elements;
// bytes = elements x the element size of the array's type:
//  - kernel: moved in = distinct elements of live-in reads (read before any write in the
//    scop), moved out = distinct elements of live-out writes (final values), accessed =
//    distinct elements read or written, written = distinct elements written.
//  - tiling (one rectangular tiling of one band, tile = (loops above the band, tile
//    coordinates)): loaded = sum over tiles of the exact number of distinct elements the tile
//    reads or writes (each tile loads its footprint once, write-allocate, and keeps nothing
//    from the tile before); written back = sum over tiles of the distinct elements it writes.
//  - cache level of C bytes: if every accessed element fits (accessed bytes <= C), each is
//    loaded once ("compulsory": accessed / written); otherwise, if one tile's footprint fits
//    (sum over arrays of box x element size <= C; the box bounds every tile), the tiling's
//    loaded / written back; otherwise the level is not modelled.
// Exact counts need concrete sizes (all parameters fixed); otherwise they are absent.
#pragma once

#include <isl/cpp.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "polyhedral/analysis/cache_info.h"
#include "polyhedral/analysis/dependences.h"
#include "polyhedral/ir/point_count.h"
#include "polyhedral/ir/scop.h"

namespace pz::poly {

struct TileFootprint {
  std::map<std::string, long long> elements;  // per array: box volume after stride removal
  long long bytes = 0;                        // sum of volume × element size
};

// The footprint of one tile of `band` with the given tile sizes (one per member), the loops
// above the band fixed. nullopt when some box is not bounded by a constant (an array
// dimension indexed by a loop outside the band and below it).
std::optional<TileFootprint> tile_footprint(const Scop& scop, const isl::schedule_node& band,
                                            const std::vector<long>& sizes);

// The exact number of integer points of a set whose parameters are all fixed (or not
// involved); nullopt for a set with a free parameter, an unbounded set, an isl error, or a
// count over its budget (point_count.h).
std::optional<long long> count_points(const isl::set& set);
std::optional<long long> count_points(const isl::union_set& set);  // sum over its spaces

// Volume of the fixed box hull of the range of `tile_to_elements` (one array) after removing
// the stride of each range dimension: extent e with stride s counts ceil(e / s). nullopt
// when no box of constant size holds every tile's range.
std::optional<long long> box_volume_without_strides(const isl::map& tile_to_elements);

struct ArrayMovement {  // whole kernel, one array; counts in elements
  std::string array, type;
  int element_bytes = 8;
  std::optional<long long> accessed, written, moved_in, moved_out;
};

struct TileArrayFootprint {  // one array under one tiling; counts in elements
  std::string array;
  int element_bytes = 8;
  std::optional<long long> box;           // box hull after stride removal (any tile)
  std::optional<long long> first_tile;    // exact, the lexicographically first tile
  std::optional<long long> loaded;        // sum over tiles of the exact per-tile footprint
  std::optional<long long> written_back;  // sum over tiles of the exact per-tile writes
};

struct CacheLevelMovement {
  std::string level;  // "L1", "L2", "L3"
  long long capacity_bytes = 0;
  std::string model;  // "compulsory", "per-tile" or "not modelled"
  std::optional<long long> loaded, loaded_bytes, written_back, written_back_bytes;
};

struct TilingMovement {
  std::string band;         // "band of 3 members over S0, S1"
  std::vector<long> sizes;  // one per member
  std::optional<long long> tiles;
  std::vector<TileArrayFootprint> arrays;  // by array name
  std::vector<CacheLevelMovement> levels;
};

// Sums over arrays (elements and elements × element size); nullopt if any term is.
struct Totals {
  std::optional<long long> elements, bytes;
};
template <class T>
Totals sum_arrays(const std::vector<T>& arrays, std::optional<long long> T::*field) {
  Totals t{0, 0};
  for (const T& a : arrays) {
    if (!(a.*field)) return {};
    *t.elements = saturating_sum(*t.elements, *(a.*field));
    *t.bytes = saturating_sum(*t.bytes, saturating_product(*(a.*field), a.element_bytes));
  }
  return t;
}

// Distinct elements accessed, written, moved in (live-in) and out (live-out), per array.
std::vector<ArrayMovement> kernel_movement(const Scop& scop, const Dependences& deps);

// Per-array footprints of `band` tiled by `sizes` (a tile: the loops above the band and the
// tile loops fixed): the number of tiles, each array's box and first tile. The sums over
// tiles (loaded, written_back) are left to add_tile_sums, the costly part (one count over
// every (tile, element) pair), and `levels` to cache_movement.
TilingMovement tiling_movement(const Scop& scop, const isl::schedule_node& band, const std::vector<long>& sizes);
void add_tile_sums(const Scop& scop, const isl::schedule_node& band, TilingMovement& tiling);

// The cache model above, for L1, L2 and (when reported) L3.
std::vector<CacheLevelMovement> cache_movement(const std::vector<ArrayMovement>& kernel,
                                               const TilingMovement& tiling, const CacheInfo& cache);

}  // namespace pz::poly
