// The number of integer points of a set, at a bounded cost.
//
// isl_set_count_val enumerates: its cost grows with the number of points of the set's
// projection on all but its last dimension, so an outer loop of 2^31 iterations would take
// hours. Here
//   - a box (one basic set, each constraint on a single dimension, no existentially
//     quantified variables) is counted in closed form from its bounds;
//   - any other bounded set is enumerated only when its projection on the outer dimensions
//     (counted the same way) holds at most kEnumerationLimit points, and then under an isl
//     operation budget (kEnumerationOperations, or the enclosing budget when smaller);
//   - otherwise, or when that budget runs out, the count is the volume of the set's
//     bounding box: an upper bound, marked inexact.
// Products saturate at LLONG_MAX instead of overflowing.
#pragma once

#include <isl/cpp.h>

#include <optional>

namespace pz::poly {

inline constexpr long long kEnumerationLimit = 1LL << 22;            // outer points enumerated
inline constexpr unsigned long kEnumerationOperations = 1UL << 24;  // isl operations per count

struct PointCount {
  long long points = 0;  // exact, or an upper bound (the bounding box's volume)
  bool exact = false;
};

// nullopt for a set with a free parameter (one involved and not fixed by the set), an
// unbounded set, or an isl error. Fixed parameters are projected out first.
std::optional<PointCount> count_points_bounded(const isl::set& set);

// a × b and a + b for non-negative a and b, LLONG_MAX when the result does not fit.
long long saturating_product(long long a, long long b);
long long saturating_sum(long long a, long long b);

}  // namespace pz::poly
