// The largest sizes a region's declared arrays allow: for each size parameter, the largest
// value at which every access stays inside its array's declared extents (PolyBench's
// `double A[NI][NK]` read as A[i][k] with i < ni, k < nk gives ni = NI, nk = NK). Polly
// assumes the same bounds of its accesses; polyc uses the values as the sizes a program
// most likely runs at (a version of the region for them, polyc.h) and as the timing sizes
// of --tune (tuner.h).
//
// Exact: the parameter values with an access outside its extents are computed with isl and
// subtracted from the context, then each parameter in turn takes the largest value left
// (the ones before it fixed), among the values at which every statement runs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "polyhedral/ir/scop.h"

namespace pz::poly {

// `given` where it names a parameter of `scop`, else its concrete value (Scop::param_values),
// else the largest in-bounds value. Parameters no declared extent bounds (a stencil's time
// steps) are appended to `unresolved` and have no entry.
std::map<std::string, long long> in_bounds_sizes(const Scop& scop, const std::map<std::string, long long>& given,
                                                 std::vector<std::string>& unresolved);

}  // namespace pz::poly
