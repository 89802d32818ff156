#include "polyhedral/analysis/footprint.h"

#include <isl/aff.h>
#include <isl/fixed_box.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/stride_info.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include <climits>

#include "polyhedral/ir/isl_context.h"
#include "polyhedral/ir/point_count.h"

namespace pz::poly {

namespace {

// Statement instance -> (loops above the band, tile coordinates of the band).
isl::union_map tile_of_instance(const isl::schedule_node& band, const std::vector<long>& sizes) {
  isl::union_set dom = node_domain(band);
  isl_multi_union_pw_aff* part = isl_schedule_node_band_get_partial_schedule(band.get());
  isl_multi_val* mv = isl_multi_val_zero(isl_multi_union_pw_aff_get_space(part));
  for (size_t i = 0; i < sizes.size(); ++i)
    mv = isl_multi_val_set_val(mv, static_cast<int>(i), isl_val_int_from_si(isl_union_set_get_ctx(dom.get()), sizes[i]));
  part = isl_multi_union_pw_aff_scale_down_multi_val(part, mv);
  part = isl_multi_union_pw_aff_floor(part);
  isl::union_map tile = isl::manage(isl_union_map_from_multi_union_pw_aff(part)).intersect_domain(dom);
  isl::union_map prefix = band.prefix_schedule_union_map().intersect_domain(dom);
  return isl::manage(isl_union_map_flat_range_product(prefix.release(), tile.release()));
}

std::string range_name(const isl::map& m) { return isl_map_get_tuple_name(m.get(), isl_dim_out); }

int element_bytes_of(const Scop& scop, const std::string& array) {
  const Array* a = scop.array(array);
  return a ? a->element_bytes() : 8;
}

// One count per array of a union set of array elements.
std::map<std::string, long long> count_per_array(const isl::union_set& elements, bool& exact) {
  std::map<std::string, long long> out;
  for (const isl::set& s : sets_of(elements)) {
    auto n = count_points(s);
    if (!n) exact = false;
    out[isl_set_get_tuple_name(s.get())] = n.value_or(0);
  }
  return out;
}

std::optional<long long> lookup(const std::map<std::string, long long>& counts, const std::string& array, bool exact) {
  if (!exact) return std::nullopt;
  auto it = counts.find(array);
  return it == counts.end() ? 0 : it->second;
}

}  // namespace

std::optional<long long> count_points(const isl::set& set) {
  std::optional<PointCount> n = count_points_bounded(set);
  if (!n || !n->exact) return std::nullopt;
  return n->points;
}

std::optional<long long> count_points(const isl::union_set& set) {
  long long total = 0;
  for (const isl::set& s : sets_of(set)) {
    auto n = count_points(s);
    if (!n || *n > LLONG_MAX - total) return std::nullopt;
    total += *n;
  }
  return total;
}

std::optional<long long> box_volume_without_strides(const isl::map& tile_to_elements) {
  isl_map* m = tile_to_elements.get();
  isl_fixed_box* box = isl_map_get_range_simple_fixed_box_hull(m);
  std::optional<long long> out;
  if (isl_fixed_box_is_valid(box) == isl_bool_true) {
    isl_multi_val* size = isl_fixed_box_get_size(box);
    isl_size n = isl_multi_val_size(size);
    long long volume = 1;
    for (int i = 0; i < n; ++i) {
      isl_val* v = isl_multi_val_get_val(size, i);
      long long extent = isl_val_get_num_si(v);
      isl_val_free(v);
      isl_stride_info* si = isl_map_get_range_stride_info(m, i);
      isl_val* stride = si ? isl_stride_info_get_stride(si) : nullptr;
      long long st = stride && isl_val_is_int(stride) == isl_bool_true ? isl_val_get_num_si(stride) : 1;
      isl_val_free(stride);
      isl_stride_info_free(si);
      if (st > 1) extent = (extent + st - 1) / st;
      volume = saturating_product(volume, extent);
    }
    isl_multi_val_free(size);
    out = volume;
  }
  isl_fixed_box_free(box);
  return out;
}

std::optional<TileFootprint> tile_footprint(const Scop& scop, const isl::schedule_node& band,
                                            const std::vector<long>& sizes) {
  isl::union_map which = tile_of_instance(band, sizes);
  isl::union_map accesses = scop.reads().unite(scop.writes()).intersect_domain(node_domain(band));
  isl::union_map fp = which.reverse().apply_range(accesses);
  TileFootprint out;
  for (const isl::map& m : maps_of(fp)) {
    std::string array = range_name(m);
    auto volume = box_volume_without_strides(m);
    if (!volume) return std::nullopt;
    out.elements[array] = *volume;
    out.bytes = saturating_sum(out.bytes, saturating_product(*volume, element_bytes_of(scop, array)));
  }
  return out;
}

std::vector<ArrayMovement> kernel_movement(const Scop& scop, const Dependences& deps) {
  bool exact = true;
  auto accessed = count_per_array(scop.reads().unite(scop.writes()).range(), exact);
  auto written = count_per_array(scop.writes().range(), exact);
  auto in = count_per_array(deps.live_in.range(), exact);
  auto out = count_per_array(deps.live_out.range(), exact);
  std::vector<ArrayMovement> result;
  for (const auto& [name, n] : accessed) {
    (void)n;
    ArrayMovement a;
    a.array = name;
    const Array* decl = scop.array(name);
    a.type = decl ? decl->element_type : "double";
    a.element_bytes = element_bytes_of(scop, name);
    a.accessed = lookup(accessed, name, exact);
    a.written = lookup(written, name, exact);
    a.moved_in = lookup(in, name, exact);
    a.moved_out = lookup(out, name, exact);
    result.push_back(a);
  }
  return result;
}

namespace {

// Tile -> elements it reads or writes, and tile -> elements it writes, per array.
struct TileMaps {
  isl::union_set tiles;
  std::map<std::string, isl::map> all, written;
};

TileMaps tile_maps(const Scop& scop, const isl::schedule_node& band, const std::vector<long>& sizes) {
  isl::union_set dom = node_domain(band);
  isl::union_map which = tile_of_instance(band, sizes);
  isl::union_map to_tile = which.reverse();
  TileMaps t{which.range(), {}, {}};
  for (const isl::map& m : maps_of(to_tile.apply_range(scop.reads().unite(scop.writes()).intersect_domain(dom))))
    t.all.emplace(range_name(m), m);
  for (const isl::map& m : maps_of(to_tile.apply_range(scop.writes().intersect_domain(dom))))
    t.written.emplace(range_name(m), m);
  return t;
}

}  // namespace

TilingMovement tiling_movement(const Scop& scop, const isl::schedule_node& band, const std::vector<long>& sizes) {
  TilingMovement t;
  t.sizes = sizes;
  t.band = "band of " + std::to_string(isl_schedule_node_band_n_member(band.get())) + " members over";
  for (const isl::set& s : sets_of(node_domain(band))) {
    t.band += t.band.back() == 'r' ? " " : ", ";
    t.band += isl_set_get_tuple_name(s.get());
  }
  TileMaps maps = tile_maps(scop, band, sizes);
  t.tiles = count_points(maps.tiles);
  std::optional<isl::set> first;
  for (const isl::set& s : sets_of(maps.tiles)) first = s.lexmin();  // one space: the prefix and tile loops
  for (const auto& [array, m] : maps.all) {  // by array name
    TileArrayFootprint a;
    a.array = array;
    a.element_bytes = element_bytes_of(scop, array);
    a.box = box_volume_without_strides(m);
    if (first) a.first_tile = count_points(m.intersect_domain(*first).range());
    t.arrays.push_back(a);
  }
  return t;
}

void add_tile_sums(const Scop& scop, const isl::schedule_node& band, TilingMovement& tiling) {
  TileMaps maps = tile_maps(scop, band, tiling.sizes);
  for (auto& a : tiling.arrays) {
    a.loaded = count_points(maps.all.at(a.array).wrap());
    auto w = maps.written.find(a.array);
    a.written_back = w == maps.written.end() ? std::optional<long long>(0) : count_points(w->second.wrap());
  }
}

std::vector<CacheLevelMovement> cache_movement(const std::vector<ArrayMovement>& kernel,
                                               const TilingMovement& tiling, const CacheInfo& cache) {
  std::vector<CacheLevelMovement> out;
  Totals accessed = sum_arrays(kernel, &ArrayMovement::accessed);
  Totals written = sum_arrays(kernel, &ArrayMovement::written);
  Totals loaded = sum_arrays(tiling.arrays, &TileArrayFootprint::loaded);
  Totals back = sum_arrays(tiling.arrays, &TileArrayFootprint::written_back);
  Totals box = sum_arrays(tiling.arrays, &TileArrayFootprint::box);
  std::vector<std::pair<std::string, long>> levels = {{"L1", cache.l1}, {"L2", cache.l2}};
  if (cache.l3 > 0) levels.emplace_back("L3", cache.l3);
  for (const auto& [name, capacity] : levels) {
    CacheLevelMovement l;
    l.level = name;
    l.capacity_bytes = capacity;
    if (accessed.bytes && *accessed.bytes <= capacity) {
      l.model = "compulsory";
      l.loaded = accessed.elements;
      l.loaded_bytes = accessed.bytes;
      l.written_back = written.elements;
      l.written_back_bytes = written.bytes;
    } else if (box.bytes && *box.bytes <= capacity) {
      l.model = "per-tile";
      l.loaded = loaded.elements;
      l.loaded_bytes = loaded.bytes;
      l.written_back = back.elements;
      l.written_back_bytes = back.bytes;
    } else {
      l.model = "not modelled";
    }
    out.push_back(l);
  }
  return out;
}

}  // namespace pz::poly
