// Frontend 2: SCoPs built from C++ (nn/ describes its kernels this way), and the lowering
// that both frontends share.
//
//   ScopBuilder b(ctx);
//   b.param("N", 64).param("M").array("C", "float");
//   b.for_("i", "0", "N").for_("j", "0", "M")
//       .stmt("C[i][j] = 0")
//       .for_("k", "0", "K").stmt("C[i][j] += A[i][k] * B[k][j]").end()
//     .end().end();
//   Scop scop = b.build();
//
// Bounds, conditions and statements are C text parsed by the C frontend's expression parser,
// so both frontends accept exactly the same language. Parameters are the names used in
// affine positions (bounds, conditions, subscripts) that are not iterators; param() declares
// one explicitly or gives it a concrete value.
#pragma once

#include <isl/cpp.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "polyhedral/ir/loop_tree.h"
#include "polyhedral/ir/scop.h"

namespace pz::poly {

struct LowerOptions {
  std::map<std::string, long long> param_values;   // concrete sizes
  // array -> C type as declared. The C frontend gives every name it reads an entry, ""
  // where the type is not known by name (a typedef, a macro): such an array's type is
  // spelled `__typeof__(A[0][0])`, with one [0] per subscript, so that a temporary takes the
  // element's exact type. A name without an entry (the builder API's) is a double.
  std::map<std::string, std::string> element_types;
  // array -> the type name its declaration spells where element_types has "" (`DATA_TYPE`,
  // `real_t`, `struct cell`): arrays of one such name have one type, of two names maybe not.
  std::map<std::string, std::string> type_names;
  std::vector<std::string> declared_params;          // params in declaration order first
  // array -> the C text of each extent as declared ("double A[N][N + 1]": {"N", "N + 1"})
  std::map<std::string, std::vector<std::string>> declared_extents;
  // The integer #defines those extents use ("H" in "double A[W][H]"), for evaluating them.
  std::map<std::string, long long> extent_constants;
  // Scalars whose values after the region nobody reads (the C frontend's liveness): their
  // uses may be forwarded into array elements (scalar_forwarding.h).
  std::set<std::string> dead_scalars;
};

// Turns a loop tree into the Scop IR: domains, access relations, the source-order schedule
// tree, after forwarding the dead scalars that carry one element's value (the Scop's notes
// say which). Throws FrontendError for anything outside the subset.
Scop lower(isl::ctx ctx, const LoopNode& root, const LowerOptions& options);

class ScopBuilder {
 public:
  explicit ScopBuilder(isl::ctx ctx);
  ScopBuilder& param(const std::string& name, std::optional<long long> value = {});
  ScopBuilder& array(const std::string& name, const std::string& element_type);
  // for (iterator = lower; iterator < upper; iterator += step)
  ScopBuilder& for_(const std::string& iterator, const std::string& lower, const std::string& upper,
                    long long step = 1);
  ScopBuilder& if_(const std::string& condition);
  ScopBuilder& else_();
  ScopBuilder& end();
  // An assignment "lhs op rhs", e.g. "C[i][j] += A[i][k] * B[k][j]".
  ScopBuilder& stmt(const std::string& text);
  Scop build();

 private:
  std::vector<std::unique_ptr<LoopNode>>& current();
  isl::ctx ctx_;
  LowerOptions options_;
  LoopNode root_;
  struct Open {
    LoopNode* node;
    bool in_else;
  };
  std::vector<Open> stack_;
};

}  // namespace pz::poly
