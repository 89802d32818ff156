#include "polyhedral/transform/reductions.h"

#include <isl/fixed_box.h>
#include <isl/map.h>
#include <isl/val.h>

#include <map>
#include <set>
#include <sstream>

#include "polyhedral/analysis/dependences.h"
#include "polyhedral/analysis/legality.h"
#include "polyhedral/frontend/c_parser.h"
#include "polyhedral/ir/expr.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/transform/loop_order.h"

namespace pz::poly {

namespace {

// Private copies above this would risk the threads' stacks (OMP_STACKSIZE is often 2-8 MB).
constexpr long long kMaxPrivateBytes = 256 * 1024;

bool touches(const Expr& e, const std::string& array) {
  bool found = false;
  visit(std::make_shared<const Expr>(e), [&](const ExprPtr& x) {
    if ((x->kind == Expr::Kind::kAccess || x->kind == Expr::Kind::kName) && x->text == array) found = true;
  });
  return found;
}

std::string array_of(const Expr& lhs) { return lhs.text; }

// "[lo:len]" of the elements of `array` that `statement_names` access below the band, or
// "" when the box is not constant.
std::string section(const isl::union_set& domain, const Scop& scop, const std::string& array, long long& length) {
  isl::union_map accessed = isl::union_map::empty(scop.ctx);
  for (const auto& s : scop.statements)
    for (const auto& a : s.accesses)
      if (a.array == array) accessed = accessed.unite(isl::union_map(a.relation));
  isl::union_set elements = accessed.intersect_domain(domain).range();
  auto sets = sets_of(elements);
  if (sets.size() != 1) return "";
  isl::map m = isl::manage(isl_map_from_range(sets[0].copy()));
  isl_fixed_box* box = isl_map_get_range_simple_fixed_box_hull(m.get());
  std::string out;
  if (isl_fixed_box_is_valid(box) == isl_bool_true) {
    isl_multi_aff* offset = isl_fixed_box_get_offset(box);
    isl_multi_val* size = isl_fixed_box_get_size(box);
    isl_aff* lo = isl_multi_aff_get_aff(offset, 0);
    isl_val* n = isl_multi_val_get_val(size, 0);
    if (isl_aff_is_cst(lo) == isl_bool_true) {
      isl_val* c = isl_aff_get_constant_val(lo);
      if (isl_val_is_int(c) == isl_bool_true) {
        std::ostringstream text;  // (not operator+: gcc 12 warns falsely on it here)
        length = isl_val_get_num_si(n);
        text << '[' << isl_val_get_num_si(c) << ':' << length << ']';
        out = text.str();
      }
      isl_val_free(c);
    }
    isl_aff_free(lo);
    isl_val_free(n);
    isl_multi_aff_free(offset);
    isl_multi_val_free(size);
  }
  isl_fixed_box_free(box);
  return out;
}

}  // namespace

std::optional<Update> update_form(const Statement& s) {
  if (!s.lhs || !s.rhs) return std::nullopt;
  if (s.op == "+=" || s.op == "-=" || s.op == "*=") return Update{s.op[0] == '*' ? '*' : '+', s.rhs.get()};
  if (s.op != "=" || s.rhs->kind != Expr::Kind::kBinary || s.rhs->args.size() != 2) return std::nullopt;
  const std::string& op = s.rhs->text;
  if (op != "+" && op != "-" && op != "*") return std::nullopt;
  const std::string target = to_c(*s.lhs);
  const Expr* left = s.rhs->args[0].get();
  const Expr* right = s.rhs->args[1].get();
  const Expr* other = nullptr;
  if (to_c(*left) == target) other = right;
  else if (op != "-" && to_c(*right) == target) other = left;
  if (!other) return std::nullopt;
  return Update{op == "*" ? '*' : '+', other};
}

std::optional<Reduction> statement_reduction(const Statement& s) {
  auto u = update_form(s);
  if (!u || touches(*u->operand, array_of(*s.lhs))) return std::nullopt;
  return Reduction{array_of(*s.lhs), u->op};
}

namespace {

enum class TypeClass { kInteger, kFloating, kUnknown };

// Known only where every word is an arithmetic type keyword (or const, volatile): a cast's
// `(acc_t)` or `(DATA_TYPE)` names a type that may be an int or a float.
TypeClass type_class(const std::string& type) {
  if (!is_named_type(type)) return TypeClass::kUnknown;
  std::istringstream words(type);
  bool floating = false;
  for (std::string w; words >> w;) {
    if (w == "const" || w == "volatile") continue;
    if (!is_type_keyword(w)) return TypeClass::kUnknown;
    floating = floating || w == "float" || w == "double";
  }
  return floating ? TypeClass::kFloating : TypeClass::kInteger;
}

}  // namespace

bool update_may_be_reordered(const Statement& s, const Scop& scop) {
  const auto u = update_form(s);
  if (!u || !s.lhs) return false;
  const Array* target = scop.array(s.lhs->text);
  const TypeClass element = target ? type_class(target->element_type) : TypeClass::kUnknown;
  if (element == TypeClass::kFloating) return true;
  const std::string element_name = target ? target->type_name : "";
  // Parts of a floating type, and parts of an unknown type other than the element's own
  // (a call, or a type name the element's declaration does not spell).
  bool floating = false, foreign = false;
  auto part = [&](const std::string& type, const std::string& name) {
    const TypeClass c = type_class(type);
    floating = floating || c == TypeClass::kFloating;
    foreign = foreign || (c == TypeClass::kUnknown && (name.empty() || name != element_name));
  };
  visit(std::make_shared<const Expr>(*u->operand), [&](const ExprPtr& x) {
    switch (x->kind) {
      case Expr::Kind::kFloat: floating = true; break;
      case Expr::Kind::kCall: foreign = true; break;
      case Expr::Kind::kCast: part(x->text, x->text); break;
      case Expr::Kind::kAccess:
      case Expr::Kind::kName: {
        const Array* a = scop.array(x->text);
        if (a) part(a->element_type, a->type_name);  // else an iterator or a size: an integer
        break;
      }
      default: break;
    }
  });
  // An integer element, or an unknown one, updated by integers and by values of the
  // element's own type name (PolyBench's DATA_TYPE by DATA_TYPE), whatever that type is.
  return !floating && !foreign;
}

namespace {

bool accumulates(const isl::schedule_node& band, int pos, const Statement& s, const Scop& scop) {
  if (s.accesses.empty() || !s.accesses[0].write || !update_may_be_reordered(s, scop)) return false;
  const isl::map& target = s.accesses[0].relation;
  if (access_stride(band, pos, target) != AccessStride::kInvariant) return false;
  // s -> s' where s' reads the element s updates, the update's own read of it excepted
  // (one read: a second one, `X = X + X`, is no sum).
  isl::union_map reads_of_target = isl::union_map::empty(scop.ctx);
  bool own_read_seen = false;
  for (size_t i = 1; i < s.accesses.size(); ++i) {
    const Access& a = s.accesses[i];
    if (a.write) return false;
    if (a.array != s.accesses[0].array) continue;
    if (!own_read_seen && a.relation.is_equal(target)) {
      own_read_seen = true;
      continue;
    }
    reads_of_target = reads_of_target.unite(isl::union_map(target.apply_range(a.relation.reverse())));
  }
  return !relates_within_one_loop_run(band, pos, reads_of_target);
}

}  // namespace

std::vector<std::string> accumulating_statements(const isl::schedule_node& band, int pos, const Scop& scop) {
  std::vector<std::string> names;
  for (const isl::set& instances : sets_of(node_domain(band))) {
    const Statement* s = scop.statement(isl_set_get_tuple_name(instances.get()));
    if (s && accumulates(band, pos, *s, scop)) names.push_back(s->name);
  }
  return names;
}

std::optional<std::string> reduction_clause(const isl::schedule_node& band, const Scop& scop) {
  const isl::union_set domain = node_domain(band);
  std::set<std::string> below;
  for (const isl::set& s : sets_of(domain)) below.insert(isl_set_get_tuple_name(s.get()));
  // Candidate arrays, each with its operator; an array also touched otherwise is dropped.
  std::map<std::string, char> candidates;
  std::set<std::string> excluded;
  std::map<std::string, std::optional<Reduction>> reductions;  // per statement below
  for (const auto& s : scop.statements) {
    if (!below.count(s.name)) continue;
    auto r = reductions[s.name] = update_may_be_reordered(s, scop) ? statement_reduction(s) : std::nullopt;
    if (r && !excluded.count(r->array)) {
      auto [it, fresh] = candidates.emplace(r->array, r->op);
      if (!fresh && it->second != r->op) excluded.insert(r->array);
    }
  }
  for (const auto& [name, r] : reductions)
    for (const auto& a : scop.statement(name)->accesses)
      if (candidates.count(a.array) && !(r && r->array == a.array)) excluded.insert(a.array);
  for (const auto& x : excluded) candidates.erase(x);
  if (candidates.empty()) return std::nullopt;

  std::string clause;
  for (const auto& [array, op] : candidates) {
    const Array* decl = scop.array(array);
    if (!decl || decl->rank > 1) return std::nullopt;
    std::string item = array;
    if (decl->rank == 1) {
      long long length = 0;
      const std::string range = section(domain, scop, array, length);
      // OpenMP runtimes keep each thread's private copy of a section on its stack.
      if (range.empty() || length * decl->element_bytes() > kMaxPrivateBytes) return std::nullopt;
      item += range;
    }
    if (!clause.empty()) clause += ' ';
    clause += std::string("reduction(") + op + ":" + item + ")";
  }
  // Each thread's private copy stands in for the reduction accesses: without them, the
  // loop must carry nothing.
  Scop privatized = scop;
  for (auto& s : privatized.statements) {
    if (!below.count(s.name)) continue;
    std::vector<Access> kept;
    for (const auto& a : s.accesses)
      if (!candidates.count(a.array)) kept.push_back(a);
    s.accesses = std::move(kept);
  }
  const isl::union_map deps = compute_dependences(privatized).validity();
  if (!band_member_is_parallel(band, 0, deps)) return std::nullopt;
  return clause;
}

}  // namespace pz::poly
