// Scalar forwarding: a scalar that carries one array element's new value through a loop
// body is replaced by that element, as a programmer would write it without the scalar.
//
//   w = A[i][j];                              (nothing: A[i][j] = A[i][j])
//   for (k = 0; k < j; k++)           →       for (k = 0; k < j; k++)
//     w -= A[i][k] * A[k][j];                   A[i][j] -= A[i][k] * A[k][j];
//   A[i][j] = w / A[j][j];                    A[i][j] = A[i][j] / A[j][j];
//
// A scalar is one memory cell: every instance of the three statements depends on every
// other through it, so the scheduler can neither interchange nor tile nor parallelise the
// loops around them (PolyBench's ludcmp is lu with such a scalar). An element per (i, j)
// has only the dependences of the computation. This is the reverse of scalar replacement
// and, for this pattern, a cheaper form of scalar expansion (Feautrier, "Array expansion",
// ICS 1988): the home element is the array the value ends in, so no memory is added.
//
// A group, in one block of the loop tree, is
//   s = E;  then siblings whose only statements are `s += R` or `s -= R`;  then  H = F(s);
// with s not in E, R or H, and it is rewritten when
//   - s is dead after the region (the frontend's liveness: a local of the enclosing
//     function that the function mentions only in its declaration and the region),
//   - s has H's element type (an int would have truncated what H keeps whole),
//   - every mention of s in the region is in such a group, and
//   - no update's R and no other operand of F reads H's element of the same iteration
//     (isl, on the scop as lowered): then H holds no value anyone reads between s = E and
//     H = F, and the rewritten statements compute the same values in the same order.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "polyhedral/ir/loop_tree.h"
#include "polyhedral/ir/scop.h"

namespace pz::poly {

// `root` with the groups of the scalars in `dead_scalars` forwarded into their home
// elements; nullptr when none is. `scop` is `root` lowered (for the isl checks). One line
// per scalar forwarded or refused goes to `log`, the names forwarded to `forwarded`.
std::unique_ptr<LoopNode> forward_scalars(const LoopNode& root, const Scop& scop, const std::set<std::string>& dead_scalars,
                                          std::vector<std::string>& log, std::vector<std::string>& forwarded);

}  // namespace pz::poly
