#include "polyhedral/transform/register_tiling.h"

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/schedule_node.h>
#include <isl/val.h>

#include <cstdint>
#include <string>

#include "polyhedral/analysis/legality.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/transform/loop_order.h"
#include "polyhedral/transform/parallel_marks.h"

namespace pz::poly {

namespace {

bool is_band(const isl::schedule_node& n) { return isl_schedule_node_get_type(n.get()) == isl_schedule_node_band; }

// The points of `band` (a band around an unroll-and-jam strip, with the bands above it:
// isolate's space [[outer] -> [band]]) where the strip below has all `factor` iterations,
// for every statement, in `whole`; every point the strip runs at in `points`. isl shifts a
// strip to start at 0 (tile_shift_point_loops), so a whole strip has the values
// 0 .. factor - 1. False where that cannot be worked out.
bool whole_strips(isl_schedule_node* band, isl_schedule_node* strip, int member, int factor, isl_set*& whole,
                  isl_set*& points) {
  isl_ctx* ctx = isl_schedule_node_get_ctx(band);
  if (!isl_options_get_tile_shift_point_loops(ctx) || isl_schedule_node_band_n_member(strip) <= member) return false;
  isl_union_set* instances = isl_schedule_node_get_domain(strip);
  isl_union_map* outer = isl_union_map_range_product(isl_schedule_node_get_prefix_schedule_union_map(band),
                                                     isl_schedule_node_band_get_partial_schedule_union_map(band));
  outer = isl_union_map_intersect_domain(outer, isl_union_set_copy(instances));
  isl_multi_union_pw_aff* members = isl_schedule_node_band_get_partial_schedule(strip);
  isl_union_map* inner = isl_union_map_from_union_pw_aff(isl_multi_union_pw_aff_get_union_pw_aff(members, member));
  isl_multi_union_pw_aff_free(members);
  inner = isl_union_map_intersect_domain(inner, instances);
  // point of the band -> the strip's values there
  isl_union_map* values = isl_union_map_apply_range(isl_union_map_reverse(outer), inner);
  if (isl_union_map_n_map(values) != 1) {
    isl_union_map_free(values);
    return false;
  }
  isl_map* present = isl_map_from_union_map(values);
  points = isl_map_domain(isl_map_copy(present));
  isl_map* wanted = isl_map_intersect_domain(isl_map_universe(isl_map_get_space(present)), isl_set_copy(points));
  wanted = isl_map_lower_bound_si(wanted, isl_dim_out, 0, 0);
  wanted = isl_map_upper_bound_si(wanted, isl_dim_out, 0, factor - 1);
  isl_set* partial = isl_map_domain(isl_map_subtract(wanted, present));
  whole = isl_set_coalesce(isl_set_subtract(isl_set_copy(points), partial));
  if (whole) return true;
  points = isl_set_free(points);
  return false;
}

// Whether which of `points` are in `whole` depends on the band's own members, not only on
// the loops outside it: only then can the band's loops run the whole strips apart.
bool decided_by_band(isl_set* whole, isl_set* points) {
  isl_map* split = isl_set_unwrap(isl_set_copy(whole));
  isl_set* band_space = isl_set_universe(isl_space_range(isl_map_get_space(split)));
  isl_set* outside = isl_map_wrap(isl_map_from_domain_and_range(isl_map_domain(split), band_space));
  isl_set* by_outside = isl_set_intersect(outside, isl_set_copy(points));
  const isl_bool same = isl_set_is_equal(by_outside, whole);
  isl_set_free(by_outside);
  return same == isl_bool_false;
}

// Whether a parallel or simd mark sits right above `band`: isolating the band's points
// would print its loops twice, and codegen puts a mark's pragma on one loop only.
bool under_loop_mark(const isl::schedule_node& band) {
  for (isl::schedule_node at = band; at.has_parent();) {
    at = at.parent();
    if (isl_schedule_node_get_type(at.get()) != isl_schedule_node_mark) return false;
    isl_id* id = isl_schedule_node_mark_get_id(at.get());
    const std::string name = isl_id_get_name(id);
    isl_id_free(id);
    if (name.rfind(kParallelMark, 0) == 0 || name == kSimdMark) return true;
  }
  return false;
}

// Sets the isolate option of the innermost band above `mark` (an unroll-and-jam mark of
// `member` strip-mined by `factor`) whose loops can run the whole strips apart: isl's AST
// builder then prints those strips' copies without guards (PPCG and Polly isolate full
// tiles the same way), instead of guards inside the vectorised loop that if-convert every
// copy. Returns the mark in the new tree.
isl::schedule_node isolate_at_mark(isl::schedule_node mark, int member, int factor) {
  const isl::schedule_node strip = mark.child(0);
  if (!is_band(strip)) return mark;
  isl::schedule_node at = mark;
  int up = 0;
  while (at.has_parent()) {
    at = at.parent();
    ++up;
    const isl_schedule_node_type type = isl_schedule_node_get_type(at.get());
    if (type == isl_schedule_node_mark) continue;
    if (type != isl_schedule_node_band) break;
    isl_set* whole = nullptr;
    isl_set* points = nullptr;
    if (!whole_strips(at.get(), strip.get(), member, factor, whole, points)) break;
    const bool empty = isl_set_is_empty(whole) != isl_bool_false;
    const bool here = !empty && decided_by_band(whole, points);
    isl_set_free(points);
    if (!here) {
      isl_set_free(whole);
      if (empty) break;
      continue;
    }
    if (under_loop_mark(at)) {  // the mark's pragma would be lost on the split loops
      isl_set_free(whole);
      break;
    }
    isl_union_set* option = isl_union_set_from_set(isl_set_set_tuple_name(whole, "isolate"));
    at = isl::manage(isl_schedule_node_band_set_ast_build_options(at.release(), option));
    for (int k = 0; k < up; ++k) at = at.child(0);
    return at;
  }
  return mark;
}

// The strip's member and factor, carried by the mark's id (none for a factor too large to
// carry: its strips are then not isolated).
constexpr std::intptr_t kNoteFactors = 1 << 16;
void* strip_note(int member, int factor) {
  if (factor <= 0 || factor >= kNoteFactors) return nullptr;
  return reinterpret_cast<void*>(static_cast<std::intptr_t>(member) * kNoteFactors + factor);
}

isl::schedule_node unroll_and_jam(isl::schedule_node band, const Scop& scop, int factor, const isl::union_map& deps,
                                  bool untiled, std::vector<std::string>& log) {
  const int n = static_cast<int>(isl_schedule_node_band_n_member(band.get()));
  if (n < 2 || isl_schedule_node_band_get_permutable(band.get()) != isl_bool_true) return band;
  auto accesses = accesses_below(band, scop);
  // Only worth it when the innermost loop is the stride-1 one that will be vectorised.
  bool unit_inner = false;
  for (const auto& a : accesses) unit_inner = unit_inner || access_stride(band, n - 1, a.relation) == AccessStride::kUnit;
  if (!unit_inner) return band;
  // A reduction innermost (syrk's k) is not vectorised, and the guards of a triangular
  // strip then sit in its body: measured 2x slower than without the strip.
  if (!band_member_is_parallel(band, n - 1, deps)) return band;
  int best = -1, best_score = 0;
  for (int m = 0; m + 1 < n; ++m) {
    if (band_member_is_degenerate(band, m)) continue;
    int score = 0;
    // Scalars are invariant along every member: they say nothing about which to unroll.
    for (const auto& a : accesses) score += a.rank > 0 && access_stride(band, m, a.relation) == AccessStride::kInvariant;
    if (score > best_score) {
      best = m;
      best_score = score;
    }
  }
  if (best < 0) return band;
  // Untiled, a triangular member (symm's i > k) has a partial strip in every run of its
  // loop, and the copies' guards sit inside the vectorised loop: measured slower than no
  // strip at all. In tiles only the tiles the diagonal crosses have them.
  if (untiled && !band_member_is_rectangular(band, best)) {
    log.push_back("unroll-and-jam: member " + std::to_string(best) + " of a band of " + std::to_string(n) +
                  " left alone: its bounds depend on the other loops");
    return band;
  }
  isl_ctx* ctx = isl_schedule_node_get_ctx(band.get());
  isl_multi_val* sizes = isl_multi_val_zero(isl_schedule_node_band_get_space(band.get()));
  for (int i = 0; i < n; ++i) sizes = isl_multi_val_set_val(sizes, i, isl_val_int_from_si(ctx, i == best ? factor : 1));
  isl_schedule_node* node = isl_schedule_node_band_tile(band.release(), sizes);
  node = isl_schedule_node_child(node, 0);
  for (int i = 0; i < n; ++i) node = isl_schedule_node_band_member_set_ast_loop_type(node, i, isl_ast_loop_unroll);
  node = isl_schedule_node_insert_mark(node, isl_id_alloc(ctx, kUnrollJamMark, strip_note(best, factor)));
  node = isl_schedule_node_parent(node);
  std::string line = "unroll-and-jam: member ";
  line += std::to_string(best);
  line += " of a band of ";
  line += std::to_string(n);
  line += " unrolled by ";
  line += std::to_string(factor);
  line += " inside the stride-1 loop (";
  line += std::to_string(best_score);
  line += " invariant accesses)";
  log.push_back(line);
  return isl::manage(node);
}

// Applies to bands with no band below them; returns whether `node`'s subtree has a band.
isl::schedule_node walk(isl::schedule_node node, const Scop& scop, int factor, const isl::union_map& deps, bool untiled,
                        std::vector<std::string>& log, bool& band_below) {
  bool any = false;
  int k = static_cast<int>(isl_schedule_node_n_children(node.get()));
  for (int i = 0; i < k; ++i) {
    bool below = false;
    node = walk(node.child(i), scop, factor, deps, untiled, log, below).parent();
    any = any || below;
  }
  band_below = any || is_band(node);
  if (!is_band(node) || any) return node;
  return unroll_and_jam(node, scop, factor, deps, untiled, log);
}

// Depth-first: the isolate options of every unroll-and-jam mark's band.
isl::schedule_node isolate_walk(isl::schedule_node node) {
  int k = static_cast<int>(isl_schedule_node_n_children(node.get()));
  for (int i = 0; i < k; ++i) node = isolate_walk(node.child(i)).parent();
  if (isl_schedule_node_get_type(node.get()) != isl_schedule_node_mark) return node;
  isl_id* id = isl_schedule_node_mark_get_id(node.get());
  const bool jam = std::string(isl_id_get_name(id)) == kUnrollJamMark;
  const auto note = reinterpret_cast<std::intptr_t>(isl_id_get_user(id));
  isl_id_free(id);
  if (!jam || note == 0) return node;
  return isolate_at_mark(node, static_cast<int>(note / kNoteFactors), static_cast<int>(note % kNoteFactors));
}

}  // namespace

isl::schedule isolate_whole_strips(const isl::schedule& schedule) { return isolate_walk(schedule.get_root()).get_schedule(); }

isl::schedule register_tile(const isl::schedule& schedule, const Scop& scop, int factor, const isl::union_map& deps,
                            bool untiled, std::vector<std::string>& log) {
  if (factor < 2) return schedule;
  bool below = false;
  return walk(schedule.get_root(), scop, factor, deps, untiled, log, below).get_schedule();
}

}  // namespace pz::poly
