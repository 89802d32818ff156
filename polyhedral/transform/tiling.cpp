#include "polyhedral/transform/tiling.h"

#include <isl/schedule_node.h>
#include <isl/val.h>

#include "polyhedral/analysis/footprint.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/transform/loop_order.h"

namespace pz::poly {

namespace {

std::string sizes_text(const std::vector<long>& sizes) {
  std::string text;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) text += 'x';
    text += std::to_string(sizes[i]);
  }
  return text;
}

// Per member: the given list, its last entry repeated for deeper bands.
std::vector<long> given_sizes(const std::vector<long>& list, int n, long fallback) {
  std::vector<long> sizes;
  for (int i = 0; i < n; ++i) sizes.push_back(list.empty() ? fallback : list[std::min<size_t>(i, list.size() - 1)]);
  return sizes;
}

std::vector<long> outer_auto_sizes(const isl::schedule_node& band, const Scop& scop, const CacheInfo& cache, int n,
                                   std::string& why) {
  const long budget = cache.l2 / 2;
  for (long t : {64L, 32L, 16L, 8L}) {
    std::vector<long> sizes(n, t);
    sizes[n - 1] = std::min(4 * t, 256L);
    auto fp = tile_footprint(scop, band, sizes);
    if (!fp) {
      why = "footprint unbounded, default sizes";
      return std::vector<long>(n, 32);
    }
    if (fp->bytes <= budget || t == 8) {
      why = "footprint " + std::to_string(fp->bytes) + (fp->bytes <= budget ? " B <= L2/2 = " : " B > L2/2 = ") +
            std::to_string(budget) + (fp->bytes <= budget ? " B" : " B even at the smallest sizes");
      return sizes;
    }
  }
  return std::vector<long>(n, 8);
}

// Sizes of the L1 tiles inside one L2 tile of `outer` sizes: each a power-of-two fraction of
// the outer size (so L1 tiles never straddle an L2 tile's edge), the stride-1 innermost
// member kept at least kMinStrip long for the vectoriser, and among those that fit half of
// L1 the largest tile. Empty when the L2 tile fits already or nothing of at least
// kMinSide per member fits.
std::vector<long> inner_auto_sizes(const isl::schedule_node& band, const Scop& scop, const CacheInfo& cache,
                                   const std::vector<long>& outer, std::string& why) {
  constexpr long kMinSide = 4, kMinStrip = 32;
  const long budget = cache.l1 / 2;
  const int n = static_cast<int>(outer.size());
  auto fits = [&](const std::vector<long>& sizes, long* bytes) {
    auto fp = tile_footprint(scop, band, sizes);
    if (fp) *bytes = fp->bytes;
    return fp && fp->bytes <= budget;
  };
  long bytes = 0;
  if (budget <= 0 || fits(outer, &bytes)) return {};
  std::vector<long> best;
  long best_volume = 0;
  for (long strip = outer[n - 1]; strip >= std::min(kMinStrip, outer[n - 1]); strip /= 2) {
    for (long divisor = 2; divisor <= 64; divisor *= 2) {
      std::vector<long> sizes(outer);
      bool too_small = false;
      for (int i = 0; i + 1 < n; ++i) {
        sizes[i] = std::max(outer[i] / divisor, 1L);
        too_small = too_small || sizes[i] < std::min(kMinSide, outer[i]);
      }
      sizes[n - 1] = strip;
      if (too_small) break;
      long volume = strip;
      for (int i = 0; i + 1 < n; ++i) volume *= sizes[i];
      if (volume <= best_volume) break;  // larger divisors only shrink the tile
      long b = 0;
      if (fits(sizes, &b)) {
        best = sizes;
        best_volume = volume;
        bytes = b;
        break;
      }
    }
  }
  if (!best.empty()) why = "footprint " + std::to_string(bytes) + " B <= L1/2 = " + std::to_string(budget) + " B";
  return best;
}

// Whether the band's crossed arrays (loop_order.h) lose their lines between sweeps: one
// sweep of the innermost loop touches a line per iteration and array, more than half of L1
// (64-byte lines), or a number of lines no constant bounds.
bool sweep_overflows_l1(const isl::schedule_node& band, const Scop& scop, const CacheInfo& cache) {
  constexpr long long kLineBytes = 64;
  const int crossed = crossed_arrays(band, scop);
  if (crossed == 0) return false;
  const long long trips = innermost_trip_count(band);
  return trips < 0 || trips > cache.l1 / 2 / kLineBytes / crossed;  // more lines than half of L1
}

// A band whose only reuse is crossed lines (a transpose) gets one level of tiles whose
// innermost member makes this many steps: a sweep then touches that many lines of each
// crossed array, which stay in L1 even when the rows' stride maps them all to a few of its
// sets (a row of 3328 floats puts every row in one of 4 sets of 64). The outer members
// make enough steps to use each line whole before the sweep moves on.
constexpr long kCrossedInnerExtent = 16, kCrossedOuterExtent = 64;

std::vector<long> crossed_sizes(int n) {
  std::vector<long> sizes(n, kCrossedOuterExtent);
  sizes[n - 1] = kCrossedInnerExtent;
  return sizes;
}

isl::schedule_node tile(isl::schedule_node band, const std::vector<long>& sizes) {
  isl_ctx* ctx = isl_schedule_node_get_ctx(band.get());
  isl_multi_val* mv = isl_multi_val_zero(isl_schedule_node_band_get_space(band.get()));
  for (size_t i = 0; i < sizes.size(); ++i) mv = isl_multi_val_set_val(mv, static_cast<int>(i), isl_val_int_from_si(ctx, sizes[i]));
  return isl::manage(isl_schedule_node_band_tile(band.release(), mv));
}

}  // namespace

isl::schedule tile_bands(const isl::schedule& schedule, const Scop& scop, const TileOptions& options,
                         std::vector<std::string>& log, std::vector<TiledBand>* tiled) {
  if (options.mode == TileOptions::Mode::kOff) return schedule;
  isl::schedule_node root = schedule.get_root();
  root = root.map_descendant_bottom_up([&](isl::schedule_node node) -> isl::schedule_node {
    if (isl_schedule_node_get_type(node.get()) != isl_schedule_node_band) return node;
    int n = static_cast<int>(isl_schedule_node_band_n_member(node.get()));
    if (n < 2 || isl_schedule_node_band_get_permutable(node.get()) != isl_bool_true) return node;
    const std::string band = "tiling: band of " + std::to_string(n) + " members ";
    // A sweep that uses no element twice along the band's loops (a stencil's time step,
    // an elementwise op) and reads every line along its inner loop gains nothing from tiles
    // but their boundary overhead: measured 1.5-2x slower than the plain loops on
    // jacobi-2d, heat-3d and fdtd-2d. A transpose reuses lines across its outer loop.
    const bool temporal = options.mode == TileOptions::Mode::kAuto && has_temporal_reuse(node, scop);
    if (options.mode == TileOptions::Mode::kAuto && !temporal && !sweep_overflows_l1(node, scop, options.cache)) {
      log.push_back(band + "left untiled (no access is invariant along its loops or reuses a line across them: no reuse to capture)");
      return node;
    }
    std::vector<long> outer, inner;
    std::string why = "given", inner_why = "given";
    if (options.mode == TileOptions::Mode::kAuto && !temporal) {
      outer = crossed_sizes(n);
      why = "lines reused across the inner loop: " + std::to_string(kCrossedInnerExtent) + " rows a sweep";
    } else if (options.mode == TileOptions::Mode::kFixed) {
      outer = given_sizes(options.sizes, n, 32);
      if (!options.inner_sizes.empty()) {
        inner = given_sizes(options.inner_sizes, n, 32);
        for (int i = 0; i < n; ++i) inner[i] = std::min(inner[i], outer[i]);
        if (inner == outer) inner.clear();
      }
    } else {
      outer = outer_auto_sizes(node, scop, options.cache, n, why);
      if (options.l1_tiles) inner = inner_auto_sizes(node, scop, options.cache, outer, inner_why);
    }
    log.push_back(band + "tiled " + sizes_text(outer) + " (" + why + ")");
    if (tiled) tiled->push_back({node, outer});
    if (!inner.empty()) {
      log.push_back(band + "tiled again inside each tile " + sizes_text(inner) + " (" + inner_why + ")");
      if (tiled) tiled->push_back({node, inner});
    }
    node = tile(node, outer);
    // The point band of the outer tiles (its loops start at 0 in each tile) tiled again.
    if (!inner.empty()) node = tile(node.child(0), inner).parent();
    return node;
  });
  return root.get_schedule();
}

}  // namespace pz::poly
