#include "polyhedral/transform/time_tiling.h"

#include <isl/aff.h>
#include <isl/fixed_box.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/val.h>

#include <cstdlib>
#include <sstream>

#include "polyhedral/analysis/footprint.h"
#include "polyhedral/analysis/legality.h"

namespace pz::poly {

namespace {

isl::union_map band_map(const isl::schedule_node& band) {
  return isl::manage(isl_union_map_from_multi_union_pw_aff(isl_schedule_node_band_get_partial_schedule(band.get())))
      .intersect_domain(node_domain(band));
}

// Dependence distances in the band's space: 0 <= d_k <= max_distance in every member (a
// permutable band of a stencil). `carried` is set when member 0 carries a dependence.
bool uniform_nonnegative(const isl::schedule_node& band, const isl::union_map& deps, long max_distance, bool& carried,
                         std::string& why) {
  isl::union_map b = band_map(band);
  isl::union_map d = deps.apply_domain(b).apply_range(b);
  carried = false;
  for (isl::set delta : sets_of(d.deltas())) {
    const int n = static_cast<int>(isl_set_dim(delta.get(), isl_dim_set));
    isl_set* box = isl_set_universe(isl_set_get_space(delta.get()));
    for (int k = 0; k < n; ++k) {
      box = isl_set_lower_bound_si(box, isl_dim_set, k, 0);
      box = isl_set_upper_bound_si(box, isl_dim_set, k, max_distance);
    }
    if (!delta.is_subset(isl::manage(box))) {
      why = "dependence distances in the band are negative or longer than " + std::to_string(max_distance) + ": " +
            isl_str(delta.coalesce());
      return false;
    }
    isl::set at_zero = isl::manage(isl_set_fix_si(delta.copy(), isl_dim_set, 0, 0));
    if (!delta.is_subset(at_zero)) carried = true;
  }
  return true;
}

std::vector<long> sizes_from_env_or(const std::vector<long>& given) {
  std::vector<long> out = given;
  if (const char* env = std::getenv("PZ_POLYC_TIME_TILE"); env && *env) {
    out.clear();
    std::stringstream ss(env);
    std::string part;
    while (std::getline(ss, part, ','))
      if (long v = std::atol(part.c_str()); v > 0) out.push_back(v);
  }
  return out;
}

// Extent of each band member over the instances (box hull of the band's range), or empty
// when a box has no constant size (parametric sizes).
std::vector<long long> band_extents(const isl::union_map& b, int n) {
  std::vector<long long> ext(n, 0);
  for (isl::set r : sets_of(b.range())) {
    isl_fixed_box* box = isl_set_get_simple_fixed_box_hull(r.get());
    bool valid = isl_fixed_box_is_valid(box) == isl_bool_true;
    if (valid) {
      isl_multi_val* size = isl_fixed_box_get_size(box);
      for (int i = 0; i < n; ++i) {
        isl_val* v = isl_multi_val_get_val(size, i);
        ext[i] = std::max<long long>(ext[i], isl_val_get_num_si(v));
        isl_val_free(v);
      }
      isl_multi_val_free(size);
    }
    isl_fixed_box_free(box);
    if (!valid) return {};
  }
  return ext;
}

// True when no statement depends on itself along the band's innermost member with the
// outer members equal: once the statements run one after the other inside a tile step (as
// built below), the innermost point loop is a vector loop (jacobi-2d, heat-3d; not
// seidel-2d, whose in-place update reads A[i][j-1] of the same sweep).
bool innermost_vectorisable(const isl::schedule_node& band, const isl::union_map& deps, int n) {
  isl::union_map b = band_map(band);
  for (isl::map dep : maps_of(deps)) {
    if (std::string(isl_map_get_tuple_name(dep.get(), isl_dim_in)) != isl_map_get_tuple_name(dep.get(), isl_dim_out))
      continue;
    for (isl::set delta : sets_of(isl::union_map(dep).apply_domain(b).apply_range(b).deltas())) {
      isl_set* outer_equal = delta.copy();
      for (int k = 0; k + 1 < n; ++k) outer_equal = isl_set_fix_si(outer_equal, isl_dim_set, k, 0);
      isl::set same = isl::manage(outer_equal);
      if (!same.is_subset(isl::manage(isl_set_fix_si(same.copy(), isl_dim_set, n - 1, 0)))) return false;
    }
  }
  return true;
}

// Tile sizes, in band units. When the innermost member is a vector loop: 32 time steps
// (member 0), 32 along the other outer members (halved until there are at least 4 tiles
// along T1, the parallel member, for 2 threads), and the innermost (stride-1) member
// untiled, so each point loop is one long unit-stride sweep that vectorises and streams.
// Otherwise (seidel-2d) 64 x 16 x ... x 128. Never a single time tile (see below). The footprint of such a tile (reported)
// exceeds L2: measured on jacobi-2d, heat-3d and fdtd-2d (LARGE, 2 threads), tiles sized
// to fit half of L2 (e.g. 4x8x8x8 for heat-3d) ran 1.5-3x slower than these, their short
// inner loops and halo overhead costing more than the extra misses (README).
std::vector<long> choose_sizes(const isl::schedule_node& band, const Scop& scop, const TimeTileOptions& o, int n,
                               bool vector_inner, std::string& why) {
  std::vector<long> given = sizes_from_env_or(o.sizes);
  if (!given.empty()) {
    std::vector<long> sizes;
    for (int i = 0; i < n; ++i) sizes.push_back(given[std::min<size_t>(i, given.size() - 1)]);
    why = "given";
    return sizes;
  }
  const std::vector<long long> ext = band_extents(band_map(band), n);
  std::vector<long> sizes(n, vector_inner ? 32 : 16);
  if (!vector_inner) {
    sizes[0] = 64;
    sizes[n - 1] = 128;
  }
  if (!ext.empty()) {
    if (vector_inner) sizes[n - 1] = static_cast<long>(std::max<long long>(ext[n - 1], 1));
    while (sizes[1] > 4 && (ext[1] + sizes[1] - 1) / sizes[1] < 4)
      for (int k = 1; k + 1 < n; ++k) sizes[k] /= 2;
    // One wavefront holds at most one tile per time tile: with all the time steps in one
    // tile nothing runs in parallel. Two equal time tiles then: seidel-2d (40 steps,
    // N=1000, 2 threads) 0.41-0.45 s with one tile of 64, 0.22-0.23 s with two of 20,
    // 0.28 s with three of 14; gcc -O3 0.43-0.46 s.
    if (ext[0] >= 2 && ext[0] <= sizes[0]) sizes[0] = static_cast<long>((ext[0] + 1) / 2);
  } else if (vector_inner) {
    sizes[n - 1] = 1024;
  }
  auto fp = tile_footprint(scop, band, sizes);
  why = fp ? "footprint " + std::to_string(fp->bytes) + " B, L2 " + std::to_string(o.cache.l2) + " B"
           : std::string("footprint unbounded");
  return sizes;
}

isl::schedule_node insert_band(isl::schedule_node node, isl_multi_union_pw_aff* part) {
  node = isl::manage(isl_schedule_node_insert_partial_schedule(node.release(), part));
  return isl::manage(isl_schedule_node_band_set_permutable(node.release(), 1));
}

}  // namespace

std::optional<isl::schedule> time_tile(IslContext& ctx, const Scop& scop, const Dependences& deps,
                                       const ScheduleOptions& schedule_options, const TimeTileOptions& options,
                                       std::vector<std::string>& log) {
  if (!options.enabled || scop.statements.empty()) return std::nullopt;
  auto skip = [&](const std::string& why) -> std::optional<isl::schedule> {
    log.push_back("time tiling: not applied (" + why + ")");
    return std::nullopt;
  };
  // Only a scop whose source has one outermost loop around everything (a time loop) and
  // a statement below two loops is a candidate: cheap to test before running isl again.
  isl::schedule_node src = scop.schedule.get_root().child(0);
  if (isl_schedule_node_get_type(src.get()) != isl_schedule_node_band) return skip("no outer loop around every statement");
  int deepest = 0;
  for (const auto& s : scop.statements) deepest = std::max(deepest, static_cast<int>(s.iterators.size()));
  if (deepest < 2) return skip("no loop nest of depth 2");

  const isl::union_map validity = deps.validity();
  std::string error;
  isl::schedule s = run_isl_scheduler(ctx, scop, validity, /*serialize=*/false, schedule_options, error,
                                      /*outer_coincidence=*/false);
  if (s.is_null()) return skip("isl: " + error);
  isl::schedule_node band = s.get_root().child(0);
  if (isl_schedule_node_get_type(band.get()) != isl_schedule_node_band) return skip("isl found no band around every statement");
  const int n = static_cast<int>(isl_schedule_node_band_n_member(band.get()));
  // A 1-D stencil's sweep is one unit-stride loop that gcc vectorises and streams from
  // cache; measured (jacobi-1d, N = 1e5, 1000 steps) no tile shape beat it (best 0.92x).
  if (n < 3) return skip("isl's outer band has fewer than 3 members (1-D stencils stay as they are)");
  bool carried = false;
  std::string why;
  if (!uniform_nonnegative(band, validity, options.max_distance, carried, why)) return skip(why);
  if (!carried) return skip("the outer loop carries no dependence: plain parallel loops do better");

  std::vector<long> sizes = choose_sizes(band, scop, options, n, innermost_vectorisable(band, validity, n), why);
  isl_ctx* raw = ctx.raw();
  isl_multi_union_pw_aff* part = isl_schedule_node_band_get_partial_schedule(band.get());
  isl_multi_val* mv = isl_multi_val_zero(isl_multi_union_pw_aff_get_space(part));
  std::string text;
  for (int i = 0; i < n; ++i) {
    mv = isl_multi_val_set_val(mv, i, isl_val_int_from_si(raw, sizes[i]));
    if (i) text += 'x';
    text += std::to_string(sizes[i]);
  }
  isl_multi_union_pw_aff* tiles = isl_multi_union_pw_aff_floor(
      isl_multi_union_pw_aff_scale_down_multi_val(isl_multi_union_pw_aff_copy(part), mv));
  isl_union_pw_aff* wave = isl_union_pw_aff_add(isl_multi_union_pw_aff_get_union_pw_aff(tiles, 0),
                                                isl_multi_union_pw_aff_get_union_pw_aff(tiles, 1));
  isl_multi_union_pw_aff* rest = isl_multi_union_pw_aff_drop_dims(tiles, isl_dim_set, 0, 1);

  // band -> wavefront w = T0 + T1, then (T1, T2, ...), then the point loops: the time
  // member, then each statement's space members in source order (no guards in the
  // innermost loop, which vectorises), or all statements in one space band when that
  // order would break a dependence.
  isl::schedule_node below = isl::manage(isl_schedule_node_delete(band.release()));
  auto build = [&](bool split) {
    isl::schedule_node node = below;
    if (split && scop.statements.size() > 1) {
      isl_union_set_list* filters = isl_union_set_list_alloc(raw, static_cast<int>(scop.statements.size()));
      for (const auto& st : scop.statements) filters = isl_union_set_list_add(filters, isl_union_set_from_set(st.domain.copy()));
      node = isl::manage(isl_schedule_node_insert_sequence(node.release(), filters));
      for (int i = 0, k = static_cast<int>(scop.statements.size()); i < k; ++i) {
        isl::schedule_node leaf = node.child(i).child(0);
        leaf = insert_band(leaf, isl_multi_union_pw_aff_drop_dims(isl_multi_union_pw_aff_copy(part), isl_dim_set, 0, 1));
        node = leaf.parent().parent();
      }
      int drop = n - 1;
      node = insert_band(node, isl_multi_union_pw_aff_drop_dims(isl_multi_union_pw_aff_copy(part), isl_dim_set, 1, drop));
    } else {
      node = insert_band(node, isl_multi_union_pw_aff_copy(part));
    }
    node = insert_band(node, isl_multi_union_pw_aff_copy(rest));
    node = insert_band(node, isl_multi_union_pw_aff_from_union_pw_aff(isl_union_pw_aff_copy(wave)));
    return node.get_schedule();
  };
  isl::schedule out = build(true);
  bool split = true;
  if (find_violation(out, validity)) {
    out = build(false);
    split = false;
  }
  isl_multi_union_pw_aff_free(part);
  isl_multi_union_pw_aff_free(rest);
  isl_union_pw_aff_free(wave);
  log.push_back("time tiling: band of " + std::to_string(n) + " members skewed by isl, tiled " + text + " (" + why +
                "), wavefront over the sum of the first two tile loops, " +
                (split ? "statements one after the other inside a tile step" : "statements interleaved inside a tile"));
  return out;
}

}  // namespace pz::poly
