#include "polyhedral/analysis/legality.h"

#include <isl/aff.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/union_map.h>

#include <vector>

#include "polyhedral/ir/isl_context.h"

namespace pz::poly {

namespace {

// Pads every range of a union map to `n` output dimensions (trailing zeros), so that
// schedules of statements at different depths compare lexicographically in one space.
isl::union_map pad_ranges(const isl::union_map& m, unsigned n) {
  isl::union_map out = isl::union_map::empty(m.ctx());
  for (isl::map part : maps_of(m)) {
    unsigned have = static_cast<unsigned>(isl_map_dim(part.get(), isl_dim_out));
    isl_map* p = isl_map_reset_tuple_id(part.release(), isl_dim_out);
    p = isl_map_add_dims(p, isl_dim_out, n - have);
    for (unsigned i = have; i < n; ++i) p = isl_map_fix_si(p, isl_dim_out, i, 0);
    out = out.unite(isl::manage(isl_union_map_from_map(p)));
  }
  return out;
}

unsigned max_out_dims(const isl::union_map& m) {
  unsigned n = 0;
  for (isl::map part : maps_of(m)) n = std::max(n, static_cast<unsigned>(isl_map_dim(part.get(), isl_dim_out)));
  return n;
}

}  // namespace

std::optional<std::string> find_violation(const isl::schedule& schedule, const isl::union_map& deps) {
  isl::union_map smap = schedule.get_map();
  smap = pad_ranges(smap, max_out_dims(smap));
  isl::union_map d = deps.apply_domain(smap).apply_range(smap);
  isl::union_map bad = isl::union_map::empty(deps.ctx());
  for (isl::map part : maps_of(d)) {
    isl::map lt = isl::manage(isl_map_lex_lt(isl_space_range(part.space().release())));
    isl::map wrong = part.subtract(lt);
    if (!wrong.is_empty()) bad = bad.unite(isl::union_map(wrong));
  }
  if (bad.is_empty()) return std::nullopt;
  // Name the offending statement instances, not just schedule points.
  isl::union_map pairs = bad.apply_domain(smap.reverse()).apply_range(smap.reverse()).intersect(deps);
  return isl_str(pairs.coalesce());
}

namespace {

// prefix schedule ⊕ band members 0..pos, on the instances below `band`.
isl::union_map schedule_through(const isl::schedule_node& band, int pos) {
  isl::union_set dom = node_domain(band);
  isl::union_map prefix = band.prefix_schedule_union_map();
  isl_multi_union_pw_aff* part = isl_schedule_node_band_get_partial_schedule(band.get());
  part = isl_multi_union_pw_aff_drop_dims(part, isl_dim_set, pos + 1,
                                          isl_multi_union_pw_aff_dim(part, isl_dim_set) - (pos + 1));
  isl::union_map members = isl::manage(isl_union_map_from_multi_union_pw_aff(part)).intersect_domain(dom);
  return isl::manage(isl_union_map_flat_range_product(prefix.release(), members.release()));
}

}  // namespace

bool band_member_is_degenerate(const isl::schedule_node& band, int pos) {
  isl::union_set points = node_domain(band).apply(schedule_through(band, pos));
  for (isl::set p : sets_of(points)) {
    unsigned n = static_cast<unsigned>(isl_set_dim(p.get(), isl_dim_set));
    isl_map* m = isl_map_from_range(p.release());
    m = isl_map_move_dims(m, isl_dim_in, 0, isl_dim_out, 0, n - 1);
    bool single = isl_map_is_single_valued(m) == isl_bool_true;
    isl_map_free(m);
    if (!single) return false;
  }
  return true;
}

bool band_member_is_rectangular(const isl::schedule_node& band, int pos) {
  const unsigned members = isl_schedule_node_band_n_member(band.get());
  isl::union_set points = node_domain(band).apply(schedule_through(band, static_cast<int>(members) - 1));
  for (isl::set p : sets_of(points)) {
    const unsigned n = static_cast<unsigned>(isl_set_dim(p.get(), isl_dim_set));
    const unsigned first = n - members, d = first + static_cast<unsigned>(pos);
    // The loops above the band stay in both factors: only the band's own members count.
    isl_set* others = isl_set_project_out(p.copy(), isl_dim_set, d, 1);
    others = isl_set_insert_dims(others, isl_dim_set, d, 1);
    isl_set* range = isl_set_project_out(p.copy(), isl_dim_set, d + 1, n - d - 1);
    range = isl_set_project_out(range, isl_dim_set, first, d - first);
    range = isl_set_insert_dims(range, isl_dim_set, first, d - first);
    range = isl_set_add_dims(range, isl_dim_set, n - d - 1);
    isl_set* product = isl_set_intersect(others, range);
    const bool rectangular = isl_set_is_subset(product, p.get()) == isl_bool_true;
    isl_set_free(product);
    if (!rectangular) return false;
  }
  return true;
}

namespace {

// For the pairs `relation` makes among the instances below `band`: the distance along
// member `pos` of each pair whose loops above that member coincide, one set per schedule
// space (the last dimension; the others are 0).
std::vector<isl::set> distances_within_one_loop_run(const isl::schedule_node& band, int pos,
                                                    const isl::union_map& relation) {
  isl::union_set dom = node_domain(band);
  isl::union_map local = relation.intersect_domain(dom).intersect_range(dom);
  if (local.is_empty()) return {};
  isl::union_map f = schedule_through(band, pos);
  std::vector<isl::set> out;
  for (isl::set dset : sets_of(local.apply_domain(f).apply_range(f).deltas())) {
    unsigned n = static_cast<unsigned>(isl_set_dim(dset.get(), isl_dim_set));
    isl_set* outer_equal = dset.release();
    for (unsigned i = 0; i + 1 < n; ++i) outer_equal = isl_set_fix_si(outer_equal, isl_dim_set, i, 0);
    out.push_back(isl::manage(outer_equal));
  }
  return out;
}

}  // namespace

bool relates_within_one_loop_run(const isl::schedule_node& band, int pos, const isl::union_map& relation) {
  for (const isl::set& d : distances_within_one_loop_run(band, pos, relation))
    if (!d.is_empty()) return true;
  return false;
}

bool band_member_is_parallel(const isl::schedule_node& band, int pos, const isl::union_map& deps) {
  for (const isl::set& d : distances_within_one_loop_run(band, pos, deps)) {
    unsigned n = static_cast<unsigned>(isl_set_dim(d.get(), isl_dim_set));
    isl::set zero = isl::manage(isl_set_fix_si(d.copy(), isl_dim_set, n - 1, 0));
    if (!d.is_subset(zero)) return false;
  }
  return true;
}

}  // namespace pz::poly
