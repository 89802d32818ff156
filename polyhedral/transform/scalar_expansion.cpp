#include "polyhedral/transform/scalar_expansion.h"

#include <isl/schedule.h>
#include <isl/union_map.h>

#include <set>

#include "polyhedral/analysis/dependences.h"
#include "polyhedral/frontend/c_parser.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/ir/loop_tree_edit.h"
#include "polyhedral/ir/point_count.h"
#include "polyhedral/transform/parallel_marks.h"

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

void number_nodes(const LoopNode& n, std::map<const LoopNode*, int>& out) {
  out.emplace(&n, static_cast<int>(out.size()));
  for (const auto& c : n.children) number_nodes(*c, out);
  for (const auto& c : n.else_children) number_nodes(*c, out);
}

// Every node of the tree under `root`, numbered in pre-order.
std::map<const LoopNode*, int> pre_order(const LoopNode& root) {
  std::map<const LoopNode*, int> out;
  number_nodes(root, out);
  return out;
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

// The accesses to `array` in `statements` (all under the loop at `depth`) as maps from the
// iteration of the loops down to it to the element; only the writes when `writes_only`.
isl::union_map touches_by_iteration(const std::vector<const Statement*>& statements, const std::string& array, int depth,
                                    bool writes_only) {
  isl::union_map out;
  for (const Statement* s : statements)
    for (const Access& a : s->accesses) {
      if (a.array != array || (writes_only && !a.write)) continue;
      isl_map* m = a.relation.copy();
      m = isl_map_project_out(m, isl_dim_in, depth, isl_map_dim(m, isl_dim_in) - depth);
      const isl::union_map u(isl::manage(isl_map_reset_tuple_id(m, isl_dim_in)));
      out = out.is_null() ? u : out.unite(u);
    }
  return out;
}

// Whether two iterations of the loop at `depth` (in one iteration of the loops around it)
// touch an element of `array` in common, one of them writing it: the reuse of storage that
// expansion removes. An array each iteration touches apart gains nothing from it.
bool reused_across_iterations(const std::vector<const Statement*>& statements, const std::string& array, int depth) {
  const isl::union_map writes = touches_by_iteration(statements, array, depth, true);
  const isl::union_map all = touches_by_iteration(statements, array, depth, false);
  if (writes.is_null() || all.is_null()) return false;
  for (const isl::map& pairs : maps_of(writes.apply_range(all.reverse()))) {
    isl_map* outer_same = isl_map_universe(isl_map_get_space(pairs.get()));
    for (int i = 0; i + 1 < depth; ++i) outer_same = isl_map_equate(outer_same, isl_dim_in, i, isl_dim_out, i);
    isl_map* same = isl_map_equate(isl_map_copy(outer_same), isl_dim_in, depth - 1, isl_dim_out, depth - 1);
    isl_map* across = isl_map_subtract(outer_same, same);
    const bool reused = !pairs.intersect(isl::manage(across)).is_empty();
    if (reused) return true;
  }
  return false;
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

// The ancestors of a node below the region's root, outermost first, each with whether the
// node lies in its else branch.
using Path = std::vector<std::pair<const LoopNode*, bool>>;

struct Choice {
  std::string scalar, array;  // the expanded variable (a scalar or an array) and its new array
  ExprPtr index;              // the loop's iterator
  bool is_array = false;      // an array: its accesses gain `index` as their first subscript
  const LoopNode* loop = nullptr;
  Path path;                  // the loop's ancestors
};

// An array's declared extents as numbers; nullopt when one is not a known positive constant.
std::optional<std::vector<long long>> declared_constant_extents(const Array& a,
                                                                const std::map<std::string, long long>& constants) {
  if (static_cast<int>(a.declared_extents.size()) != a.rank) return std::nullopt;
  std::vector<long long> out;
  for (const std::string& text : a.declared_extents) {
    const std::optional<long long> e = evaluate_text(text, constants);
    if (!e || *e <= 0) return std::nullopt;
    out.push_back(*e);
  }
  return out;
}

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
    x.tree = expanded_tree(&x.copies);
    x.options = options_with_arrays();
    x.guards = guards_;
    std::set<std::string> scalars;
    for (const auto& [loop, choices] : chosen_)
      for (const Choice& c : choices) {
        x.local_arrays.push_back(c.array);
        if (!c.is_array) scalars.insert(c.scalar);
      }
    for (const std::string& s : scalars)
      if (!tree_mentions(*x.tree, s)) x.removed_scalars.push_back(s);
    return x;
  }

 private:
  void visit_loops(const LoopNode& n, int depth) {
    for (const bool in_else : {false, true})
      for (const auto& c : in_else ? n.else_children : n.children) {
        if (&n != &root_) path_.emplace_back(&n, in_else);
        if (c->kind != LoopNode::Kind::kFor) {
          visit_loops(*c, depth);
        } else if (!try_loop(*c, depth + 1)) {
          visit_loops(*c, depth + 1);
        }
        if (&n != &root_) path_.pop_back();
      }
  }

  // The arrays `loop` may expand: written under it, every access of theirs in the region
  // under it and under no loop inside it (the innermost loop around them all: each element
  // then serves as many iterations as it can), of constant declared extents.
  std::vector<const Array*> array_candidates(const LoopNode& loop, const std::vector<const Statement*>& statements) const {
    std::vector<const Array*> out;
    if (root_.kind != LoopNode::Kind::kBlock) return out;  // no place for the copy-out
    for (const Array& a : scop_.arrays) {
      if (a.rank == 0 || a.local || !writes(statements, a.name)) continue;
      const std::set<std::string> touching = statements_touching(a.name);
      if (!covers(loop, touching) || inner_loop_covers(loop, touching)) continue;
      if (declared_constant_extents(a, options_.extent_constants)) out.push_back(&a);
    }
    return out;
  }

  std::set<std::string> statements_touching(const std::string& array) const {
    std::set<std::string> out;
    for (const auto& s : scop_.statements)
      for (const auto& a : s.accesses)
        if (a.array == array) out.insert(s.name);
    return out;
  }

  bool covers(const LoopNode& n, const std::set<std::string>& names) const {
    std::vector<const Statement*> under;
    statements_under(n, numbered_, under);
    std::size_t found = 0;
    for (const Statement* s : under) found += names.count(s->name);
    return found == names.size();
  }

  bool inner_loop_covers(const LoopNode& n, const std::set<std::string>& names) const {
    for (const bool in_else : {false, true})
      for (const auto& c : in_else ? n.else_children : n.children)
        if (c->kind == LoopNode::Kind::kFor ? covers(*c, names) : inner_loop_covers(*c, names)) return true;
    return false;
  }

  // Expands the scalars `loop` (at `depth`) can take, when that makes it parallel.
  bool try_loop(const LoopNode& loop, int depth) {
    std::vector<const Statement*> statements;
    statements_under(loop, numbered_, statements);
    std::set<std::string> inside;
    for (const Statement* s : statements) inside.insert(s->name);
    std::vector<std::string> scalars, arrays;
    for (const std::string& s : options_.dead_scalars) {
      const Array* array = scop_.array(s);
      if (!array || array->rank != 0 || !writes(statements, s)) continue;
      if (stays_in_iterations(flow(s), inside, depth)) scalars.push_back(s);
    }
    for (const Array* a : array_candidates(loop, statements))
      if (reused_across_iterations(statements, a->name, depth) && stays_in_iterations(flow(a->name), inside, depth))
        arrays.push_back(a->name);
    if (!scalars.empty() && !walks_rows(scop_, statements, depth)) {
      refuse(joined(scalars) + " along " + loop.iterator, "no array's last subscript is " + loop.iterator);
      scalars.clear();
    }
    if (scalars.empty() && arrays.empty()) return false;
    std::vector<std::string> variables = scalars;
    variables.insert(variables.end(), arrays.begin(), arrays.end());
    const std::string what = joined(variables) + " along " + loop.iterator;
    const Extent extent = extent_of(scop_, statements, depth, options_.extent_constants);
    if (extent.elements <= 0) return refuse(what, extent.why);
    long long bytes = 0;
    for (const std::string& v : variables) bytes = saturating_sum(bytes, saturating_product(extent.elements, variable_bytes(v)));
    if (bytes_ + bytes > kMaxExpansionBytes)
      return refuse(what, std::to_string(bytes_ + bytes) + " bytes of arrays, over " + std::to_string(kMaxExpansionBytes));
    std::vector<Choice>& choices = chosen_[&loop];
    const ExprPtr index = Expr::make(Expr::Kind::kName, loop.iterator);
    for (const std::string& v : variables) {
      const Array* original = scop_.array(v);
      Choice c{v, fresh_name("pz_" + v), index, original->rank > 0, &loop, path_};
      std::vector<std::string> dims{std::to_string(extent.elements)};
      if (c.is_array) {
        const std::vector<long long> extents = *declared_constant_extents(*original, options_.extent_constants);
        for (long long e : extents) dims.push_back(std::to_string(e));
      }
      extents_[c.array] = dims;
      types_[c.array] = original->element_type;  // the scalar's or the array's, as the program spells it
      if (!original->type_name.empty()) type_names_[c.array] = original->type_name;
      choices.push_back(c);
    }
    if (!becomes_parallel(inside, depth)) {
      for (const Choice& c : choices) {
        extents_.erase(c.array);
        types_.erase(c.array);
        type_names_.erase(c.array);
        used_.erase(c.array);
      }
      chosen_.erase(&loop);
      return refuse(what, loop.iterator + " would still carry other dependences");
    }
    bytes_ += bytes;
    if (!extent.guard.empty()) guards_.push_back(extent.guard);
    std::string into;
    for (const Choice& c : choices) {
      into += (into.empty() ? "" : ", ") + c.array;
      for (const std::string& d : extents_.at(c.array)) into += "[" + d + "]";
    }
    log_.push_back("scalar expansion: " + what + " into " + into + (extent.guard.empty() ? "" : " (when " + extent.guard + ")") +
                   "; " + loop.iterator + " is parallel" + (arrays.empty() ? "" : "; final values copied out"));
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

  const ScalarFlow& flow(const std::string& variable) {
    if (!flows_.count(variable)) flows_.emplace(variable, flow_of(scop_, variable));
    return flows_.at(variable);
  }

  // The bytes of one iteration's copy of a scalar or an array.
  long long variable_bytes(const std::string& variable) const {
    const Array* original = scop_.array(variable);
    if (original->rank > 0) {
      const std::vector<long long> extents = *declared_constant_extents(*original, options_.extent_constants);
      long long bytes = original->element_bytes();
      for (long long e : extents) bytes = saturating_product(bytes, e);
      return bytes;
    }
    return original->element_bytes();
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
    for (const auto& [array, dims] : extents_) {
      o.element_types[array] = types_.at(array);
      if (auto it = type_names_.find(array); it != type_names_.end()) o.type_names[array] = it->second;
      o.declared_extents[array] = dims;
    }
    return o;
  }

  // The region with the chosen variables expanded, and after it, for each expanded array,
  // its copy-out (the statements in `copies`).
  std::unique_ptr<LoopNode> expanded_tree(std::vector<const LoopNode*>* copies = nullptr) const {
    std::unique_ptr<LoopNode> copy = clone(root_);
    rewrite(*copy, root_, {});
    for (const auto& [loop, choices] : chosen_)
      for (const Choice& c : choices)
        if (c.is_array) {
          std::unique_ptr<LoopNode> nest = copy_out(c);
          if (copies) collect_statements(*nest, *copies);
          copy->children.push_back(std::move(nest));
        }
    return copy;
  }

  // The copy-out of an expanded array: the loops and conditions around its writes, each write
  // `A[e] op= ...` turned into `A[e] = pz_A[index][e]`, after the region. Run in full it
  // would leave each element the value of its last write in source order; lowering keeps
  // only those last instances (keep_last_writes).
  static std::unique_ptr<LoopNode> copy_out(const Choice& c) {
    std::unique_ptr<LoopNode> nest = copies_under(*c.loop, c);
    for (auto it = c.path.rbegin(); it != c.path.rend(); ++it) {
      std::unique_ptr<LoopNode> outer = shallow_clone(*it->first);
      (it->second ? outer->else_children : outer->children).push_back(std::move(nest));
      nest = std::move(outer);
    }
    return nest;
  }

  static std::unique_ptr<LoopNode> copies_under(const LoopNode& n, const Choice& c) {
    if (n.kind == LoopNode::Kind::kStmt) {
      if (!n.lhs || n.lhs->kind != Expr::Kind::kAccess || n.lhs->text != c.scalar) return nullptr;
      std::unique_ptr<LoopNode> s = shallow_clone(n);
      s->op = "=";
      s->rhs = prefix_subscript(n.lhs, c.scalar, c.array, c.index);
      return s;
    }
    std::unique_ptr<LoopNode> out = shallow_clone(n);
    for (const auto& x : n.children)
      if (auto y = copies_under(*x, c)) out->children.push_back(std::move(y));
    for (const auto& x : n.else_children)
      if (auto y = copies_under(*x, c)) out->else_children.push_back(std::move(y));
    if (out->children.empty() && out->else_children.empty()) return nullptr;
    return out;
  }

  static void collect_statements(const LoopNode& n, std::vector<const LoopNode*>& out) {
    if (n.kind == LoopNode::Kind::kStmt) out.push_back(&n);
    for (const auto& c : n.children) collect_statements(*c, out);
    for (const auto& c : n.else_children) collect_statements(*c, out);
  }

  // The statements under `original` (copied as `copy`) with the chosen scalars replaced by
  // their elements: `active` from the loops above, and the node's own when it is one.
  void rewrite(LoopNode& copy, const LoopNode& original, std::vector<const Choice*> active) const {
    if (auto it = chosen_.find(&original); it != chosen_.end())
      for (const Choice& c : it->second) active.push_back(&c);
    if (copy.kind == LoopNode::Kind::kStmt) {
      for (const Choice* c : active) {
        copy.lhs = expanded(copy.lhs, *c);
        if (copy.rhs) copy.rhs = expanded(copy.rhs, *c);
      }
      return;
    }
    for (std::size_t i = 0; i < copy.children.size(); ++i) rewrite(*copy.children[i], *original.children[i], active);
    for (std::size_t i = 0; i < copy.else_children.size(); ++i)
      rewrite(*copy.else_children[i], *original.else_children[i], active);
  }

  static ExprPtr expanded(const ExprPtr& e, const Choice& c) {
    if (c.is_array) return prefix_subscript(e, c.scalar, c.array, c.index);
    return substitute(e, c.scalar, Expr::make(Expr::Kind::kAccess, c.array, {c.index}));
  }

  const LoopNode& root_;
  const Scop& scop_;
  const LowerOptions& options_;
  const LowerTree& lower_tree_;
  std::vector<std::string>& log_;
  StatementMap numbered_;
  std::set<std::string> used_;
  std::map<std::string, ScalarFlow> flows_;
  // The loops in the tree's pre-order, so that chosen_ (and the copy-outs, the new arrays
  // and the statements' names that follow from it) come in source order, not in the order
  // of the nodes' addresses.
  std::map<const LoopNode*, int> source_order_ = pre_order(root_);
  struct InSourceOrder {
    const std::map<const LoopNode*, int>* order;
    bool operator()(const LoopNode* a, const LoopNode* b) const { return order->at(a) < order->at(b); }
  };
  std::map<const LoopNode*, std::vector<Choice>, InSourceOrder> chosen_{InSourceOrder{&source_order_}};
  std::map<std::string, std::vector<std::string>> extents_;  // a new array's extents
  Path path_;  // the ancestors of the node visited
  std::map<std::string, std::string> types_;
  std::map<std::string, std::string> type_names_;  // of the expanded arrays whose types_ is a __typeof__
  std::vector<std::string> guards_;
  long long bytes_ = 0;
};

}  // namespace

void keep_last_writes(Scop& scop, const std::set<std::string>& statements) {
  if (statements.empty()) return;
  isl::union_map writes = isl::union_map::empty(scop.ctx);
  for (const Statement& s : scop.statements)
    if (statements.count(s.name)) writes = writes.unite(isl::union_map(s.accesses.front().relation));
  const isl::union_map order = scop.schedule.get_map().intersect_domain(writes.domain());
  const isl::union_map later = isl::manage(isl_union_map_lex_lt_union_map(order.copy(), order.copy()));
  const isl::union_set overwritten = later.intersect(writes.apply_range(writes.reverse())).domain();
  for (Statement& s : scop.statements) {
    if (!statements.count(s.name)) continue;
    s.domain = isl::union_set(s.domain).subtract(overwritten).extract_set(s.domain.get_space()).coalesce();
    for (Access& a : s.accesses) a.relation = a.relation.intersect_domain(s.domain);
  }
  scop.schedule = isl::manage(isl_schedule_intersect_domain(scop.schedule.release(), scop.domain().release()));
}

std::optional<ScalarExpansion> expand_scalars(const LoopNode& root, const Scop& scop, const LowerOptions& options,
                                              const LowerTree& lower_tree, std::vector<std::string>& log) {
  return Expander(root, scop, options, lower_tree, log).run();
}

}  // namespace pz::poly
