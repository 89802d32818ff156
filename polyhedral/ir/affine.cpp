#include "polyhedral/ir/affine.h"

#include <isl/aff.h>
#include <isl/local_space.h>
#include <isl/space.h>

#include <algorithm>

#include "polyhedral/frontend/frontend_error.h"

namespace pz::poly {

bool is_affine_function(const std::string& n) {
  return n == "min" || n == "max" || n == "MIN" || n == "MAX" || n == "floord" || n == "ceild";
}

AffineBuilder::AffineBuilder(isl::ctx ctx, const std::vector<std::string>& params, const std::string& tuple,
                             const std::vector<std::string>& iterators)
    : ctx_(ctx), params_(params), iterators_(iterators) {
  isl_space* sp = isl_space_set_alloc(ctx.get(), params.size(), iterators.size());
  for (size_t i = 0; i < params.size(); ++i)
    sp = isl_space_set_dim_id(sp, isl_dim_param, i, isl_id_alloc(ctx.get(), params[i].c_str(), nullptr));
  for (size_t i = 0; i < iterators.size(); ++i)
    sp = isl_space_set_dim_id(sp, isl_dim_set, i, isl_id_alloc(ctx.get(), iterators[i].c_str(), nullptr));
  if (!tuple.empty()) sp = isl_space_set_tuple_name(sp, isl_dim_set, tuple.c_str());
  space_ = isl::manage(sp);
}

isl::set AffineBuilder::universe() const { return isl::set::universe(space_); }

isl::pw_aff AffineBuilder::constant(long long v) const {
  isl_local_space* ls = isl_local_space_from_space(space_.copy());
  isl_val* val = isl_val_int_from_si(isl_space_get_ctx(space_.get()), v);
  return isl::manage(isl_pw_aff_from_aff(isl_aff_val_on_domain(ls, val)));
}

isl::pw_aff AffineBuilder::iterator(int pos) const {
  isl_local_space* ls = isl_local_space_from_space(space_.copy());
  return isl::manage(isl_pw_aff_from_aff(isl_aff_var_on_domain(ls, isl_dim_set, pos)));
}

long long AffineBuilder::constant_value(const isl::pw_aff& pa, const Expr& where) const {
  if (isl_pw_aff_is_cst(pa.get()) == isl_bool_true && isl_pw_aff_isa_aff(pa.get()) == isl_bool_true) {
    isl::aff aff = isl::manage(isl_pw_aff_as_aff(pa.copy()));
    isl::val v = aff.constant_val();
    if (!v.is_null() && v.is_int()) return v.get_num_si();
  }
  throw FrontendError(where.loc, "non-affine " + role_ + ": " + describe(where) +
                                     " needs a constant operand (got '" + to_c(where) + "')");
}

isl::pw_aff AffineBuilder::expr(const Expr& e) const {
  using K = Expr::Kind;
  auto fail = [&](const std::string& why) -> isl::pw_aff {
    throw FrontendError(e.loc, "non-affine " + role_ + ": " + why + " in '" + to_c(e) + "'");
  };
  switch (e.kind) {
    case K::kInt: {
      std::string t = e.text;
      while (!t.empty() && (t.back() == 'l' || t.back() == 'L' || t.back() == 'u' || t.back() == 'U')) t.pop_back();
      return constant(std::stoll(t, nullptr, 0));
    }
    case K::kName: {
      auto it = std::find(iterators_.begin(), iterators_.end(), e.text);
      if (it != iterators_.end()) return iterator(static_cast<int>(it - iterators_.begin()));
      auto pt = std::find(params_.begin(), params_.end(), e.text);
      if (pt == params_.end()) return fail("unknown variable '" + e.text + "'");
      isl_local_space* ls = isl_local_space_from_space(space_.copy());
      return isl::manage(isl_pw_aff_from_aff(
          isl_aff_var_on_domain(ls, isl_dim_param, static_cast<unsigned>(pt - params_.begin()))));
    }
    case K::kUnary:
      if (e.text == "-") return expr(*e.args[0]).neg();
      if (e.text == "+") return expr(*e.args[0]);
      return fail(describe(e));
    case K::kCast:
      if (e.text == "int" || e.text == "long" || e.text == "long long") return expr(*e.args[0]);
      return fail(describe(e));
    case K::kBinary: {
      const std::string& op = e.text;
      if (op == "+") return expr(*e.args[0]).add(expr(*e.args[1]));
      if (op == "-") return expr(*e.args[0]).sub(expr(*e.args[1]));
      if (op == "*") {
        isl::pw_aff a = expr(*e.args[0]), b = expr(*e.args[1]);
        if (isl_pw_aff_is_cst(a.get()) == isl_bool_true) return b.scale(constant_value(a, *e.args[0]));
        if (isl_pw_aff_is_cst(b.get()) == isl_bool_true) return a.scale(constant_value(b, *e.args[1]));
        return fail("product of two non-constant expressions");
      }
      if (op == "/" || op == "%") {
        isl::pw_aff a = expr(*e.args[0]);
        long long d = constant_value(expr(*e.args[1]), *e.args[1]);
        if (d <= 0) return fail("division by a non-positive constant");
        return op == "/" ? a.tdiv_q(constant(d)) : a.tdiv_r(constant(d));
      }
      return fail(describe(e));
    }
    case K::kCall: {
      const std::string& f = e.text;
      if ((f == "min" || f == "max" || f == "MIN" || f == "MAX") && e.args.size() >= 2) {
        isl::pw_aff r = expr(*e.args[0]);
        for (size_t i = 1; i < e.args.size(); ++i)
          r = (f == "min" || f == "MIN") ? r.min(expr(*e.args[i])) : r.max(expr(*e.args[i]));
        return r;
      }
      if ((f == "floord" || f == "ceild") && e.args.size() == 2) {
        isl::pw_aff a = expr(*e.args[0]);
        long long d = constant_value(expr(*e.args[1]), *e.args[1]);
        if (d <= 0) return fail("division by a non-positive constant");
        isl::pw_aff q = a.div(constant(d));
        return f == "floord" ? q.floor() : q.ceil();
      }
      return fail(describe(e));
    }
    case K::kTernary: {
      isl::set c = condition(*e.args[0]);
      isl::pw_aff t = expr(*e.args[1]), f = expr(*e.args[2]);
      return t.intersect_domain(c).union_add(f.intersect_domain(c.complement()));
    }
    default: return fail(describe(e));
  }
}

isl::set AffineBuilder::condition(const Expr& e) const {
  using K = Expr::Kind;
  if (e.kind == K::kBinary) {
    const std::string& op = e.text;
    if (op == "&&") return condition(*e.args[0]).intersect(condition(*e.args[1]));
    if (op == "||") return condition(*e.args[0]).unite(condition(*e.args[1])).coalesce();
    if (op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=") {
      isl::pw_aff a = expr(*e.args[0]), b = expr(*e.args[1]);
      if (op == "<") return a.lt_set(b);
      if (op == "<=") return a.le_set(b);
      if (op == ">") return a.gt_set(b);
      if (op == ">=") return a.ge_set(b);
      if (op == "==") return a.eq_set(b);
      return a.ne_set(b);
    }
  }
  if (e.kind == K::kUnary && e.text == "!") return condition(*e.args[0]).complement();
  if (e.kind == K::kInt) return std::stoll(e.text, nullptr, 0) ? universe() : isl::set::empty(space_);
  // A bare affine value is true when non-zero, as in C.
  return expr(e).ne_set(constant(0));
}

}  // namespace pz::poly
