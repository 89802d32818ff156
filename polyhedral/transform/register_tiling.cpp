#include "polyhedral/transform/register_tiling.h"

#include <isl/id.h>
#include <isl/schedule_node.h>
#include <isl/val.h>

#include "polyhedral/analysis/legality.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/transform/loop_order.h"

namespace pz::poly {

namespace {

bool is_band(const isl::schedule_node& n) { return isl_schedule_node_get_type(n.get()) == isl_schedule_node_band; }

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
  node = isl_schedule_node_insert_mark(node, isl_id_alloc(ctx, kUnrollJamMark, nullptr));
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

}  // namespace

isl::schedule register_tile(const isl::schedule& schedule, const Scop& scop, int factor, const isl::union_map& deps,
                            bool untiled, std::vector<std::string>& log) {
  if (factor < 2) return schedule;
  bool below = false;
  return walk(schedule.get_root(), scop, factor, deps, untiled, log, below).get_schedule();
}

}  // namespace pz::poly
