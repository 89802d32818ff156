#include "polyhedral/transform/loop_order.h"

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/union_map.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "polyhedral/ir/isl_context.h"

namespace pz::poly {

isl::schedule_node permute_band(isl::schedule_node band, const std::vector<int>& perm) {
  isl_schedule_node* node = band.release();
  isl_multi_union_pw_aff* old = isl_schedule_node_band_get_partial_schedule(node);
  int n = static_cast<int>(perm.size());
  std::vector<int> coincident(n);
  for (int i = 0; i < n; ++i) coincident[i] = isl_schedule_node_band_member_get_coincident(node, perm[i]) == isl_bool_true;
  bool permutable = isl_schedule_node_band_get_permutable(node) == isl_bool_true;
  isl_multi_union_pw_aff* fresh = isl_multi_union_pw_aff_copy(old);
  for (int i = 0; i < n; ++i)
    fresh = isl_multi_union_pw_aff_set_union_pw_aff(fresh, i, isl_multi_union_pw_aff_get_union_pw_aff(old, perm[i]));
  isl_multi_union_pw_aff_free(old);
  node = isl_schedule_node_delete(node);
  node = isl_schedule_node_insert_partial_schedule(node, fresh);
  node = isl_schedule_node_band_set_permutable(node, permutable);
  for (int i = 0; i < n; ++i) node = isl_schedule_node_band_member_set_coincident(node, i, coincident[i]);
  return isl::manage(node);
}

namespace {

// Each statement instance below `band` -> its schedule point: the loops above the band, then
// the band's members.
isl::union_map schedule_through(const isl::schedule_node& band) {
  isl::union_map prefix = band.prefix_schedule_union_map();
  isl::union_map part = isl::manage(isl_union_map_from_multi_union_pw_aff(isl_schedule_node_band_get_partial_schedule(band.get())));
  return isl::manage(isl_union_map_flat_range_product(prefix.release(), part.release())).intersect_domain(node_domain(band));
}

}  // namespace

AccessStride access_stride(const isl::schedule_node& band, int member, const isl::map& access) {
  isl::union_map sched = schedule_through(band);
  // element at schedule point t -> element at the point one step further along `member`
  isl::union_map at = sched.reverse().apply_range(isl::union_map(access));
  if (at.is_empty()) return AccessStride::kInvariant;
  auto parts = maps_of(at);
  if (parts.size() != 1) return AccessStride::kOther;
  isl::map pts = parts[0];
  isl::space sp = isl::manage(isl_space_domain(pts.space().release()));
  int n = static_cast<int>(isl_space_dim(sp.get(), isl_dim_set));
  int pos = n - static_cast<int>(isl_schedule_node_band_n_member(band.get())) + member;
  // identity on every dimension except pos, which advances by one
  isl_map* step = isl_map_identity(isl_space_map_from_set(sp.copy()));
  step = isl_map_project_out(step, isl_dim_out, pos, 1);
  step = isl_map_insert_dims(step, isl_dim_out, pos, 1);
  isl_local_space* ls = isl_local_space_from_space(isl_map_get_space(step));
  isl_constraint* c = isl_constraint_alloc_equality(ls);
  c = isl_constraint_set_coefficient_si(c, isl_dim_out, pos, 1);
  c = isl_constraint_set_coefficient_si(c, isl_dim_in, pos, -1);
  c = isl_constraint_set_constant_si(c, -1);
  step = isl_map_add_constraint(step, c);
  isl::map moved = pts.reverse().apply_range(isl::manage(step)).apply_range(pts);
  isl::set delta = moved.deltas();
  int rank = static_cast<int>(isl_set_dim(delta.get(), isl_dim_set));
  auto fixed = [&](int last) {  // { [0, ..., 0, last] }
    isl_set* s = isl_set_universe(delta.space().release());
    for (int i = 0; i + 1 < rank; ++i) s = isl_set_fix_si(s, isl_dim_set, i, 0);
    return isl::manage(isl_set_fix_si(s, isl_dim_set, rank - 1, last));
  };
  if (delta.is_empty() || rank == 0 || delta.is_subset(fixed(0))) return AccessStride::kInvariant;
  if (delta.is_subset(fixed(1).unite(fixed(-1)).unite(fixed(0)))) return AccessStride::kUnit;
  return AccessStride::kOther;
}

std::vector<BandAccess> accesses_below(const isl::schedule_node& band, const Scop& scop) {
  isl::union_set dom = node_domain(band);
  std::vector<BandAccess> out;
  for (const auto& s : scop.statements)
    if (!isl::union_set(s.domain).intersect(dom).is_empty())
      for (const auto& a : s.accesses) {
        const Array* arr = scop.array(a.array);
        out.push_back({a.relation.intersect_domain(s.domain), arr ? arr->rank : 0, a.write});
      }
  return out;
}

bool has_temporal_reuse(const isl::schedule_node& band, const Scop& scop) {
  const int n = static_cast<int>(isl_schedule_node_band_n_member(band.get()));
  for (const auto& a : accesses_below(band, scop))
    if (a.rank > 0)
      for (int m = 0; m < n; ++m)
        if (access_stride(band, m, a.relation) == AccessStride::kInvariant) return true;
  return false;
}

int crossed_arrays(const isl::schedule_node& band, const Scop& scop) {
  const int n = static_cast<int>(isl_schedule_node_band_n_member(band.get()));
  std::set<std::string> arrays;
  for (const auto& a : accesses_below(band, scop)) {
    if (a.rank < 2 || access_stride(band, n - 1, a.relation) != AccessStride::kOther) continue;
    for (int m = 0; m + 1 < n; ++m)
      if (access_stride(band, m, a.relation) == AccessStride::kUnit) {
        const char* name = isl_map_get_tuple_name(a.relation.get(), isl_dim_out);
        arrays.insert(name ? name : "");
        break;
      }
  }
  return static_cast<int>(arrays.size());
}

long long innermost_trip_count(const isl::schedule_node& band) {
  isl::union_set points = schedule_through(band).range();
  std::vector<isl::set> sets;
  isl_union_set_foreach_set(points.get(), [](isl_set* s, void* user) {
    static_cast<std::vector<isl::set>*>(user)->push_back(isl::manage(s));
    return isl_stat_ok;
  }, &sets);
  if (sets.size() != 1) return -1;
  // { inner' - inner : (outer, inner) and (outer, inner') both schedule points }
  isl_set* s = sets[0].release();
  const int dims = static_cast<int>(isl_set_dim(s, isl_dim_set));
  isl_map* pairs = isl_map_from_domain_and_range(isl_set_copy(s), s);
  for (int d = 0; d + 1 < dims; ++d) pairs = isl_map_equate(pairs, isl_dim_in, d, isl_dim_out, d);
  isl_set* delta = isl_map_deltas(pairs);
  isl_aff* last = isl_aff_var_on_domain(isl_local_space_from_space(isl_set_get_space(delta)), isl_dim_set, dims - 1);
  isl_val* max = isl_set_max_val(delta, last);
  isl_aff_free(last);
  isl_set_free(delta);
  long long trips = max && isl_val_is_int(max) ? isl_val_get_num_si(max) + 1 : -1;
  isl_val_free(max);
  return trips;
}

isl::schedule order_loops_for_locality(const isl::schedule& schedule, const Scop& scop, std::vector<std::string>& log) {
  isl::schedule_node root = schedule.get_root();
  root = root.map_descendant_bottom_up([&](isl::schedule_node node) -> isl::schedule_node {
    if (isl_schedule_node_get_type(node.get()) != isl_schedule_node_band) return node;
    int n = static_cast<int>(isl_schedule_node_band_n_member(node.get()));
    if (n < 2 || isl_schedule_node_band_get_permutable(node.get()) != isl_bool_true) return node;
    auto accesses = accesses_below(node, scop);
    // Score: unit stride +2 (vectorisable, one cache line per 8 or 16 iterations),
    // invariant +1 (reuse in a register), anything else -2 (a new line every iteration).
    // Ties go to the member along which more writes are stride-1: a transpose's stores
    // then fill whole lines while its loads jump rows (stores that jump rows each fetch a
    // line for a partial write).
    std::vector<int> score(n, 0), unit_writes(n, 0);
    for (int m = 0; m < n; ++m)
      for (const auto& a : accesses) {
        AccessStride st = access_stride(node, m, a.relation);
        score[m] += st == AccessStride::kUnit ? 2 : st == AccessStride::kInvariant ? 1 : -2;
        unit_writes[m] += a.write && st == AccessStride::kUnit;
      }
    int best = n - 1;
    for (int m = 0; m < n; ++m)
      if (score[m] > score[best] || (score[m] == score[best] && unit_writes[m] > unit_writes[best])) best = m;
    if (best == n - 1) return node;
    std::vector<int> perm;
    for (int m = 0; m < n; ++m)
      if (m != best) perm.push_back(m);
    perm.push_back(best);
    std::string line = "loop order: band of ";
    line += std::to_string(n);
    line += " members, member ";
    line += std::to_string(best);
    line += " innermost (stride scores";
    for (int s : score) {
      line += ' ';
      line += std::to_string(s);
    }
    line += ')';
    log.push_back(line);
    return permute_band(node, perm);
  });
  return root.get_schedule();
}

}  // namespace pz::poly
