#include "polyhedral/transform/scalar_forwarding.h"

#include <algorithm>
#include <map>
#include <optional>

#include "polyhedral/ir/loop_tree_edit.h"

namespace pz::poly {

namespace {

using Children = std::vector<std::unique_ptr<LoopNode>>;

// The statements under `n` (itself if one) that mention `name`, and whether a loop bound
// or condition does.
void statements_mentioning(const LoopNode& n, const std::string& name, std::vector<const LoopNode*>& out, bool& in_control) {
  if (n.kind == LoopNode::Kind::kStmt) {
    if (mentions(n.lhs, name) || mentions(n.rhs, name)) out.push_back(&n);
    return;
  }
  in_control = in_control || mentions(n.init, name) || mentions(n.cond, name);
  for (const auto& c : n.children) statements_mentioning(*c, name, out, in_control);
  for (const auto& c : n.else_children) statements_mentioning(*c, name, out, in_control);
}

bool is_update_of(const LoopNode& n, const std::string& s) {
  return n.kind == LoopNode::Kind::kStmt && n.lhs->kind == Expr::Kind::kName && n.lhs->text == s &&
         (n.op == "+=" || n.op == "-=") && !mentions(n.rhs, s);
}

void collect_statements(const LoopNode& n, std::vector<const LoopNode*>& out) {
  if (n.kind == LoopNode::Kind::kStmt) return out.push_back(&n);
  for (const auto& c : n.children) collect_statements(*c, out);
  for (const auto& c : n.else_children) collect_statements(*c, out);
}

// Every statement under a loop or condition `n` is an update of `s`, and `s` is in no bound
// or condition: the statements go to `updates`, or false.
bool only_updates(const LoopNode& n, const std::string& s, std::vector<const LoopNode*>& updates) {
  std::vector<const LoopNode*> inside, mentioning;
  collect_statements(n, inside);
  bool in_control = false;
  statements_mentioning(n, s, mentioning, in_control);
  if (in_control || inside.empty()) return false;
  for (const LoopNode* x : inside)
    if (!is_update_of(*x, s)) return false;
  updates.insert(updates.end(), inside.begin(), inside.end());
  return true;
}

struct Group {
  std::string scalar;
  const LoopNode* init = nullptr;
  std::vector<const LoopNode*> updates;
  const LoopNode* final = nullptr;
};

// The group that starts at children[a], if one does.
std::optional<Group> group_at(const Children& children, std::size_t a, const std::set<std::string>& dead) {
  const LoopNode& first = *children[a];
  if (first.kind != LoopNode::Kind::kStmt || first.op != "=" || first.lhs->kind != Expr::Kind::kName) return std::nullopt;
  Group g;
  g.scalar = first.lhs->text;
  if (!dead.count(g.scalar) || mentions(first.rhs, g.scalar)) return std::nullopt;
  g.init = &first;
  for (std::size_t j = a + 1; j < children.size(); ++j) {
    const LoopNode& n = *children[j];
    if (is_update_of(n, g.scalar)) {
      g.updates.push_back(&n);
      continue;
    }
    if (n.kind == LoopNode::Kind::kStmt) {
      if (n.op == "=" && n.lhs->kind == Expr::Kind::kAccess && !mentions(n.lhs, g.scalar) && mentions(n.rhs, g.scalar)) {
        g.final = &n;
        return g;
      }
      return std::nullopt;
    }
    if (!only_updates(n, g.scalar, g.updates)) return std::nullopt;
  }
  return std::nullopt;
}

void find_groups(const Children& children, const std::set<std::string>& dead, std::vector<Group>& out) {
  for (std::size_t a = 0; a < children.size(); ++a) {
    if (auto g = group_at(children, a, dead)) out.push_back(*g);
    const LoopNode& n = *children[a];
    find_groups(n.children, dead, out);
    find_groups(n.else_children, dead, out);
  }
}

std::string joined(const std::vector<std::string>& names, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count && i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

// Whether `reader`'s reads of the home array miss the element `home` writes in the same
// iteration of their common loops.
bool misses_home(const Scop& scop, const Statement& reader, const Statement& home, bool skip_the_write) {
  const Access& write = home.accesses.front();
  std::string params;
  for (const auto& p : scop.params) params += (params.empty() ? "" : ", ") + p;
  const isl::map same_iteration(scop.ctx, "[" + params + "] -> { " + reader.name + "[" + joined(reader.iterators, reader.iterators.size()) +
                                              "] -> " + home.name + "[" + joined(reader.iterators, home.iterators.size()) + "] }");
  const isl::map home_element = same_iteration.apply_range(write.relation);
  for (std::size_t i = 0; i < reader.accesses.size(); ++i) {
    const Access& a = reader.accesses[i];
    if (a.write || a.array != write.array || (skip_the_write && i == 0)) continue;
    if (!a.relation.intersect(home_element).is_empty()) return false;
  }
  return true;
}

bool legal(const Group& g, const Scop& scop, const std::map<const LoopNode*, const Statement*>& statements) {
  const Statement* home = statements.count(g.final) ? statements.at(g.final) : nullptr;
  if (!home || home->accesses.empty() || !home->accesses.front().write) return false;
  for (const LoopNode* u : g.updates) {
    const Statement* s = statements.count(u) ? statements.at(u) : nullptr;
    if (!s || s->iterators.size() < home->iterators.size() ||
        !std::equal(home->iterators.begin(), home->iterators.end(), s->iterators.begin()) || !misses_home(scop, *s, *home, false))
      return false;
  }
  return misses_home(scop, *home, *home, true);
}

// The clone of `n` with each group's statements rewritten (`rewrites`: original node →
// its new lhs and rhs); a statement that would read `H = H` is dropped.
struct Rewrite {
  ExprPtr lhs, rhs;
  bool drop = false;
};

void apply(LoopNode& copy, const LoopNode& original, const std::map<const LoopNode*, Rewrite>& rewrites) {
  auto each = [&](Children& copies, const Children& originals) {
    Children kept;
    for (std::size_t i = 0; i < originals.size(); ++i) {
      auto it = rewrites.find(originals[i].get());
      if (it != rewrites.end()) {
        if (it->second.drop) continue;
        copies[i]->lhs = it->second.lhs;
        copies[i]->rhs = it->second.rhs;
      }
      apply(*copies[i], *originals[i], rewrites);
      kept.push_back(std::move(copies[i]));
    }
    copies = std::move(kept);
  };
  each(copy.children, original.children);
  each(copy.else_children, original.else_children);
}

}  // namespace

std::unique_ptr<LoopNode> forward_scalars(const LoopNode& root, const Scop& scop, const std::set<std::string>& dead_scalars,
                                          std::vector<std::string>& log, std::vector<std::string>& forwarded) {
  if (dead_scalars.empty()) return nullptr;
  std::vector<Group> groups;
  find_groups(root.children, dead_scalars, groups);
  if (groups.empty()) return nullptr;
  std::map<const LoopNode*, const Statement*> statements;
  number_statements(root, scop, statements);

  std::map<std::string, std::vector<const Group*>> by_scalar;
  for (const Group& g : groups) by_scalar[g.scalar].push_back(&g);
  std::map<const LoopNode*, Rewrite> rewrites;
  for (const auto& [scalar, list] : by_scalar) {
    std::vector<const LoopNode*> mentioning;
    bool in_control = false;
    statements_mentioning(root, scalar, mentioning, in_control);
    std::size_t covered = 0;
    bool all_legal = true;
    for (const Group* g : list) {
      covered += 2 + g->updates.size();
      all_legal = all_legal && legal(*g, scop, statements);
    }
    // Types compared by name: two __typeof__ spellings (typeof_element) may name one type or two.
    const Array* scalar_array = scop.array(scalar);
    const bool named = scalar_array && is_named_type(scalar_array->element_type);
    const bool same_type = named && std::all_of(list.begin(), list.end(), [&](const Group* g) {
      const Array* home = scop.array(g->final->lhs->text);
      return home && scalar_array->element_type == home->element_type;
    });
    if (!same_type) {
      log.push_back("scalar forwarding: " + scalar + " kept (" +
                    (named ? "its type is not its elements'" : "its type has no name polyc knows; --cpp resolves macros") + ")");
      continue;
    }
    if (in_control || covered != mentioning.size()) {
      log.push_back("scalar forwarding: " + scalar + " kept (used outside a value carried into one element)");
      continue;
    }
    if (!all_legal) {
      log.push_back("scalar forwarding: " + scalar + " kept (its updates read the element it ends in)");
      continue;
    }
    for (const Group* g : list) {
      const ExprPtr& home = g->final->lhs;
      rewrites[g->init] = {home, g->init->rhs, to_c(*g->init->rhs) == to_c(*home)};
      for (const LoopNode* u : g->updates) rewrites[u] = {home, u->rhs};
      const ExprPtr result = substitute(g->final->rhs, scalar, home);
      rewrites[g->final] = {home, result, to_c(*result) == to_c(*home)};
    }
    forwarded.push_back(scalar);
    log.push_back("scalar forwarding: " + scalar + " forwarded into " + to_c(*list.front()->final->lhs) +
                  (list.size() > 1 ? " and " + std::to_string(list.size() - 1) + " other element(s)" : ""));
  }
  if (rewrites.empty()) return nullptr;
  std::unique_ptr<LoopNode> copy = clone(root);
  apply(*copy, root, rewrites);
  return copy;
}

}  // namespace pz::poly
