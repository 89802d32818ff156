#include "polyhedral/transform/recurrence_strips.h"

#include <isl/aff.h>
#include <isl/schedule_node.h>
#include <isl/union_map.h>
#include <isl/val.h>

#include <algorithm>
#include <optional>

#include "polyhedral/analysis/legality.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/transform/loop_order.h"
#include "polyhedral/transform/reductions.h"

namespace pz::poly {

namespace {

bool is_band(const isl::schedule_node& n) { return isl_schedule_node_get_type(n.get()) == isl_schedule_node_band; }

std::vector<const Statement*> statements_below(const isl::schedule_node& band, const Scop& scop) {
  isl::union_set dom = node_domain(band);
  std::vector<const Statement*> out;
  for (const auto& s : scop.statements)
    if (!isl::union_set(s.domain).intersect(dom).is_empty()) out.push_back(&s);
  return out;
}

// The number of values member `pos` takes below `band` when that is a constant; 0 when not.
long long member_extent(const isl::schedule_node& band, int pos) {
  isl_multi_union_pw_aff* part = isl_schedule_node_band_get_partial_schedule(band.get());
  isl::union_map member = isl::manage(isl_union_map_from_union_pw_aff(isl_multi_union_pw_aff_get_union_pw_aff(part, pos)));
  isl_multi_union_pw_aff_free(part);
  isl::union_set values = member.intersect_domain(node_domain(band)).range();
  auto sets = values.get_set_list();
  if (sets.size() != 1) return 0;
  auto extents = constant_extents(sets.at(0));
  return extents.size() == 1 ? extents[0] : 0;
}

// The chains' width: kRecurrenceStripBytes of the narrowest element an access below touches.
int strip_width(const std::vector<const Statement*>& statements, const Scop& scop) {
  int bytes = 8;
  for (const Statement* s : statements)
    for (const auto& a : s->accesses)
      if (const Array* arr = scop.array(a.array); arr && arr->rank > 0) bytes = std::min(bytes, arr->element_bytes());
  return kRecurrenceStripBytes / std::max(bytes, 1);
}

// The parallel member to strip, with the most stride-1 accesses along it; nullopt when none.
std::optional<int> independent_member(const isl::schedule_node& band, const Scop& scop, const isl::union_map& deps) {
  const int n = static_cast<int>(isl_schedule_node_band_n_member(band.get()));
  const auto accesses = accesses_below(band, scop);
  std::optional<int> best;
  int best_units = -1;
  for (int m = n - 2; m >= 0; --m) {
    std::vector<int> perm;
    for (int k = 0; k < n; ++k)
      if (k != m) perm.push_back(k);
    perm.push_back(m);
    isl::schedule_node moved = permute_band(band, perm);
    if (band_member_is_degenerate(moved, n - 1) || !band_member_is_parallel(moved, n - 1, deps)) continue;
    int units = 0;
    for (const auto& a : accesses) units += access_stride(band, m, a.relation) == AccessStride::kUnit;
    if (units > best_units) {
      best = m;
      best_units = units;
    }
  }
  return best;
}

// Above `band` (member `pos` already innermost): a one-member band floor(member / width),
// parallel like the member it strips.
isl::schedule_node insert_strip(isl::schedule_node band, int pos, int width) {
  isl_ctx* ctx = isl_schedule_node_get_ctx(band.get());
  isl_multi_union_pw_aff* part = isl_schedule_node_band_get_partial_schedule(band.get());
  isl_union_pw_aff* member = isl_multi_union_pw_aff_get_union_pw_aff(part, pos);
  isl_multi_union_pw_aff_free(part);
  isl_multi_union_pw_aff* strip = isl_multi_union_pw_aff_from_union_pw_aff(member);
  strip = isl_multi_union_pw_aff_scale_down_val(strip, isl_val_int_from_si(ctx, width));
  strip = isl_multi_union_pw_aff_floor(strip);
  isl_schedule_node* node = isl_schedule_node_insert_partial_schedule(band.release(), strip);
  node = isl_schedule_node_band_set_permutable(node, 1);
  node = isl_schedule_node_band_member_set_coincident(node, 0, 1);
  return isl::manage(node);
}

// The flow dependences of each statement on itself: the chains a recurrence is made of.
isl::union_map self_flow(const isl::union_map& raw) {
  isl::union_map out = isl::manage(isl_union_map_empty(isl_union_map_get_space(raw.get())));
  for (const isl::map& m : maps_of(raw)) {
    isl::space sp = m.space();
    if (isl_space_tuple_is_equal(sp.get(), isl_dim_in, sp.get(), isl_dim_out) == isl_bool_true) out = out.unite(m);
  }
  return out;
}

isl::schedule_node strip_band(isl::schedule_node band, const Scop& scop, const isl::union_map& chains,
                              const isl::union_map& deps, std::vector<std::string>& log) {
  const int n = static_cast<int>(isl_schedule_node_band_n_member(band.get()));
  if (n < 2 || isl_schedule_node_band_get_permutable(band.get()) != isl_bool_true) return band;
  if (band_member_is_degenerate(band, n - 1) || band_member_is_parallel(band, n - 1, chains)) return band;
  const auto statements = statements_below(band, scop);
  for (const Statement* s : statements)
    if (statement_reduction(*s)) return band;  // vectorised with reassociated accumulators
  if (!accumulating_statements(band, n - 1, scop).empty()) return band;
  const auto member = independent_member(band, scop, deps);
  if (!member) return band;
  const long long extent = member_extent(band, *member);
  const std::string what = "recurrence strips: band of " + std::to_string(n) + " members, member " +
                           std::to_string(*member);
  if (extent > 0 && extent < 8) {
    log.push_back(what + " left alone (" + std::to_string(extent) + " independent chains: less than a vector)");
    return band;
  }
  const int width = static_cast<int>(std::min<long long>(strip_width(statements, scop), extent > 0 ? extent : 1LL << 40));
  std::vector<int> perm;
  for (int k = 0; k < n; ++k)
    if (k != *member) perm.push_back(k);
  perm.push_back(*member);
  log.push_back(what + " strip-mined by " + std::to_string(width) + " and moved innermost (member " +
                std::to_string(n - 1) + " carries a recurrence; " + std::to_string(width) +
                " independent chains per vector step)");
  return insert_strip(permute_band(band, perm), n - 1, width);
}

}  // namespace

isl::schedule strip_recurrences(const isl::schedule& schedule, const Scop& scop, const Dependences& deps,
                                const isl::union_map& validity, std::vector<std::string>& log) {
  const isl::union_map chains = self_flow(deps.raw);
  isl::schedule_node root = schedule.get_root();
  root = root.map_descendant_bottom_up([&](isl::schedule_node node) -> isl::schedule_node {
    if (!is_band(node)) return node;
    return strip_band(node, scop, chains, validity, log);
  });
  return root.get_schedule();
}

}  // namespace pz::poly
