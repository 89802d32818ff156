#include "polyhedral/analysis/dependences.h"

namespace pz::poly {

isl::union_map Dependences::validity() const { return raw.unite(war).unite(waw); }

// Dependences are computed one read access at a time and never coalesced: a stencil's
// reads then give one simple uniform relation each (a[i-1] → distance 1), while the union
// of all reads of a statement coalesces into a polyhedron with many facets, on which isl's
// scheduler (Farkas' lemma per dependence) is orders of magnitude slower (heat-3d: minutes
// instead of milliseconds). Pluto and PPCG keep per-reference dependences for the same reason.
Dependences compute_dependences(const Scop& scop) {
  Dependences d;
  const isl::union_map writes = scop.writes();
  const isl::schedule& order = scop.schedule;
  d.raw = isl::union_map::empty(scop.ctx);
  d.war = isl::union_map::empty(scop.ctx);
  d.live_in = isl::union_map::empty(scop.ctx);

  // Writes as sinks: the last earlier write of the element (waw).
  d.waw = isl::union_access_info(writes).set_must_source(writes).set_schedule(order).compute_flow().must_dependence();

  for (const auto& s : scop.statements)
    for (const auto& a : s.accesses) {
      if (a.write) continue;
      isl::union_map read(a.relation);
      isl::union_flow flow = isl::union_access_info(read).set_must_source(writes).set_schedule(order).compute_flow();
      d.raw = d.raw.unite(flow.must_dependence());
      d.live_in = d.live_in.unite(flow.must_no_source());
      // The next write after this read, unless another write comes first (then the read →
      // write order follows from war + waw transitively).
      isl::union_flow next =
          isl::union_access_info(writes).set_must_source(writes).set_may_source(read).set_schedule(order).compute_flow();
      d.war = d.war.unite(next.may_dependence().subtract(next.must_dependence()));
    }
  // A statement that reads and writes the same element (x += ...) is ordered by waw already.
  d.war = d.war.subtract(d.waw);
  d.live_in = d.live_in.coalesce();
  // Every statement writes exactly one element per instance (its left-hand side), so an
  // instance that is the source of a waw dependence writes a value nobody sees after the scop.
  d.live_out = writes.subtract_domain(d.waw.domain()).coalesce();
  return d;
}

}  // namespace pz::poly
