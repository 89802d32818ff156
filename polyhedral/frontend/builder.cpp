#include "polyhedral/frontend/builder.h"

#include "polyhedral/transform/scalar_expansion.h"
#include "polyhedral/transform/scalar_forwarding.h"

#include <isl/aff.h>
#include <isl/map.h>
#include <isl/schedule.h>

#include <algorithm>
#include <functional>
#include <set>

#include "polyhedral/frontend/c_parser.h"
#include "polyhedral/frontend/frontend_error.h"
#include "polyhedral/ir/affine.h"
#include "polyhedral/ir/loop_tree_edit.h"

namespace pz::poly {

namespace {

// A loop or a condition enclosing a statement.
struct Frame {
  const LoopNode* node;
  bool else_branch = false;
};

class Lowering {
 public:
  Lowering(isl::ctx ctx, const LowerOptions& opt) : ctx_(ctx), opt_(opt) {}

  Scop run(const LoopNode& root) {
    scop_.ctx = ctx_;
    params_ = opt_.declared_params;
    std::vector<std::string> scope;
    collect_names(root, scope);
    scop_.params = params_;
    for (const auto& [name, value] : opt_.param_values)
      if (std::find(params_.begin(), params_.end(), name) != params_.end()) scop_.param_values[name] = value;
    scop_.extent_constants = opt_.extent_constants;
    build_context();
    pick_statement_prefix();
    std::vector<Frame> frames;
    // isl's C++ objects throw when a null one is copied: "no statement" is an empty optional.
    std::optional<isl::schedule> sched = lower_node(root, frames);
    scop_.schedule = sched ? *sched : isl::manage(isl_schedule_empty(isl_space_params_alloc(ctx_.get(), 0)));
    for (const auto& [name, rank] : ranks_) {
      Array a;
      a.name = name;
      a.rank = rank;
      if (auto it = opt_.element_types.find(name); it != opt_.element_types.end()) a.element_type = spelled_type(it->second, name, rank);
      if (auto it = opt_.type_names.find(name); it != opt_.type_names.end()) a.type_name = it->second;
      if (auto it = opt_.declared_extents.find(name); it != opt_.declared_extents.end() &&
                                                    static_cast<int>(it->second.size()) == rank)
        a.declared_extents = it->second;
      scop_.arrays.push_back(a);
    }
    return std::move(scop_);
  }

 private:
  bool is_param(const std::string& n) const { return std::find(params_.begin(), params_.end(), n) != params_.end(); }

  void note_param(const ExprPtr& e, const std::vector<std::string>& scope) {
    visit(e, [&](const ExprPtr& x) {
      if (x->kind == Expr::Kind::kName && std::find(scope.begin(), scope.end(), x->text) == scope.end() &&
          !is_param(x->text))
        params_.push_back(x->text);
    });
  }

  // First pass: parameters are the free names of affine positions.
  void collect_names(const LoopNode& n, std::vector<std::string>& scope) {
    switch (n.kind) {
      case LoopNode::Kind::kBlock:
        for (const auto& c : n.children) collect_names(*c, scope);
        break;
      case LoopNode::Kind::kFor:
        if (std::find(scope.begin(), scope.end(), n.iterator) != scope.end())
          throw FrontendError(n.loc, "loop iterator '" + n.iterator + "' reused by an inner loop");
        note_param(n.init, scope);
        scope.push_back(n.iterator);
        note_param(n.cond, scope);
        iterators_seen_.insert(n.iterator);
        if (!n.declares_iterator &&
            std::find(scop_.outer_iterators.begin(), scop_.outer_iterators.end(), n.iterator) == scop_.outer_iterators.end())
          scop_.outer_iterators.push_back(n.iterator);
        for (const auto& c : n.children) collect_names(*c, scope);
        scope.pop_back();
        break;
      case LoopNode::Kind::kIf:
        note_param(n.cond, scope);
        for (const auto& c : n.children) collect_names(*c, scope);
        for (const auto& c : n.else_children) collect_names(*c, scope);
        break;
      case LoopNode::Kind::kStmt: {
        auto subs = [&](const ExprPtr& root) {
          visit(root, [&](const ExprPtr& x) {
            if (x->kind == Expr::Kind::kAccess)
              for (const auto& s : x->args) note_param(s, scope);
          });
        };
        subs(n.lhs);
        if (n.rhs) subs(n.rhs);
        break;
      }
    }
  }

  void build_context() {
    AffineBuilder ab(ctx_, params_, "", {});
    isl::set params = ab.universe();
    for (const auto& [name, value] : scop_.param_values) {
      auto pos = std::find(params_.begin(), params_.end(), name) - params_.begin();
      params = isl::manage(isl_set_fix_si(params.release(), isl_dim_param, static_cast<unsigned>(pos), value));
    }
    scop_.context = params.params();
  }

  void pick_statement_prefix() {
    prefix_ = "S";
    auto clashes = [&](const std::string& p) {
      return std::any_of(params_.begin(), params_.end(), [&](const std::string& n) { return n.rfind(p, 0) == 0; }) ||
             std::any_of(iterators_seen_.begin(), iterators_seen_.end(),
                         [&](const std::string& n) { return n.rfind(p, 0) == 0; });
    };
    if (clashes(prefix_)) prefix_ = "pz_S";
  }

  using OptSchedule = std::optional<isl::schedule>;

  static OptSchedule sequence(const OptSchedule& a, const OptSchedule& b) {
    if (!a) return b;
    if (!b) return a;
    return isl::manage(isl_schedule_sequence(a->copy(), b->copy()));
  }

  OptSchedule lower_children(const std::vector<std::unique_ptr<LoopNode>>& children, std::vector<Frame>& frames) {
    OptSchedule s;
    for (const auto& c : children) s = sequence(s, lower_node(*c, frames));
    return s;
  }

  OptSchedule lower_node(const LoopNode& n, std::vector<Frame>& frames) {
    switch (n.kind) {
      case LoopNode::Kind::kBlock: return lower_children(n.children, frames);
      case LoopNode::Kind::kIf: {
        frames.push_back({&n, false});
        OptSchedule a = lower_children(n.children, frames);
        frames.back().else_branch = true;
        OptSchedule b = lower_children(n.else_children, frames);
        frames.pop_back();
        return sequence(a, b);
      }
      case LoopNode::Kind::kFor: {
        frames.push_back({&n, false});
        size_t first = scop_.statements.size();
        OptSchedule inner = lower_children(n.children, frames);
        frames.pop_back();
        if (!inner) return inner;
        // The band: this loop's iterator (negated for a decreasing loop) for every
        // statement inside it.
        size_t depth = 0;
        for (const auto& f : frames)
          if (f.node->kind == LoopNode::Kind::kFor) ++depth;
        isl::union_map band = isl::union_map::empty(ctx_);
        for (size_t i = first; i < scop_.statements.size(); ++i) {
          const Statement& s = scop_.statements[i];
          AffineBuilder ab(ctx_, params_, s.name, s.iterators);
          isl::pw_aff it = ab.iterator(static_cast<int>(depth));
          if (n.step < 0) it = it.neg();
          isl::map m = isl::manage(isl_map_from_pw_aff(it.release())).intersect_domain(s.domain);
          band = band.unite(isl::union_map(m));
        }
        // No instance of any statement inside runs (e.g. `if (i >= 3)` in a loop to 2): there
        // is nothing to order, and isl cannot build a partial schedule without a space.
        if (band.is_empty()) return inner;
        isl_multi_union_pw_aff* mupa = isl_multi_union_pw_aff_from_union_map(band.release());
        return isl::manage(isl_schedule_insert_partial_schedule(inner->copy(), mupa));
      }
      case LoopNode::Kind::kStmt: return lower_statement(n, frames);
    }
    return {};
  }

  OptSchedule lower_statement(const LoopNode& n, const std::vector<Frame>& frames) {
    Statement s;
    s.name = prefix_ + std::to_string(scop_.statements.size());
    s.loc = n.loc;
    s.lhs = n.lhs;
    s.op = n.op;
    s.rhs = n.rhs;
    for (const auto& f : frames)
      if (f.node->kind == LoopNode::Kind::kFor) s.iterators.push_back(f.node->iterator);
    AffineBuilder ab(ctx_, params_, s.name, s.iterators);
    isl::set domain = ab.universe();
    int depth = 0;
    for (const auto& f : frames) {
      const LoopNode& l = *f.node;
      if (l.kind == LoopNode::Kind::kFor) {
        ab.set_role("loop bound");
        isl::pw_aff it = ab.iterator(depth++);
        isl::pw_aff init = ab.expr(*l.init);
        domain = domain.intersect(l.step > 0 ? it.ge_set(init) : it.le_set(init));
        domain = domain.intersect(ab.condition(*l.cond));
        if (l.step != 1 && l.step != -1)
          domain = domain.intersect(it.sub(init).mod(std::llabs(l.step)).eq_set(ab.constant(0)));
      } else {
        ab.set_role("condition");
        isl::set c = ab.condition(*l.cond);
        domain = domain.intersect(f.else_branch ? c.complement() : c);
      }
    }
    domain = domain.intersect_params(scop_.context).coalesce();
    s.domain = domain;
    check_target(n, s);
    ab.set_role("subscript");
    add_access(s, ab, *n.lhs, true);
    if (n.op != "=") add_access(s, ab, *n.lhs, false);
    if (n.rhs) collect_reads(s, ab, n.rhs);
    scop_.statements.push_back(s);
    return isl::manage(isl_schedule_from_domain(isl_union_set_from_set(domain.copy())));
  }

  void check_target(const LoopNode& n, const Statement& s) {
    const std::string& target = n.lhs->text;
    if (std::find(s.iterators.begin(), s.iterators.end(), target) != s.iterators.end() ||
        iterators_seen_.count(target))
      throw FrontendError(n.lhs->loc, "assignment to loop iterator '" + target + "' inside the scop");
    if (is_param(target))
      throw FrontendError(n.lhs->loc, "assignment to '" + target +
                                          "', which is used in loop bounds, conditions or subscripts (parameters must not change in the scop)");
  }

  void collect_reads(Statement& s, AffineBuilder& ab, const ExprPtr& e) {
    switch (e->kind) {
      case Expr::Kind::kAccess: add_access(s, ab, *e, false); return;
      case Expr::Kind::kName:
        if (!is_param(e->text) && std::find(s.iterators.begin(), s.iterators.end(), e->text) == s.iterators.end())
          add_access(s, ab, *e, false);
        return;
      default:
        for (const auto& a : e->args) collect_reads(s, ab, a);
    }
  }

  void add_access(Statement& s, AffineBuilder& ab, const Expr& e, bool write) {
    if (e.kind == Expr::Kind::kName && iterators_seen_.count(e.text) &&
        std::find(s.iterators.begin(), s.iterators.end(), e.text) == s.iterators.end())
      throw FrontendError(e.loc, "use of loop iterator '" + e.text + "' outside its loop");
    int rank = e.kind == Expr::Kind::kAccess ? static_cast<int>(e.args.size()) : 0;
    auto [it, inserted] = ranks_.emplace(e.text, rank);
    if (!inserted && it->second != rank)
      throw FrontendError(e.loc, "'" + e.text + "' is used with " + std::to_string(rank) + " subscript(s) here and " +
                                     std::to_string(it->second) + " elsewhere");
    isl::map rel = isl::manage(isl_map_from_domain(s.domain.copy()));
    for (int i = 0; i < rank; ++i) {
      isl::pw_aff sub = ab.expr(*e.args[i]);
      rel = isl::manage(isl_map_flat_range_product(rel.release(), isl_map_from_pw_aff(sub.release())));
    }
    rel = isl::manage(isl_map_set_tuple_name(rel.release(), isl_dim_out, e.text.c_str()));
    rel = rel.intersect_domain(s.domain).coalesce();
    Access a;
    a.array = e.text;
    a.write = write;
    a.relation = rel;
    a.expr = std::make_shared<Expr>(e);
    s.accesses.push_back(a);
  }

  isl::ctx ctx_;
  const LowerOptions& opt_;
  Scop scop_;
  std::vector<std::string> params_;
  std::set<std::string> iterators_seen_;
  std::map<std::string, int> ranks_;
  std::string prefix_;
};

}  // namespace

Scop lower(isl::ctx ctx, const LoopNode& root, const LowerOptions& options) {
  Scop scop = Lowering(ctx, options).run(root);
  std::vector<std::string> notes, names;
  const std::unique_ptr<LoopNode> forwarded = forward_scalars(root, scop, options.dead_scalars, notes, names);
  if (forwarded) scop = Lowering(ctx, options).run(*forwarded);
  const LowerTree lower_tree = [&](const LoopNode& tree, const LowerOptions& o) { return Lowering(ctx, o).run(tree); };
  if (auto x = expand_scalars(forwarded ? *forwarded : root, scop, options, lower_tree, notes)) {
    scop = Lowering(ctx, x->options).run(*x->tree);
    std::map<const LoopNode*, const Statement*> numbered;
    number_statements(*x->tree, scop, numbered);
    std::set<std::string> copies;
    for (const LoopNode* c : x->copies) copies.insert(numbered.at(c)->name);
    keep_last_writes(scop, copies);
    for (Array& a : scop.arrays)
      a.local = std::find(x->local_arrays.begin(), x->local_arrays.end(), a.name) != x->local_arrays.end();
    for (const std::string& g : x->guards) scop.local_guard += (scop.local_guard.empty() ? "" : " && ") + g;
    names.insert(names.end(), x->removed_scalars.begin(), x->removed_scalars.end());
  }
  for (const std::string& name : names) {
    Array removed;
    removed.name = name;
    if (auto it = options.element_types.find(name); it != options.element_types.end()) removed.element_type = spelled_type(it->second, name, 0);
    if (auto it = options.type_names.find(name); it != options.type_names.end()) removed.type_name = it->second;
    scop.removed_scalars.push_back(removed);
  }
  scop.notes = std::move(notes);
  return scop;
}

ScopBuilder::ScopBuilder(isl::ctx ctx) : ctx_(ctx) { root_.kind = LoopNode::Kind::kBlock; }

ScopBuilder& ScopBuilder::param(const std::string& name, std::optional<long long> value) {
  if (std::find(options_.declared_params.begin(), options_.declared_params.end(), name) ==
      options_.declared_params.end())
    options_.declared_params.push_back(name);
  if (value) options_.param_values[name] = *value;
  return *this;
}

ScopBuilder& ScopBuilder::array(const std::string& name, const std::string& element_type) {
  options_.element_types[name] = element_type;
  return *this;
}

std::vector<std::unique_ptr<LoopNode>>& ScopBuilder::current() {
  if (stack_.empty()) return root_.children;
  return stack_.back().in_else ? stack_.back().node->else_children : stack_.back().node->children;
}

ScopBuilder& ScopBuilder::for_(const std::string& iterator, const std::string& lower, const std::string& upper,
                               long long step) {
  if (step == 0) throw FrontendError({}, "for_('" + iterator + "'): step 0");
  auto node = std::make_unique<LoopNode>();
  node->kind = LoopNode::Kind::kFor;
  node->iterator = iterator;
  node->declares_iterator = true;
  node->init = parse_c_expression(lower);
  auto it = Expr::make(Expr::Kind::kName, iterator);
  node->cond = Expr::make(Expr::Kind::kBinary, step > 0 ? "<" : ">", {it, parse_c_expression(upper)});
  node->step = step;
  LoopNode* raw = node.get();
  current().push_back(std::move(node));
  stack_.push_back({raw, false});
  return *this;
}

ScopBuilder& ScopBuilder::if_(const std::string& condition) {
  auto node = std::make_unique<LoopNode>();
  node->kind = LoopNode::Kind::kIf;
  node->cond = parse_c_expression(condition);
  LoopNode* raw = node.get();
  current().push_back(std::move(node));
  stack_.push_back({raw, false});
  return *this;
}

ScopBuilder& ScopBuilder::else_() {
  if (stack_.empty() || stack_.back().node->kind != LoopNode::Kind::kIf || stack_.back().in_else)
    throw FrontendError({}, "else_() without an open if_()");
  stack_.back().in_else = true;
  return *this;
}

ScopBuilder& ScopBuilder::end() {
  if (stack_.empty()) throw FrontendError({}, "end() without an open for_() or if_()");
  stack_.pop_back();
  return *this;
}

ScopBuilder& ScopBuilder::stmt(const std::string& text) {
  current().push_back(parse_c_assignment(text));
  return *this;
}

Scop ScopBuilder::build() {
  if (!stack_.empty()) throw FrontendError({}, "build(): " + std::to_string(stack_.size()) + " for_()/if_() not closed by end()");
  return lower(ctx_, root_, options_);
}

}  // namespace pz::poly
