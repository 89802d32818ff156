// Loop order inside permutable bands: the member along which most accesses are stride-1
// (consecutive iterations touch consecutive elements of the last dimension) goes innermost,
// members along which accesses are invariant come next, the rest keep their order outside;
// of members that score the same, the one with more stride-1 writes goes innermost.
// Any order of a permutable band's members is legal (all dependence distances are
// non-negative in every member); the pass still re-checks the result.
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

#include "polyhedral/ir/scop.h"

namespace pz::poly {

// Rebuilds `band` with members in the order `perm` (new member i = old member perm[i]),
// keeping the permutable and coincident flags. Only legal on permutable bands.
isl::schedule_node permute_band(isl::schedule_node band, const std::vector<int>& perm);

// How an access moves when band member `member` advances by one, the others fixed.
enum class AccessStride { kInvariant, kUnit, kOther };
AccessStride access_stride(const isl::schedule_node& band, int member, const isl::map& access);

// Applies the order to every permutable band with two or more members; `log` gets one line
// per band changed.
// The accesses of the statements below `band`, restricted to their domains.
struct BandAccess {
  isl::map relation;
  int rank = 0;  // of the array; 0 for a scalar
  bool write = false;
};
std::vector<BandAccess> accesses_below(const isl::schedule_node& band, const Scop& scop);

// Whether some array element is used again along one of the band's loops (an access
// invariant along a member): the reuse that tiling turns into cache hits.
bool has_temporal_reuse(const isl::schedule_node& band, const Scop& scop);

// The arrays accessed by jumping a row at each step of the band's innermost loop while an
// outer member walks their last dimension by unit steps (a transpose, a column sweep): each
// cache line (and page) such an access touches serves one element per sweep of the inner
// loop, and is evicted before the next sweep comes back for its neighbour once a sweep spans
// more lines than L1 holds. Tiles bring the neighbour back while the line is still cached:
// the spatial reuse of Wolf and Lam (PLDI 1991) carried by an outer loop. Accesses to one
// array at neighbouring rows (a stencil's v[i-1][j], v[i][j], v[i+1][j]) count once.
int crossed_arrays(const isl::schedule_node& band, const Scop& scop);

// The most iterations the band's innermost member makes with the loops above it fixed, or
// -1 when that is not bounded by a constant (a parameter's extent).
long long innermost_trip_count(const isl::schedule_node& band);

isl::schedule order_loops_for_locality(const isl::schedule& schedule, const Scop& scop, std::vector<std::string>& log);

}  // namespace pz::poly
