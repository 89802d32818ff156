// A scop's top-level parts and the loop around a part, peeled off: the part's body with the
// loop's iterator as a parameter. A transformation that works on three-deep nests (the packed
// contractions of matmul_packing.h) then applies under one more loop, the batch of a batched
// contraction (PolyBench's doitgen: for r, a product of the r-th slice of A and C4), as
// libraries run a batched GEMM as GEMMs in a loop.
//
// Running the loop as written, in order, around code that is legal for each value of its
// iterator is legal: every dependence between iterations keeps its direction, and the body's
// dependences for one value are those of the peeled scop, where the iterator is fixed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "polyhedral/ir/scop.h"

namespace pz::poly {

// The statements of each child of the source schedule's top-level sequence, in order; one
// part of all statements when the schedule has no such sequence.
std::vector<std::vector<std::string>> top_level_parts(const Scop& scop);

struct PeeledLoop {
  std::string iterator;      // the loop's, now a parameter of `body`
  std::string lower, upper;  // its inclusive bounds as C expressions of the parameters
  Scop body;                 // the statements without their outermost dimension
};

// The loop around every statement of `scop`, peeled; nullopt when the source schedule has
// no band of one loop at its top, the statements do not all share it as their outermost
// loop, or its bounds are not single affine expressions.
std::optional<PeeledLoop> peel_outer_loop(const Scop& scop);

}  // namespace pz::poly
