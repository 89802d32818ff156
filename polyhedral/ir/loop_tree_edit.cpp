#include "polyhedral/ir/loop_tree_edit.h"

namespace pz::poly {

bool mentions(const ExprPtr& e, const std::string& name) {
  bool found = false;
  if (e) visit(e, [&](const ExprPtr& x) { found = found || (x->kind == Expr::Kind::kName && x->text == name); });
  return found;
}

ExprPtr substitute(const ExprPtr& e, const std::string& name, const ExprPtr& by) {
  if (e->kind == Expr::Kind::kName && e->text == name) return by;
  if (e->args.empty()) return e;
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(substitute(a, name, by));
    changed = changed || args.back() != a;
  }
  return changed ? Expr::make(e->kind, e->text, std::move(args), e->loc) : e;
}

ExprPtr prefix_subscript(const ExprPtr& e, const std::string& array, const std::string& renamed, const ExprPtr& index) {
  if (e->args.empty()) return e;
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(prefix_subscript(a, array, renamed, index));
    changed = changed || args.back() != a;
  }
  if (e->kind == Expr::Kind::kAccess && e->text == array) {
    args.insert(args.begin(), index);
    return Expr::make(Expr::Kind::kAccess, renamed, std::move(args), e->loc);
  }
  return changed ? Expr::make(e->kind, e->text, std::move(args), e->loc) : e;
}

std::unique_ptr<LoopNode> shallow_clone(const LoopNode& n) {
  auto c = std::make_unique<LoopNode>();
  c->kind = n.kind;
  c->loc = n.loc;
  c->iterator = n.iterator;
  c->declares_iterator = n.declares_iterator;
  c->init = n.init;
  c->cond = n.cond;
  c->step = n.step;
  c->lhs = n.lhs;
  c->rhs = n.rhs;
  c->op = n.op;
  return c;
}

std::unique_ptr<LoopNode> clone(const LoopNode& n) {
  std::unique_ptr<LoopNode> c = shallow_clone(n);
  for (const auto& x : n.children) c->children.push_back(clone(*x));
  for (const auto& x : n.else_children) c->else_children.push_back(clone(*x));
  return c;
}

void number_statements(const LoopNode& n, const Scop& scop, std::map<const LoopNode*, const Statement*>& out) {
  if (n.kind == LoopNode::Kind::kStmt) {
    const std::size_t index = out.size();
    if (index < scop.statements.size()) out[&n] = &scop.statements[index];
    return;
  }
  for (const auto& c : n.children) number_statements(*c, scop, out);
  for (const auto& c : n.else_children) number_statements(*c, scop, out);
}

}  // namespace pz::poly
