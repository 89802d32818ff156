// Legality against dependences: every pass calls these on its result, so an illegal
// transformation is caught where it is made rather than as wrong numbers later.
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <string>

namespace pz::poly {

// nullopt when every dependence source runs strictly before its sink under `schedule`;
// otherwise isl's text of the violated dependences.
std::optional<std::string> find_violation(const isl::schedule& schedule, const isl::union_map& deps);

// True when member `pos` of `band` carries no dependence among the instances below it once
// the loops above (outer bands and members 0..pos-1) are fixed: the loop can run in parallel.
bool band_member_is_parallel(const isl::schedule_node& band, int pos, const isl::union_map& deps);

// True when `relation` (instance -> instance) relates two instances below `band` that share
// the loops above member `pos` (any two iterations, or one, of one run of that loop).
bool relates_within_one_loop_run(const isl::schedule_node& band, int pos, const isl::union_map& relation);

// True when member `pos` of `band` takes a single value once the loops above it are fixed:
// isl generates no loop for it, so marking it would mark nothing.
bool band_member_is_degenerate(const isl::schedule_node& band, int pos);

// True when the range of member `pos` of `band`, once the loops above the band are fixed,
// depends on none of the band's other members: the band's points are the product of that
// range and of their other coordinates. A member that is not (a triangle's j < i) has
// partial strips wherever the band's other loops move its bounds.
bool band_member_is_rectangular(const isl::schedule_node& band, int pos);

}  // namespace pz::poly
