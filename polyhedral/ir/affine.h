// Affine expressions and conditions of the C subset as isl objects.
//
// Accepted: integer literals, iterators, parameters, + and -, multiplication where one side
// is constant, / and % by a positive constant (C semantics: truncation toward zero),
// min/max (also MIN/MAX), floord/ceild by a positive constant, comparisons, &&, || and !.
// Anything else throws FrontendError naming the construct.
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

#include "polyhedral/ir/expr.h"

namespace pz::poly {

class AffineBuilder {
 public:
  // The space `[params] -> tuple[iterators]`.
  AffineBuilder(isl::ctx ctx, const std::vector<std::string>& params, const std::string& tuple,
                const std::vector<std::string>& iterators);

  isl::pw_aff expr(const Expr& e) const;  // what: "subscript", "loop bound", ...
  isl::set condition(const Expr& e) const;
  isl::set universe() const;
  isl::pw_aff iterator(int pos) const;
  isl::space space() const { return space_; }
  isl::pw_aff constant(long long v) const;

  // Context for errors: "in a subscript", "in a loop bound".
  void set_role(std::string role) { role_ = std::move(role); }

 private:
  long long constant_value(const isl::pw_aff& pa, const Expr& where) const;
  isl::ctx ctx_;
  isl::space space_;
  std::vector<std::string> params_, iterators_;
  std::string role_ = "affine expression";
};

// Names that AffineBuilder treats as functions rather than variables.
bool is_affine_function(const std::string& name);

}  // namespace pz::poly
