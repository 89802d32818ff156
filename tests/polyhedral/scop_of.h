// The Scop of a loop nest written as C (one region's body, without the pragmas), lowered as
// polyc lowers it: the starting point of tests of single passes.
#pragma once

#include <string>

#include "polyhedral/frontend/builder.h"
#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/ir/isl_context.h"

namespace pz::poly::test_support {

// `declarations`, C text before the region, give names their types; without them every
// element's type is unknown, spelled `__typeof__(A[0][0])` (builder.h).
inline Scop scop_of(IslContext& ctx, const std::string& body, const std::string& declarations = "") {
  auto regions = parse_c_regions(declarations + "#pragma scop\n" + body + "\n#pragma endscop\n");
  return lower(ctx.ctx(), *regions.at(0).tree, regions.at(0).options);
}

}  // namespace pz::poly::test_support
