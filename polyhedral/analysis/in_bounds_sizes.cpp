#include "polyhedral/analysis/in_bounds_sizes.h"

#include <isl/set.h>
#include <isl/val.h>

#include <algorithm>
#include <climits>

#include "polyhedral/frontend/c_parser.h"
#include "polyhedral/frontend/frontend_error.h"

namespace pz::poly {

namespace {

// The declared extent as an isl affine expression of the parameters (an integer where it
// evaluates with the scop's extent constants), or nullopt when it is not one (a name that
// is no parameter, a division).
std::optional<std::string> isl_extent(const std::string& text, const Scop& scop) {
  if (const std::optional<long long> value = evaluate_text(text, scop.extent_constants)) return std::to_string(*value);
  ExprPtr e;
  try {
    e = parse_c_expression(text);
  } catch (const FrontendError&) {
    return std::nullopt;
  }
  bool affine = true;
  visit(e, [&](const ExprPtr& x) {
    if (x->kind == Expr::Kind::kName)
      affine = affine && std::find(scop.params.begin(), scop.params.end(), x->text) != scop.params.end();
    else if (x->kind == Expr::Kind::kBinary)
      affine = affine && (x->text == "+" || x->text == "-" || x->text == "*");
    else if (x->kind == Expr::Kind::kUnary)
      affine = affine && x->text == "-";
    else if (x->kind != Expr::Kind::kInt)
      affine = false;
  });
  if (!affine) return std::nullopt;
  return to_c(*e);
}

std::string params_tuple(const Scop& scop) {
  std::string s = "[";
  for (size_t i = 0; i < scop.params.size(); ++i) s += (i ? ", " : "") + scop.params[i];
  return s + "]";
}

// The parameter values for which some access leaves its array's declared extents.
isl::set out_of_bounds_sizes(const Scop& scop) {
  isl::set bad = isl::set::empty(scop.context.get_space());
  for (const auto& s : scop.statements)
    for (const auto& a : s.accesses) {
      const Array* array = scop.array(a.array);
      if (!array || array->rank == 0 || array->declared_extents.empty()) continue;
      std::string dims, bounds;
      bool known = true;
      for (int d = 0; d < array->rank; ++d) {
        auto extent = isl_extent(array->declared_extents[static_cast<size_t>(d)], scop);
        if (!extent) known = false;
        const std::string x = "x" + std::to_string(d);
        dims += (d ? ", " : "") + x;
        if (extent) bounds += (d ? " and " : "") + std::string("0 <= ") + x + " < " + *extent;
      }
      if (!known) continue;
      const std::string space = params_tuple(scop) + " -> { " + a.array + "[" + dims + "]";
      const isl::set inside(scop.ctx, space + " : " + bounds + " }");
      const isl::set outside = isl::set(scop.ctx, space + " }").subtract(inside);
      bad = bad.unite(a.relation.intersect_range(outside).domain().params());
    }
  return bad;
}

}  // namespace

std::map<std::string, long long> in_bounds_sizes(const Scop& scop, const std::map<std::string, long long>& given,
                                                std::vector<std::string>& unresolved) {
  std::map<std::string, long long> sizes;
  // Sizes at which the statements run: otherwise a size bounds nothing (gemm's ni is
  // unbounded where nj = 0 leaves C untouched). In source order, a statement that cannot
  // run beside the ones before it (an edge case's, for sizes under 1) is passed over.
  isl::set running = scop.context.subtract(out_of_bounds_sizes(scop));
  for (const auto& s : scop.statements)
    if (isl::set both = running.intersect(s.domain.params()); !both.is_empty()) running = both;
  isl_set* good = running.release();
  for (size_t k = 0; k < scop.params.size(); ++k) {
    const std::string& p = scop.params[k];
    std::optional<long long> value;
    if (auto it = given.find(p); it != given.end()) value = it->second;
    else if (auto known = scop.param_values.find(p); known != scop.param_values.end()) value = known->second;
    if (value) {
      sizes[p] = *value;
      good = isl_set_fix_si(good, isl_dim_param, static_cast<unsigned>(k), static_cast<int>(std::clamp<long long>(*value, INT_MIN, INT_MAX)));
    }
  }
  for (size_t k = 0; k < scop.params.size(); ++k) {
    const std::string& p = scop.params[k];
    if (sizes.count(p)) continue;
    isl_set* member = isl_set_move_dims(isl_set_copy(good), isl_dim_set, 0, isl_dim_param, static_cast<unsigned>(k), 1);
    isl_val* max = isl_set_dim_max_val(member, 0);
    if (max && isl_val_is_int(max) == isl_bool_true) {
      sizes[p] = isl_val_get_num_si(max);
      good = isl_set_fix_si(good, isl_dim_param, static_cast<unsigned>(k), static_cast<int>(sizes[p]));
    } else {
      unresolved.push_back(p);
    }
    isl_val_free(max);
  }
  isl_set_free(good);
  return sizes;
}

}  // namespace pz::poly
