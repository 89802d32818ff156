#include "polyhedral/ir/point_count.h"

#include <isl/constraint.h>
#include <isl/set.h>
#include <isl/val.h>

#include <climits>
#include <utility>
#include <vector>

#include "polyhedral/ir/isl_context.h"

namespace pz::poly {

namespace {

// Every parameter `s` involves is fixed by its own constraints.
bool parameters_fixed(isl_set* s) {
  const isl_size np = isl_set_dim(s, isl_dim_param);
  if (np < 0) return false;
  isl_set* params = isl_set_params(isl_set_copy(s));
  bool fixed = params != nullptr;
  for (int i = 0; fixed && i < np; ++i) {
    if (isl_set_involves_dims(s, isl_dim_param, i, 1) != isl_bool_true) continue;
    isl_val* v = isl_set_plain_get_val_if_fixed(params, isl_dim_param, i);
    fixed = v && isl_val_is_int(v) == isl_bool_true;
    isl_val_free(v);
  }
  isl_set_free(params);
  return fixed;
}

std::optional<long long> to_long_long(isl_val* v) {
  std::optional<long long> out;
  if (v && isl_val_is_int(v) == isl_bool_true && isl_val_cmp_si(v, LLONG_MAX / 4) <= 0 &&
      isl_val_cmp_si(v, -(LLONG_MAX / 4)) >= 0)
    out = isl_val_get_num_si(v);
  isl_val_free(v);
  return out;
}

// [min, max] of each dimension of a bounded, non-empty, parameter-free set.
std::optional<std::vector<std::pair<long long, long long>>> dimension_bounds(isl_set* s) {
  const isl_size n = isl_set_dim(s, isl_dim_set);
  if (n < 0) return std::nullopt;
  std::vector<std::pair<long long, long long>> bounds;
  for (int d = 0; d < n; ++d) {
    auto lo = to_long_long(isl_set_dim_min_val(isl_set_copy(s), d));
    auto hi = to_long_long(isl_set_dim_max_val(isl_set_copy(s), d));
    if (!lo || !hi) return std::nullopt;
    bounds.emplace_back(*lo, *hi);
  }
  return bounds;
}

// Points of the box spanned by `bounds`.
long long box_volume(const std::vector<std::pair<long long, long long>>& bounds) {
  long long volume = 1;
  for (const auto& [lo, hi] : bounds) volume = saturating_product(volume, hi - lo + 1);
  return volume;
}

isl_stat on_one_dimension(isl_constraint* c, void* user) {
  const isl_size n = isl_constraint_dim(c, isl_dim_set);
  int involved = 0;
  for (int d = 0; d < n; ++d) involved += isl_constraint_involves_dims(c, isl_dim_set, d, 1) == isl_bool_true;
  isl_constraint_free(c);
  if (involved > 1) *static_cast<bool*>(user) = false;
  return involved > 1 ? isl_stat_error : isl_stat_ok;
}

// A product of intervals: the set is one basic set without existentially quantified
// variables whose every constraint involves one dimension at most.
bool is_box(isl_set* s) {
  if (isl_set_n_basic_set(s) != 1) return false;
  isl_basic_set_list* list = isl_set_get_basic_set_list(s);
  isl_basic_set* b = isl_basic_set_list_get_basic_set(list, 0);
  isl_basic_set_list_free(list);
  bool box = b && isl_basic_set_dim(b, isl_dim_div) == 0;
  if (box) isl_basic_set_foreach_constraint(b, &on_one_dimension, &box);
  isl_basic_set_free(b);
  return box;
}

// isl's enumeration under the operation budget; nullopt when it runs out or fails.
std::optional<long long> enumerate(isl_set* s) {
  isl_ctx* ctx = isl_set_get_ctx(s);
  IslBudgetScope budget(ctx, kEnumerationOperations);
  isl_val* n = isl_set_count_val(s);
  std::optional<long long> out;
  if (!budget.exceeded()) out = to_long_long(n);
  else isl_val_free(n);
  return out;
}

std::optional<PointCount> count_parameter_free(isl_set* s);

// Enumerating `s` visits each point of its projection on all but its last dimension once:
// worth it when that projection, counted the same way, is small.
bool cheap_to_enumerate(isl_set* s) {
  const isl_size n = isl_set_dim(s, isl_dim_set);
  if (n <= 1) return n == 1;
  isl_set* outer = isl_set_project_out(isl_set_copy(s), isl_dim_set, n - 1, 1);
  std::optional<PointCount> prefixes = outer ? count_parameter_free(outer) : std::nullopt;
  isl_set_free(outer);
  return prefixes && prefixes->points <= kEnumerationLimit;
}

std::optional<PointCount> count_parameter_free(isl_set* s) {
  if (isl_set_is_bounded(s) != isl_bool_true) return std::nullopt;
  const isl_bool empty = isl_set_is_empty(s);
  if (empty == isl_bool_error) return std::nullopt;
  if (empty == isl_bool_true) return PointCount{0, true};
  s = isl_set_coalesce(isl_set_copy(s));
  std::optional<PointCount> out;
  if (auto bounds = dimension_bounds(s)) {
    const long long volume = box_volume(*bounds);
    if (is_box(s)) {
      out = PointCount{volume, volume < LLONG_MAX};
    } else {
      std::optional<long long> n = cheap_to_enumerate(s) ? enumerate(s) : std::nullopt;
      out = n ? PointCount{*n, true} : PointCount{volume, false};
    }
  }
  isl_set_free(s);
  return out;
}

}  // namespace

long long saturating_product(long long a, long long b) {
  if (a <= 0 || b <= 0) return 0;
  return a > LLONG_MAX / b ? LLONG_MAX : a * b;
}

long long saturating_sum(long long a, long long b) { return a > LLONG_MAX - b ? LLONG_MAX : a + b; }

std::optional<PointCount> count_points_bounded(const isl::set& set) {
  isl_set* s = set.get();
  if (!s || !parameters_fixed(s)) return std::nullopt;
  isl_set* free_of_params = isl_set_project_out(isl_set_copy(s), isl_dim_param, 0, isl_set_dim(s, isl_dim_param));
  std::optional<PointCount> out = free_of_params ? count_parameter_free(free_of_params) : std::nullopt;
  isl_set_free(free_of_params);
  return out;
}

}  // namespace pz::poly
