// Small edits of loop trees (loop_tree.h) shared by the passes that rewrite a region before
// lowering (scalar_forwarding.h, scalar_expansion.h).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "polyhedral/ir/loop_tree.h"
#include "polyhedral/ir/scop.h"

namespace pz::poly {

// Whether `e` mentions the plain name `name` (not an array of that name).
bool mentions(const ExprPtr& e, const std::string& name);

// `e` with every plain name `name` replaced by `by`; `e` itself when it has none.
ExprPtr substitute(const ExprPtr& e, const std::string& name, const ExprPtr& by);

// `e` with every access to `array` replaced by one to `renamed` with `index` as its first
// subscript (A[i][j] -> pz_A[q][i][j]); `e` itself when it has none.
ExprPtr prefix_subscript(const ExprPtr& e, const std::string& array, const std::string& renamed, const ExprPtr& index);

// A copy of `n` without its children.
std::unique_ptr<LoopNode> shallow_clone(const LoopNode& n);

// A deep copy of `n`.
std::unique_ptr<LoopNode> clone(const LoopNode& n);

// Each statement node under `n` with the Statement that lowering `n` made of it (builder.cpp
// names statements depth first, a condition's children before its else branch).
void number_statements(const LoopNode& n, const Scop& scop, std::map<const LoopNode*, const Statement*>& out);

}  // namespace pz::poly
