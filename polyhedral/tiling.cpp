#include "polyhedral/tiling.h"

#include <isl/schedule_node.h>
#include <isl/val.h>

#include "polyhedral/footprint.h"
#include "polyhedral/isl_context.h"
#include "polyhedral/loop_order.h"

namespace pz::poly {

namespace {

std::vector<long> auto_sizes(const isl::schedule_node& band, const Scop& scop, const CacheInfo& cache, int n,
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
      why = "footprint " + std::to_string(fp->bytes) + " B <= L2/2 = " + std::to_string(budget) + " B";
      return sizes;
    }
  }
  return std::vector<long>(n, 8);
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
    // A sweep that uses no element twice along the band's loops (a stencil's time step,
    // an elementwise op) gains nothing from tiles but their boundary overhead: measured
    // 1.5-2x slower than the plain loops on jacobi-2d, heat-3d and fdtd-2d.
    if (options.mode == TileOptions::Mode::kAuto && !has_temporal_reuse(node, scop)) {
      std::string line = "tiling: band of ";
      line += std::to_string(n);
      line += " members left untiled (no access is invariant along its loops: no reuse to capture)";
      log.push_back(line);
      return node;
    }
    std::vector<long> sizes;
    std::string why = "given";
    if (options.mode == TileOptions::Mode::kFixed) {
      for (int i = 0; i < n; ++i)
        sizes.push_back(options.sizes.empty() ? 32 : options.sizes[std::min<size_t>(i, options.sizes.size() - 1)]);
    } else {
      sizes = auto_sizes(node, scop, options.cache, n, why);
    }
    isl_multi_val* mv = isl_multi_val_zero(isl_schedule_node_band_get_space(node.get()));
    std::string text;
    for (int i = 0; i < n; ++i) {
      mv = isl_multi_val_set_val(mv, i, isl_val_int_from_si(isl_schedule_node_get_ctx(node.get()), sizes[i]));
      if (i) text += 'x';
      text += std::to_string(sizes[i]);
    }
    std::string line = "tiling: band of ";
    line += std::to_string(n);
    line += " members tiled ";
    line += text;
    line += " (";
    line += why;
    line += ')';
    log.push_back(line);
    if (tiled) tiled->push_back({node, sizes});
    return isl::manage(isl_schedule_node_band_tile(node.release(), mv));
  });
  return root.get_schedule();
}

}  // namespace pz::poly
