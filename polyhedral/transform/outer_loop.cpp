#include "polyhedral/transform/outer_loop.h"

#include <isl/aff.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/set.h>

#include "polyhedral/transform/parallel_marks.h"

namespace pz::poly {

namespace {

// The node below the domain.
isl::schedule_node first_below_root(const Scop& scop) {
  isl::schedule_node node = scop.schedule.get_root();
  return node.has_children() ? node.child(0) : node;
}

// S[i1, ...] -> S[iterator, i1, ...], with the iterator a parameter: `s`'s body instances
// in the scop's.
isl::multi_aff into_scop(const Scop& scop, const Statement& s, const std::string& iterator) {
  std::string params, inner, outer = iterator;
  for (const std::string& p : scop.params) params += p + ", ";
  for (std::size_t d = 1; d < s.iterators.size(); ++d) {
    inner += (inner.empty() ? "" : ", ") + s.iterators[d];
    outer += ", " + s.iterators[d];
  }
  return isl::multi_aff(scop.ctx, "[" + params + iterator + "] -> { " + s.name + "[" + inner + "] -> " + s.name + "[" + outer + "] }");
}

}  // namespace

std::vector<std::vector<std::string>> top_level_parts(const Scop& scop) {
  std::vector<std::vector<std::string>> parts;
  const isl::schedule_node top = first_below_root(scop);
  if (isl_schedule_node_get_type(top.get()) != isl_schedule_node_sequence) {
    std::vector<std::string> all;
    for (const Statement& s : scop.statements) all.push_back(s.name);
    return {all};
  }
  for (int i = 0; i < static_cast<int>(isl_schedule_node_n_children(top.get())); ++i) {
    const isl::schedule_node child = top.child(i);
    const isl::union_set filter = isl::manage(isl_schedule_node_filter_get_filter(child.get()));
    std::vector<std::string> part;
    for (const Statement& s : scop.statements)
      if (!filter.extract_set(s.domain.get_space()).is_empty()) part.push_back(s.name);
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::optional<PeeledLoop> peel_outer_loop(const Scop& scop) {
  if (scop.statements.empty()) return std::nullopt;
  isl::schedule_node band = first_below_root(scop);
  // A restricted scop (restrict_scop) keeps the sequence with its now empty filters.
  const isl::union_set domain = scop.domain();
  while (isl_schedule_node_get_type(band.get()) == isl_schedule_node_sequence) {
    std::optional<isl::schedule_node> only;
    for (int i = 0; i < static_cast<int>(isl_schedule_node_n_children(band.get())); ++i) {
      const isl::schedule_node child = band.child(i);
      if (isl::manage(isl_schedule_node_filter_get_filter(child.get())).intersect(domain).is_empty()) continue;
      if (only) return std::nullopt;
      only = child;
    }
    if (!only || !only->has_children()) return std::nullopt;
    band = only->child(0);
  }
  if (isl_schedule_node_get_type(band.get()) != isl_schedule_node_band ||
      isl_schedule_node_band_n_member(band.get()) != 1)
    return std::nullopt;
  const std::string iterator = scop.statements.front().iterators.empty() ? "" : scop.statements.front().iterators[0];
  isl::union_map expected = isl::union_map::empty(scop.ctx);
  isl::set values;
  for (const Statement& s : scop.statements) {
    if (s.iterators.empty() || s.iterators[0] != iterator) return std::nullopt;
    const int n = static_cast<int>(s.iterators.size());
    isl_map* first = isl_map_from_domain(s.domain.copy());
    first = isl_map_add_dims(first, isl_dim_out, 1);
    first = isl_map_equate(first, isl_dim_in, 0, isl_dim_out, 0);
    expected = expected.unite(isl::union_map(isl::manage(first)));
    isl_set* v = isl_set_project_out(s.domain.copy(), isl_dim_set, 1, n - 1);
    isl::set value = isl::manage(isl_set_reset_tuple_id(v));
    values = values.is_null() ? value : values.unite(value);
  }
  const isl::union_map partial = isl::manage(isl_schedule_node_band_get_partial_schedule_union_map(band.get()));
  if (!partial.intersect_domain(domain).is_equal(expected)) return std::nullopt;
  values = values.coalesce();
  isl_pw_aff* lo = isl_set_dim_min(values.copy(), 0);
  isl_pw_aff* hi = isl_set_dim_max(values.copy(), 0);
  const bool single = isl_pw_aff_n_piece(lo) == 1 && isl_pw_aff_n_piece(hi) == 1;
  PeeledLoop peeled;
  peeled.iterator = iterator;
  peeled.lower = single ? pw_aff_bound_to_c(lo) : (isl_pw_aff_free(lo), "");
  peeled.upper = single ? pw_aff_bound_to_c(hi) : (isl_pw_aff_free(hi), "");
  if (peeled.lower.empty() || peeled.upper.empty()) return std::nullopt;
  // The body: every object pulled back from S[iterator, i...] to S[i...] with the iterator
  // a parameter.
  Scop& body = peeled.body;
  body = scop;
  body.params.push_back(iterator);
  body.outer_iterators.clear();
  isl::union_pw_multi_aff pullback;
  for (Statement& s : body.statements) {
    const isl::multi_aff f = into_scop(scop, s, iterator);
    s.domain = isl::manage(isl_set_preimage_multi_aff(s.domain.release(), f.copy()));
    for (Access& a : s.accesses) a.relation = isl::manage(isl_map_preimage_domain_multi_aff(a.relation.release(), f.copy()));
    s.iterators.erase(s.iterators.begin());
    const isl::union_pw_multi_aff piece{isl::pw_multi_aff(f)};
    pullback = pullback.is_null() ? piece : pullback.union_add(piece);
  }
  body.schedule = isl::manage(isl_schedule_pullback_union_pw_multi_aff(scop.schedule.copy(), pullback.release()));
  return peeled;
}

}  // namespace pz::poly
