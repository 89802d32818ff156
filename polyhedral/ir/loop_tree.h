// The syntax of a SCoP before it becomes polyhedral: loops, conditions and assignments,
// exactly as written. Both frontends produce it (the C parser from source text, the builder
// API from calls); lowering (builder.h) turns it into the Scop IR.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "polyhedral/ir/expr.h"

namespace pz::poly {

struct LoopNode {
  enum class Kind { kBlock, kFor, kIf, kStmt };
  Kind kind = Kind::kBlock;
  SourceLoc loc;
  // kFor: for (iterator = init; cond; iterator += step)
  std::string iterator;
  bool declares_iterator = false;  // `for (int i = ...`
  ExprPtr init, cond;
  long long step = 1;
  // kIf: cond, then `children`, else `else_children`
  // kStmt: lhs op rhs  (x++ is x += 1)
  ExprPtr lhs, rhs;
  std::string op;
  std::vector<std::unique_ptr<LoopNode>> children;
  std::vector<std::unique_ptr<LoopNode>> else_children;
};

}  // namespace pz::poly
