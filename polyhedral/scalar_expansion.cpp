#include "polyhedral/scalar_expansion.h"

#include <set>

#include "polyhedral/c_parser.h"
#include "polyhedral/dependences.h"
#include "polyhedral/isl_context.h"
#include "polyhedral/loop_tree_edit.h"
#include "polyhedral/parallel_marks.h"

namespace pz::poly {

namespace {

using StatementMap = std::map<const LoopNode*, const Statement*>;

std::string in_name(const isl::map& m) { return isl_map_get_tuple_name(m.get(), isl_dim_in); }
std::string out_name(const isl::map& m) { return isl_map_get_tuple_name(m.get(), isl_dim_out); }

// Whether every pair of `m` agrees on its first `k` input and output dimensions.
bool agrees_on(const isl::map& m, int k) {
  isl_map* same = isl_map_universe(isl_map_get_space(m.get()));
  for (int i = 0; i < k; ++i) same = isl_map_equate(same, isl_dim_in, i, isl_dim_out, i);
  const isl_bool subset = isl_map_is_subset(m.get(), same);
  isl_map_free(same);
  return subset == isl_bool_true;
}

void statements_under(const LoopNode& n, const StatementMap& numbered, std::vector<const Statement*>& out) {
  if (n.kind == LoopNode::Kind::kStmt) {
    if (auto it = numbered.find(&n); it != numbered.end()) out.push_back(it->second);
    return;
  }
  for (const auto& c : n.children) statements_under(*c, numbered, out);
  for (const auto& c : n.else_children) statements_under(*c, numbered, out);
}

void names_in(const LoopNode& n, std::set<std::string>& out) {
  for (const ExprPtr& e : {n.init, n.cond, n.lhs, n.rhs})
    if (e) visit(e, [&](const ExprPtr& x) { out.insert(x->text); });
  if (!n.iterator.empty()) out.insert(n.iterator);
  for (const auto& c : n.children) names_in(*c, out);
  for (const auto& c : n.else_children) names_in(*c, out);
}

bool tree_mentions(const LoopNode& n, const std::string& name) {
  if (mentions(n.lhs, name) || mentions(n.rhs, name) || mentions(n.init, name) || mentions(n.cond, name)) return true;
  for (const auto& c : n.children)
    if (tree_mentions(*c, name)) return true;
  for (const auto& c : n.else_children)
    if (tree_mentions(*c, name)) return true;
  return false;
}

// The flow of a scalar's values (exact dataflow): write → read pairs, and the reads of a
// value from before the region.
struct ScalarFlow {
  isl::union_map flow, no_source;
};

ScalarFlow flow_of(const Scop& scop, const std::string& scalar) {
  isl::union_map reads = isl::union_map::empty(scop.ctx), writes = reads;
  for (const auto& s : scop.statements)
    for (const auto& a : s.accesses)
      if (a.array == scalar) (a.write ? writes : reads) = (a.write ? writes : reads).unite(isl::union_map(a.relation));
  isl::union_flow f = isl::union_access_info(reads).set_must_source(writes).set_schedule(scop.schedule).compute_flow();
  return {f.must_dependence(), f.must_no_source()};
}

// Every value read inside the loop (its statements `inside`, the loop at `depth`) was
// written in the same iteration of it and of the loops around it, and none crosses its
// boundary.
bool stays_in_iterations(const ScalarFlow& f, const std::set<std::string>& inside, int depth) {
  for (const isl::map& m : maps_of(f.flow)) {
    const bool from = inside.count(in_name(m)) > 0, to = inside.count(out_name(m)) > 0;
    if (from != to || (from && !agrees_on(m, depth))) return false;
  }
  for (const isl::map& m : maps_of(f.no_source))
    if (inside.count(in_name(m))) return false;
  return true;
}

// The loop at `depth` carries no dependence of `scop` between its statements `inside`.
// Dependences among those statements alone: a write outside can only cut one of them.
bool carries_nothing(const Scop& scop, const std::set<std::string>& inside, int depth) {
  const Scop piece = restrict_scop(scop, std::vector<std::string>(inside.begin(), inside.end()));
  for (const isl::map& m : maps_of(compute_dependences(piece).validity())) {
    isl_map* outer = isl_map_universe(isl_map_get_space(m.get()));
    for (int i = 0; i + 1 < depth; ++i) outer = isl_map_equate(outer, isl_dim_in, i, isl_dim_out, i);
    const isl::map same_outer = m.intersect(isl::manage(outer));
    if (!agrees_on(same_outer, depth)) return false;
  }
  return true;
}

// The values the loop's iterator (dimension depth - 1) takes over `statements`.
isl::set iterator_values(const std::vector<const Statement*>& statements, int depth) {
  isl::set values;
  for (const Statement* s : statements) {
    isl_set* d = s->domain.copy();
    const int n = static_cast<int>(isl_set_dim(d, isl_dim_set));
    d = isl_set_project_out(d, isl_dim_set, depth, n - depth);
    d = isl_set_project_out(d, isl_dim_set, 0, depth - 1);
    isl::set v = isl::manage(isl_set_reset_tuple_id(d));
    values = values.is_null() ? v : values.unite(v);
  }
  return values.coalesce();
}

// Whether subscript `k` of `a` is the loop's iterator (dimension depth - 1) itself.
bool subscripts_directly(const Access& a, int k, int depth) {
  isl_map* same = isl_map_universe(isl_map_get_space(a.relation.get()));
  same = isl_map_equate(same, isl_dim_in, depth - 1, isl_dim_out, k);
  const isl_bool direct = isl_map_is_subset(a.relation.get(), same);
  isl_map_free(same);
  return direct == isl_bool_true;
}

// The largest declared extent among array dimensions that the loop's iterator subscripts
// directly in `statements` (A[...][i][...] with i the loop's): 0 when there is none.
long long declared_extent(const Scop& scop, const std::vector<const Statement*>& statements, int depth,
                          const std::map<std::string, long long>& constants) {
  long long extent = 0;
  for (const Statement* s : statements)
    for (const Access& a : s->accesses) {
      const Array* array = scop.array(a.array);
      if (!array || array->rank == 0 || static_cast<int>(array->declared_extents.size()) != array->rank) continue;
      for (int k = 0; k < array->rank; ++k)
        if (subscripts_directly(a, k, depth))
          if (std::optional<long long> e = evaluate_text(array->declared_extents[k], constants)) extent = std::max(extent, *e);
    }
  return extent;
}

// Whether some array of `statements` has the loop's iterator as its last subscript: run
// innermost, the parallel loop then walks it with unit stride, in vectors.
bool walks_rows(const Scop& scop, const std::vector<const Statement*>& statements, int depth) {
  for (const Statement* s : statements)
    for (const Access& a : s->accesses) {
      const Array* array = scop.array(a.array);
      if (array && array->rank > 0 && subscripts_directly(a, array->rank - 1, depth)) return true;
    }
  return false;
}

struct Extent {
  long long elements = 0;
  std::string guard;  // "" when the extent holds everywhere
  std::string why;    // why there is none, when elements == 0
};

Extent extent_of(const Scop& scop, const std::vector<const Statement*>& statements, int depth,
                 const std::map<std::string, long long>& constants) {
  const isl::set values = iterator_values(statements, depth);
  Extent e;
  isl_set* negative = isl_set_upper_bound_si(values.copy(), isl_dim_set, 0, -1);
  const bool nonnegative = isl_set_is_empty(negative) == isl_bool_true;
  isl_set_free(negative);
  if (!nonnegative) return {0, "", "its iterator may be negative"};
  isl_val* largest = isl_set_dim_max_val(values.copy(), 0);
  if (largest && isl_val_is_int(largest) == isl_bool_true) {
    e.elements = isl_val_get_num_si(largest) + 1;
    isl_val_free(largest);
    return e;
  }
  isl_val_free(largest);
  e.elements = declared_extent(scop, statements, depth, constants);
  if (e.elements <= 0) return {0, "", "no constant bound on its iterator (no declared extent it subscripts)"};
  const std::string bound = pw_aff_bound_to_c(isl_set_dim_max(values.copy(), 0));
  if (bound.empty()) return {0, "", "its iterator's bound is not affine"};
  e.guard = bound + " < " + std::to_string(e.elements);
  return e;
}

struct Choice {
  std::string scalar, array;
  ExprPtr element;  // array[iterator]
};

class Expander {
 public:
  Expander(const LoopNode& root, const Scop& scop, const LowerOptions& options, const LowerTree& lower_tree,
           std::vector<std::string>& log)
      : root_(root), scop_(scop), options_(options), lower_tree_(lower_tree), log_(log) {
    number_statements(root, scop, numbered_);
    names_in(root, used_);
    for (const auto& a : scop.arrays) used_.insert(a.name);
    used_.insert(scop.params.begin(), scop.params.end());
  }

  std::optional<ScalarExpansion> run() {
    visit_loops(root_, 0);
    if (chosen_.empty()) return std::nullopt;
    ScalarExpansion x;
    x.tree = expanded_tree();
    x.options = options_with_arrays();
    x.guards = guards_;
    std::set<std::string> scalars;
    for (const auto& [loop, choices] : chosen_)
      for (const Choice& c : choices) {
        x.local_arrays.push_back(c.array);
        scalars.insert(c.scalar);
      }
    for (const std::string& s : scalars)
      if (!tree_mentions(*x.tree, s)) x.removed_scalars.push_back(s);
    return x;
  }

 private:
  void visit_loops(const LoopNode& n, int depth) {
    auto each = [&](const std::vector<std::unique_ptr<LoopNode>>& children) {
      for (const auto& c : children) {
        if (c->kind != LoopNode::Kind::kFor) {
          visit_loops(*c, depth);
        } else if (!try_loop(*c, depth + 1)) {
          visit_loops(*c, depth + 1);
        }
      }
    };
    each(n.children);
    each(n.else_children);
  }

  // Expands the scalars `loop` (at `depth`) can take, when that makes it parallel.
  bool try_loop(const LoopNode& loop, int depth) {
    std::vector<const Statement*> statements;
    statements_under(loop, numbered_, statements);
    std::set<std::string> inside;
    for (const Statement* s : statements) inside.insert(s->name);
    std::vector<std::string> scalars;
    for (const std::string& s : options_.dead_scalars) {
      const Array* array = scop_.array(s);
      if (!array || array->rank != 0 || !options_.element_types.count(s) || !writes(statements, s)) continue;
      if (!flows_.count(s)) flows_.emplace(s, flow_of(scop_, s));
      if (stays_in_iterations(flows_.at(s), inside, depth)) scalars.push_back(s);
    }
    if (scalars.empty()) return false;
    const std::string what = joined(scalars) + " along " + loop.iterator;
    if (!walks_rows(scop_, statements, depth)) return refuse(what, "no array's last subscript is " + loop.iterator);
    const Extent extent = extent_of(scop_, statements, depth, options_.extent_constants);
    if (extent.elements <= 0) return refuse(what, extent.why);
    long long bytes = 0;
    for (const std::string& s : scalars) bytes += extent.elements * element_bytes(s);
    if (bytes_ + bytes > kMaxExpansionBytes)
      return refuse(what, std::to_string(bytes_ + bytes) + " bytes of arrays, over " + std::to_string(kMaxExpansionBytes));
    std::vector<Choice>& choices = chosen_[&loop];
    for (const std::string& s : scalars) {
      const std::string array = fresh_name("pz_" + s);
      const ExprPtr index = Expr::make(Expr::Kind::kName, loop.iterator);
      choices.push_back({s, array, Expr::make(Expr::Kind::kAccess, array, {index})});
      extents_[array] = extent.elements;
      types_[array] = options_.element_types.at(s);
    }
    if (!becomes_parallel(inside, depth)) {
      for (const Choice& c : choices) {
        extents_.erase(c.array);
        types_.erase(c.array);
        used_.erase(c.array);
      }
      chosen_.erase(&loop);
      return refuse(what, loop.iterator + " would still carry other dependences");
    }
    bytes_ += bytes;
    if (!extent.guard.empty()) guards_.push_back(extent.guard);
    std::string arrays;
    for (const Choice& c : choices) arrays += (arrays.empty() ? "" : ", ") + c.array + "[" + std::to_string(extent.elements) + "]";
    log_.push_back("scalar expansion: " + what + " into " + arrays + (extent.guard.empty() ? "" : " (when " + extent.guard + ")") +
                   "; " + loop.iterator + " is parallel");
    return true;
  }

  bool refuse(const std::string& what, const std::string& why) {
    log_.push_back("scalar expansion: " + what + " not expanded (" + why + ")");
    return false;
  }

  bool becomes_parallel(const std::set<std::string>& inside, int depth) {
    try {
      const Scop expanded = lower_tree_(*expanded_tree(), options_with_arrays());
      return carries_nothing(expanded, inside, depth);
    } catch (const std::exception&) {
      return false;
    }
  }

  static bool writes(const std::vector<const Statement*>& statements, const std::string& scalar) {
    for (const Statement* s : statements)
      if (!s->accesses.empty() && s->accesses.front().write && s->accesses.front().array == scalar) return true;
    return false;
  }

  int element_bytes(const std::string& scalar) const {
    Array a;
    a.element_type = options_.element_types.at(scalar);
    return a.element_bytes();
  }

  std::string fresh_name(const std::string& base) {
    std::string name = base;
    for (int n = 2; used_.count(name); ++n) name = base + "_" + std::to_string(n);
    used_.insert(name);
    return name;
  }

  static std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  }

  LowerOptions options_with_arrays() const {
    LowerOptions o = options_;
    for (const auto& [array, elements] : extents_) {
      o.element_types[array] = types_.at(array);
      o.declared_extents[array] = {std::to_string(elements)};
    }
    return o;
  }

  std::unique_ptr<LoopNode> expanded_tree() const {
    std::unique_ptr<LoopNode> copy = clone(root_);
    rewrite(*copy, root_, {});
    return copy;
  }

  // The statements under `original` (copied as `copy`) with the chosen scalars replaced by
  // their elements: `active` from the loops above, and the node's own when it is one.
  void rewrite(LoopNode& copy, const LoopNode& original, std::vector<const Choice*> active) const {
    if (auto it = chosen_.find(&original); it != chosen_.end())
      for (const Choice& c : it->second) active.push_back(&c);
    if (copy.kind == LoopNode::Kind::kStmt) {
      for (const Choice* c : active) {
        copy.lhs = substitute(copy.lhs, c->scalar, c->element);
        if (copy.rhs) copy.rhs = substitute(copy.rhs, c->scalar, c->element);
      }
      return;
    }
    for (std::size_t i = 0; i < copy.children.size(); ++i) rewrite(*copy.children[i], *original.children[i], active);
    for (std::size_t i = 0; i < copy.else_children.size(); ++i)
      rewrite(*copy.else_children[i], *original.else_children[i], active);
  }

  const LoopNode& root_;
  const Scop& scop_;
  const LowerOptions& options_;
  const LowerTree& lower_tree_;
  std::vector<std::string>& log_;
  StatementMap numbered_;
  std::set<std::string> used_;
  std::map<std::string, ScalarFlow> flows_;
  std::map<const LoopNode*, std::vector<Choice>> chosen_;
  std::map<std::string, long long> extents_;
  std::map<std::string, std::string> types_;
  std::vector<std::string> guards_;
  long long bytes_ = 0;
};

}  // namespace

std::optional<ScalarExpansion> expand_scalars(const LoopNode& root, const Scop& scop, const LowerOptions& options,
                                              const LowerTree& lower_tree, std::vector<std::string>& log) {
  if (options.dead_scalars.empty()) return std::nullopt;
  return Expander(root, scop, options, lower_tree, log).run();
}

}  // namespace pz::poly
