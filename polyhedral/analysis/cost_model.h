// A cost model that can say no. The transformations after isl's scheduler pay for
// themselves only beyond a size: rectangular and time tiling when the data a nest sweeps
// does not stay in the cache anyway, a parallel loop when a fork/join has enough work. With
// concrete sizes, polyc estimates the scop's statement instances and the bytes of every
// array it touches (box hulls of the domains and of each array's accessed elements: upper
// bounds, no enumeration) and keeps the source's locality where a tile could not beat it:
//  - footprint <= L2/2: the arrays stay in L2 from one sweep to the next, so a tile would
//    reuse nothing a plain sweep does not; no rectangular tiling, no time tiling (loop
//    order, unroll-and-jam and the marks still apply);
//  - footprint <= L2: a stencil's time steps each stream the arrays from L2, and time tiles
//    (their halos, their short inner loops) cannot beat that: no time tiling;
//  - instances < min_parallel_work: no fork/join can pay (no loop is marked parallel; the
//    per-nest check in parallel_marks.h applies beyond that).
// With symbolic sizes the model's rules run in the program (polyc.cpp), and given tile sizes
// (--tile N,...) are always applied.
#pragma once

#include <string>
#include <vector>

#include "polyhedral/analysis/cache_info.h"
#include "polyhedral/ir/scop.h"

namespace pz::poly {

struct CostEstimate {
  bool concrete = false;          // every extent constant: the figures below exist
  long long instances = 0;        // statement instances
  long long footprint_bytes = 0;  // bytes of the elements the scop reads or writes
};

CostEstimate estimate_cost(const Scop& scop);

struct CostDecision {
  bool tile = true;       // rectangular tiling (auto sizes)
  bool time_tile = true;  // skewed time tiles for stencils
  bool parallel = true;   // parallel marks
  std::vector<std::string> log;  // "cost model: ..." lines for the report
};

// With symbolic sizes: a C expression of the parameters bounding the bytes the scop reads or
// writes (per array, its accessed box's extents times the element size, summed), for the
// run-time choice between the code for small and for large sizes (polyc.cpp); "" when a
// bound is not affine in the parameters or costs isl too much.
std::string footprint_expression(const Scop& scop);

CostDecision decide_transformations(const CostEstimate& estimate, const CacheInfo& cache, long long min_parallel_work);

}  // namespace pz::poly
