#include "polyhedral/footprint.h"

#include <isl/aff.h>
#include <isl/fixed_box.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/union_map.h>

#include "polyhedral/isl_context.h"

namespace pz::poly {

std::optional<TileFootprint> tile_footprint(const Scop& scop, const isl::schedule_node& band,
                                            const std::vector<long>& sizes) {
  isl::union_set dom = node_domain(band);
  isl_multi_union_pw_aff* part = isl_schedule_node_band_get_partial_schedule(band.get());
  isl_multi_val* mv = isl_multi_val_zero(isl_multi_union_pw_aff_get_space(part));
  for (size_t i = 0; i < sizes.size(); ++i)
    mv = isl_multi_val_set_val(mv, static_cast<int>(i), isl_val_int_from_si(isl_union_set_get_ctx(dom.get()), sizes[i]));
  part = isl_multi_union_pw_aff_scale_down_multi_val(part, mv);
  part = isl_multi_union_pw_aff_floor(part);
  isl::union_map tile = isl::manage(isl_union_map_from_multi_union_pw_aff(part)).intersect_domain(dom);
  isl::union_map prefix = band.prefix_schedule_union_map().intersect_domain(dom);
  isl::union_map which = isl::manage(isl_union_map_flat_range_product(prefix.release(), tile.release()));
  isl::union_map accesses = scop.reads().unite(scop.writes()).intersect_domain(dom);
  isl::union_map fp = which.reverse().apply_range(accesses);
  TileFootprint out;
  for (isl::map m : maps_of(fp)) {
    std::string array = isl_map_get_tuple_name(m.get(), isl_dim_out);
    isl_fixed_box* box = isl_map_get_range_simple_fixed_box_hull(m.get());
    bool valid = isl_fixed_box_is_valid(box) == isl_bool_true;
    long long volume = 1;
    if (valid) {
      isl_multi_val* size = isl_fixed_box_get_size(box);
      isl_size n = isl_multi_val_size(size);
      for (int i = 0; i < n; ++i) {
        isl_val* v = isl_multi_val_get_val(size, i);
        volume *= isl_val_get_num_si(v);
        isl_val_free(v);
      }
      isl_multi_val_free(size);
    }
    isl_fixed_box_free(box);
    if (!valid) return std::nullopt;
    const Array* a = scop.array(array);
    out.elements[array] = volume;
    out.bytes += volume * (a ? a->element_bytes() : 8);
  }
  return out;
}

}  // namespace pz::poly
