// Loop order inside permutable bands: the member along which most accesses are stride-1
// (consecutive iterations touch consecutive elements of the last dimension) goes innermost,
// members along which accesses are invariant come next, the rest keep their order outside.
// Any order of a permutable band's members is legal (all dependence distances are
// non-negative in every member); the pass still re-checks the result.
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

#include "polyhedral/scop.h"

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
};
std::vector<BandAccess> accesses_below(const isl::schedule_node& band, const Scop& scop);

// Whether some array element is used again along one of the band's loops (an access
// invariant along a member): the reuse that tiling turns into cache hits.
bool has_temporal_reuse(const isl::schedule_node& band, const Scop& scop);

isl::schedule order_loops_for_locality(const isl::schedule& schedule, const Scop& scop, std::vector<std::string>& log);

}  // namespace pz::poly
