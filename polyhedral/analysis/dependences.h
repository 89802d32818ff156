// Dependences of a SCoP, value-based (exact dataflow, isl_union_access_info_compute_flow):
// a dependence links two statement instances only when no write in between breaks it.
//
//  raw     write → read that reads the value it wrote (flow)
//  waw     write → the next write of the same element
//  war     read → the next write of the element it read (pairs already in waw excluded)
//  live_in read instance → element read before any write in the scop (copy-in)
//  live_out write instance → element whose final value it writes (copy-out)
//
// Every transformation must keep raw ∪ war ∪ waw (= validity()) in order; with value-based
// false dependences this is exactly what preserves the program's results (the transitive
// order of raw/waw/war chains covers the memory-based pairs).
#pragma once

#include <isl/cpp.h>

#include "polyhedral/ir/scop.h"

namespace pz::poly {

struct Dependences {
  isl::union_map raw, war, waw;
  isl::union_map live_in, live_out;
  isl::union_map validity() const;
};

Dependences compute_dependences(const Scop& scop);

}  // namespace pz::poly
