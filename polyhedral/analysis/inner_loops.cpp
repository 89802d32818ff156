#include "polyhedral/analysis/inner_loops.h"

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/map.h>
#include <isl/set.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "polyhedral/ir/isl_context.h"
#include "polyhedral/transform/parallel_marks.h"

namespace pz::poly {

namespace {

// `map` (points to points of one space) with the first `d` dimensions of both sides equal.
isl::map equal_before(isl::map map, int d) {
  isl_map* m = map.release();
  for (int i = 0; i < d; ++i) m = isl_map_equate(m, isl_dim_in, i, isl_dim_out, i);
  return isl::manage(m);
}

// Whether some pair of `pairs` differs in dimension d (its deltas have z_d != 0).
bool moves_along(const isl::map& pairs, int d) {
  isl::set delta = pairs.deltas();
  isl::set up = isl::manage(isl_set_lower_bound_si(delta.copy(), isl_dim_set, d, 1));
  isl::set down = isl::manage(isl_set_upper_bound_si(delta.release(), isl_dim_set, d, -1));
  return !up.is_empty() || !down.is_empty();
}

// The innermost dimension of `points` (schedule points of one statement) that is a loop:
// two points equal in every dimension before it differ in it. -1: none.
int innermost_loop_dimension(const isl::set& points) {
  const int n = static_cast<int>(isl_set_dim(points.get(), isl_dim_set));
  const isl::map all = isl::manage(isl_map_from_domain_and_range(points.copy(), points.copy()));
  for (int d = n - 1; d >= 0; --d)
    if (moves_along(equal_before(all, d), d)) return d;
  return -1;
}

// { t -> t' : t'_i = t_i for i < d, t'_d = t_d + 1 } on `space` (a set space of n dims).
isl::map next_iteration(const isl::space& space, int d) {
  isl_map* step = isl_map_universe(isl_space_map_from_set(space.copy()));
  for (int i = 0; i < d; ++i) step = isl_map_equate(step, isl_dim_in, i, isl_dim_out, i);
  isl_local_space* ls = isl_local_space_from_space(isl_map_get_space(step));
  isl_constraint* c = isl_constraint_alloc_equality(ls);
  c = isl_constraint_set_coefficient_si(c, isl_dim_out, d, 1);
  c = isl_constraint_set_coefficient_si(c, isl_dim_in, d, -1);
  c = isl_constraint_set_constant_si(c, -1);
  return isl::manage(isl_map_add_constraint(step, c));
}

// Whether the element `access` reaches moves by a unit step of its last subscript, or not
// at all, between the instance pairs `steps`.
bool unit_or_invariant(const isl::map& steps, const isl::map& access) {
  isl::map elements = steps.apply_domain(access).apply_range(access);
  if (elements.is_empty()) return true;
  isl::set delta = elements.deltas();
  const int rank = static_cast<int>(isl_set_dim(delta.get(), isl_dim_set));
  if (rank == 0) return true;
  isl_set* allowed = isl_set_universe(delta.space().release());
  for (int i = 0; i + 1 < rank; ++i) allowed = isl_set_fix_si(allowed, isl_dim_set, i, 0);
  allowed = isl_set_lower_bound_si(allowed, isl_dim_set, rank - 1, -1);
  allowed = isl_set_upper_bound_si(allowed, isl_dim_set, rank - 1, 1);
  return delta.is_subset(isl::manage(allowed));
}

struct MarkedStatements {
  std::set<std::string> simd, accumulated;
};

// The statements below an "omp simd" mark of `schedule`, and those an accumulate mark names.
MarkedStatements marked_statements(const isl::schedule& schedule) {
  MarkedStatements marked;
  isl_schedule_foreach_schedule_node_top_down(
      schedule.get(),
      [](isl_schedule_node* node, void* user) -> isl_bool {
        if (isl_schedule_node_get_type(node) != isl_schedule_node_mark) return isl_bool_true;
        auto* m = static_cast<MarkedStatements*>(user);
        isl_id* id = isl_schedule_node_mark_get_id(node);
        const std::string name = id && isl_id_get_name(id) ? isl_id_get_name(id) : "";
        isl_id_free(id);
        const std::string accumulate = kAccumulateMark;
        if (name == kSimdMark) {
          for (const isl::set& s : sets_of(node_domain(isl::manage_copy(node))))
            m->simd.insert(isl_set_get_tuple_name(s.get()));
        } else if (name.rfind(accumulate, 0) == 0) {
          std::istringstream words(name.substr(accumulate.size()));
          for (std::string w; words >> w;) m->accumulated.insert(w);
        }
        return isl_bool_true;
      },
      &marked);
  return marked;
}

// Whether every run of dimension `d` of `points` (the points equal in every dimension before
// d) spans the same extent, at every value of the parameters.
bool runs_of_equal_length(const isl::set& points, int d) {
  const int n = static_cast<int>(isl_set_dim(points.get(), isl_dim_set));
  isl_map* runs = isl_map_from_range(points.copy());
  runs = isl_map_move_dims(runs, isl_dim_in, 0, isl_dim_out, 0, static_cast<unsigned>(d));
  runs = isl_map_project_out(runs, isl_dim_out, 1, static_cast<unsigned>(n - d - 1));  // outer -> [t_d]
  isl_pw_aff* last = isl_map_dim_max(isl_map_copy(runs), 0);
  isl_pw_aff* extent = isl_pw_aff_sub(last, isl_map_dim_min(runs, 0));
  const isl::set extents = isl::manage(isl_map_range(isl_map_from_pw_aff(extent)));  // params -> [extent]
  isl_pw_aff* longest = isl_set_dim_max(extents.copy(), 0);
  isl_pw_aff* shortest = isl_set_dim_min(extents.copy(), 0);
  return isl::manage(isl_pw_aff_gt_set(longest, shortest)).is_empty();
}

// The most iterations of one run of `statement`'s innermost loop under `schedule`: the
// extent of that dimension over the statement's schedule points (an upper bound).
void innermost_trips(const Statement& statement, const isl::union_map& schedule, InnerLoopGain& gain) {
  const std::vector<isl::map> maps = maps_of(schedule.intersect_domain(isl::union_set(statement.domain)));
  if (maps.size() != 1) return;
  const isl::set points = maps[0].range();
  const int d = innermost_loop_dimension(points);
  if (d < 0) return;
  isl_pw_aff* extent = isl_pw_aff_sub(isl_set_dim_max(points.copy(), d), isl_set_dim_min(points.copy(), d));
  extent = isl_pw_aff_add_constant_val(extent, isl_val_one(isl_pw_aff_get_ctx(extent)));
  if (isl_pw_aff_is_cst(extent) == isl_bool_true) {
    isl_val* max = isl_pw_aff_max_val(isl_pw_aff_copy(extent));
    if (max && isl_val_is_int(max)) gain.trips = isl_val_get_num_si(max);
    isl_val_free(max);
  }
  gain.trips_c = pw_aff_bound_to_c(extent);
  gain.equal_runs = runs_of_equal_length(points, d);
}

}  // namespace

const char* inner_loop_kind_name(InnerLoopKind kind) {
  switch (kind) {
    case InnerLoopKind::kCarried: return "carried";
    case InnerLoopKind::kAccumulated: return "accumulated in a vector";
    case InnerLoopKind::kIndependentStrided: return "independent, strided";
    case InnerLoopKind::kIndependentUnit: return "independent, unit stride";
    case InnerLoopKind::kMarkedSimd: return "omp simd";
  }
  return "?";
}

InnerLoopKind inner_loop_kind(const Statement& statement, const isl::union_map& schedule, const isl::union_map& validity) {
  const isl::union_set domain(statement.domain);
  const std::vector<isl::map> maps = maps_of(schedule.intersect_domain(domain));
  if (maps.size() != 1) return InnerLoopKind::kIndependentUnit;
  const isl::map& at = maps[0];  // instance -> schedule point
  const int d = innermost_loop_dimension(at.range());
  if (d < 0) return InnerLoopKind::kIndependentUnit;
  for (const isl::map& dep : maps_of(validity.intersect_domain(domain).intersect_range(domain)))
    if (moves_along(equal_before(dep.apply_domain(at).apply_range(at), d), d)) return InnerLoopKind::kCarried;
  const isl::map steps = at.apply_range(next_iteration(at.range().space(), d)).apply_range(at.reverse());
  for (const Access& a : statement.accesses)
    if (!unit_or_invariant(steps, a.relation)) return InnerLoopKind::kIndependentStrided;
  return InnerLoopKind::kIndependentUnit;
}

std::string InnerLoopGain::describe() const {
  return statement + " (" + inner_loop_kind_name(before) + " -> " + inner_loop_kind_name(after) + ")";
}

std::vector<InnerLoopGain> inner_loop_gains(const Scop& scop, const isl::union_map& validity, const isl::schedule& schedule) {
  int depth = 0;
  for (const Statement& s : scop.statements) depth = std::max(depth, static_cast<int>(isl_set_dim(s.domain.get(), isl_dim_set)));
  const isl::union_map source = scop.schedule.get_map(), chosen = schedule.get_map();
  const MarkedStatements marked = marked_statements(schedule);
  std::vector<InnerLoopGain> gains;
  for (const Statement& s : scop.statements) {
    if (static_cast<int>(isl_set_dim(s.domain.get(), isl_dim_set)) != depth) continue;
    InnerLoopGain g;
    g.statement = s.name;
    g.before = inner_loop_kind(s, source, validity);
    g.after = inner_loop_kind(s, chosen, validity);
    if (g.after == InnerLoopKind::kIndependentUnit && marked.simd.count(s.name)) {
      g.after = InnerLoopKind::kMarkedSimd;
      innermost_trips(s, chosen, g);
    }
    if (g.after == InnerLoopKind::kCarried && marked.accumulated.count(s.name)) {
      g.after = InnerLoopKind::kAccumulated;
      innermost_trips(s, chosen, g);
    }
    if (g.after > g.before) gains.push_back(g);
  }
  return gains;
}

}  // namespace pz::poly
