#include "polyhedral/transform/parallel_marks.h"

#include <isl/id.h>
#include <isl/schedule_node.h>
#include <isl/fixed_box.h>
#include <isl/map.h>
#include <isl/val.h>
#include <isl/aff.h>
#include <isl/set.h>

#include <cstdint>

#include "polyhedral/analysis/legality.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/ir/point_count.h"
#include "polyhedral/transform/loop_order.h"
#include "polyhedral/transform/reductions.h"
#include "polyhedral/transform/register_tiling.h"

namespace pz::poly {

namespace {

bool is_band(const isl::schedule_node& n) { return isl_schedule_node_get_type(n.get()) == isl_schedule_node_band; }
int members(const isl::schedule_node& n) { return static_cast<int>(isl_schedule_node_band_n_member(n.get())); }

// The mark carries the schedule depth of the loop it means: when isl drops that loop (a
// single iteration) the code generator must not put the pragma on the loop below it.
isl::schedule_node insert_mark(isl::schedule_node node, const std::string& name) {
  intptr_t depth = isl_schedule_node_get_schedule_depth(node.get());
  isl_id* id = isl_id_alloc(isl_schedule_node_get_ctx(node.get()), name.c_str(), reinterpret_cast<void*>(depth));
  return isl::manage(isl_schedule_node_insert_mark(node.release(), id));
}

isl::schedule_node split(isl::schedule_node node, int pos) {
  return isl::manage(isl_schedule_node_band_split(node.release(), pos));
}

// Applies `fn` to every child of `node` and returns `node` (re-anchored in the new tree).
template <class Fn>
isl::schedule_node for_children(isl::schedule_node node, Fn&& fn) {
  int n = static_cast<int>(isl_schedule_node_n_children(node.get()));
  for (int i = 0; i < n; ++i) node = fn(node.child(i)).parent();
  return node;
}

// Statement instances per entry into a loop of `band` (its outer loops fixed), bounded from
// above by the box hull of each statement's instances for one entry: exact for rectangular
// nests and cheap (no enumeration).
// -1 when a box has no constant size (parametric extents).
long long work_per_entry(const isl::schedule_node& band) {
  isl::union_set dom = node_domain(band);
  isl::union_map entry_to_instances = band.prefix_schedule_union_map().intersect_domain(dom).reverse();
  long long total = 0;
  for (isl::map m : maps_of(entry_to_instances)) {
    isl_fixed_box* box = isl_map_get_range_simple_fixed_box_hull(m.get());
    bool valid = isl_fixed_box_is_valid(box) == isl_bool_true;
    long long volume = 1;
    if (valid) {
      isl_multi_val* size = isl_fixed_box_get_size(box);
      for (int i = 0, n = static_cast<int>(isl_multi_val_size(size)); i < n; ++i) {
        isl_val* v = isl_multi_val_get_val(size, i);
        volume = saturating_product(volume, isl_val_get_num_si(v));
        isl_val_free(v);
      }
      isl_multi_val_free(size);
    }
    isl_fixed_box_free(box);
    if (!valid) return -1;
    total = saturating_sum(total, volume);
  }
  return total;
}

// With parametric sizes: a C expression of the parameters bounding the statement instances
// per entry into `band` (per statement, the product of its per-entry extents, each
// maximised over the loops above; summed over statements), for the `if` clause that keeps
// a small region on one thread. "" when a bound is not affine in the parameters.
std::string work_expression_unbudgeted(const isl::schedule_node& band) {
  isl::union_set dom = node_domain(band);
  isl::union_map entry_to_instances = band.prefix_schedule_union_map().intersect_domain(dom).reverse();
  std::string sum;
  for (isl::map m : maps_of(entry_to_instances)) {
    const int n_out = static_cast<int>(isl_map_dim(m.get(), isl_dim_out));
    std::string product;
    for (int d = 0; d < n_out; ++d) {
      isl_pw_aff* hi = isl_map_dim_max(m.copy(), d);
      isl_pw_aff* lo = isl_map_dim_min(m.copy(), d);
      isl_pw_aff* extent = isl_pw_aff_sub(hi, lo);
      extent = isl_pw_aff_add_constant_val(extent, isl_val_one(isl_pw_aff_get_ctx(extent)));
      // The largest extent over the entries: the extent's graph projected onto its value.
      isl_set* values = isl_map_range(isl_map_from_pw_aff(extent));
      if (!values) return "";
      if (isl_set_is_empty(values) == isl_bool_true) {
        isl_set_free(values);
        continue;
      }
      isl_pw_aff* bound = isl_set_dim_max(values, 0);
      if (!bound) return "";
      if (isl_pw_aff_involves_nan(bound) == isl_bool_true) {
        isl_pw_aff_free(bound);
        return "";
      }
      if (isl_pw_aff_is_cst(bound) == isl_bool_true) {
        // A constant extent (a fixed-size strip, or one fixed by the loops above).
        isl_val* v = nullptr;
        isl_pw_aff_foreach_piece(
            bound,
            [](isl_set* set, isl_aff* aff, void* user) -> isl_stat {
              auto** out = static_cast<isl_val**>(user);
              if (!*out) *out = isl_aff_get_constant_val(aff);
              isl_set_free(set);
              isl_aff_free(aff);
              return isl_stat_ok;
            },
            &v);
        isl_pw_aff_free(bound);
        const long k = v ? isl_val_get_num_si(v) : 0;
        if (v) isl_val_free(v);
        if (k <= 1) continue;
        product += (product.empty() ? "" : " * ") + std::string("(long long)") + std::to_string(k);
        continue;
      }
      const std::string c = pw_aff_bound_to_c(bound);
      if (c.empty()) return "";
      product += (product.empty() ? "" : " * ") + std::string("(long long)") + c;
    }
    if (product.empty()) product = "1";
    sum += (sum.empty() ? "" : " + ") + product;
  }
  return sum;
}

// Parametric maxima over a skewed, tiled schedule can cost isl minutes (fdtd-2d's time
// tiles): the expression gets a small operation budget, and no clause beyond it.
constexpr unsigned long kWorkExpressionOperations = 20'000;

std::string work_expression(const isl::schedule_node& band) {
  isl_ctx* ctx = isl_schedule_node_get_ctx(band.get());
  try {
    IslBudgetScope budget(ctx, kWorkExpressionOperations);
    std::string expr = work_expression_unbudgeted(band);
    if (budget.exceeded()) return "";
    return expr;
  } catch (const isl::exception&) {
    return "";
  }
}

isl::schedule_node parallel_walk(isl::schedule_node node, const isl::union_map& deps, std::vector<std::string>& log,
                                 long long min_work, const Scop* scop, const std::string& num_threads) {
  std::string if_clause;
  if (is_band(node) && min_work > 0) {
    long long w = work_per_entry(node);
    if (w < 0) {
      // Parametric sizes: the decision is the program's, at run time.
      const std::string work = work_expression(node);
      if (!work.empty()) if_clause = " if(parallel: " + work + " >= " + std::to_string(min_work) + ")";
    }
    if (w >= 0 && w < min_work) {
      std::string line = "parallel: nest left sequential, ";
      line += std::to_string(w);
      line += " instances per entry < ";
      line += std::to_string(min_work);
      log.push_back(line);
      return node;  // loops further down have even less work per entry
    }
  }
  if (is_band(node)) {
    int n = members(node);
    bool permutable = isl_schedule_node_band_get_permutable(node.get()) == isl_bool_true;
    // A member parallel as it stands is preferred to one that needs reductions.
    for (bool with_reductions : {false, true}) {
      if (with_reductions && !scop) break;
      for (int p = 0; p < n; ++p) {
        if (p > 0 && !permutable) break;
        isl::schedule_node candidate = node;
        if (p > 0) {
          std::vector<int> perm = {p};
          for (int m = 0; m < n; ++m)
            if (m != p) perm.push_back(m);
          candidate = permute_band(node, perm);
        }
        if (band_member_is_degenerate(candidate, 0)) continue;
        std::string pragma = kParallelMark;
        if (!with_reductions) {
          if (!band_member_is_parallel(candidate, 0, deps)) continue;
        } else {
          auto clause = reduction_clause(candidate, *scop);
          if (!clause) continue;
          pragma += " " + *clause;
        }
        pragma += if_clause;
        if (!num_threads.empty()) pragma += " num_threads(" + num_threads + ")";
        node = n > 1 ? split(candidate, 1) : candidate;
        node = insert_mark(node, pragma);
        std::string line = "parallel: member ";
        line += std::to_string(p);
        line += " of a band of ";
        line += std::to_string(n);
        line += p > 0 ? " moved outermost and marked '" : " marked '";
        line += pragma;
        line += '\'';
        log.push_back(line);
        return node;  // one parallel loop per nest: nothing below is marked
      }
    }
  }
  return for_children(node, [&](isl::schedule_node c) { return parallel_walk(c, deps, log, min_work, scop, num_threads); });
}

// Accumulations are marked under parallel loops too: the code generator applies the mark
// to every loop but a parallel one (codegen.cpp).
isl::schedule_node simd_walk(isl::schedule_node node, const isl::union_map& deps, std::vector<std::string>& log,
                             const Scop* scop, bool& band_below) {
  if (isl_schedule_node_get_type(node.get()) == isl_schedule_node_mark) {
    isl_id* id = isl_schedule_node_mark_get_id(node.get());
    const std::string name = isl_id_get_name(id);
    isl_id_free(id);
    // An unrolled register-tile strip is not a loop: the one to vectorise is above it.
    if (name == kUnrollJamMark) {
      band_below = false;
      return node;
    }
  }
  bool any = false;
  node = for_children(node, [&](isl::schedule_node c) {
    bool below = false;
    c = simd_walk(c, deps, log, scop, below);
    any = any || below;
    return c;
  });
  if (!is_band(node)) {
    band_below = any;
    return node;
  }
  band_below = true;
  if (any) return node;
  int n = members(node);
  std::string mark = kSimdMark;
  if (!band_member_is_parallel(node, n - 1, deps)) {
    if (!scop || band_member_is_degenerate(node, n - 1)) return node;
    auto names = accumulating_statements(node, n - 1, *scop);
    if (names.empty()) return node;
    mark = kAccumulateMark;
    for (const auto& name : names) mark += " " + name;
  }
  if (n > 1) node = split(node, n - 1).child(0);
  node = insert_mark(node, mark);
  if (n > 1) node = node.parent();
  std::string line = "vectorize: innermost loop marked '";
  line += mark;
  line += mark == kSimdMark ? "'" : "' (sums into one element each, kept in a scalar)";
  log.push_back(line);
  return node;
}

}  // namespace

// `aff` as a C expression of the parameters; "" when it has integer divisions or a
// denominator (not a plain affine expression).
static std::string aff_to_c(isl_aff* aff) {
  if (isl_aff_dim(aff, isl_dim_div) > 0 || isl_aff_dim(aff, isl_dim_in) > 0) return "";
  isl_val* den = isl_aff_get_denominator_val(aff);
  const bool integral = isl_val_is_one(den) == isl_bool_true;
  isl_val_free(den);
  if (!integral) return "";
  std::string out;
  for (int i = 0, n = static_cast<int>(isl_aff_dim(aff, isl_dim_param)); i < n; ++i) {
    isl_val* c = isl_aff_get_coefficient_val(aff, isl_dim_param, i);
    const long k = isl_val_get_num_si(c);
    isl_val_free(c);
    if (k == 0) continue;
    const char* name = isl_aff_get_dim_name(aff, isl_dim_param, i);
    if (!name) return "";
    std::string term = k == 1 ? name : k == -1 ? std::string("-") + name : std::to_string(k) + " * " + name;
    out += out.empty() ? term : (term[0] == '-' ? " - " + term.substr(1) : " + " + term);
  }
  isl_val* c = isl_aff_get_constant_val(aff);
  const long k = isl_val_get_num_si(c);
  isl_val_free(c);
  if (out.empty()) return std::to_string(k);
  if (k != 0) out += k > 0 ? " + " + std::to_string(k) : " - " + std::to_string(-k);
  return out;
}

// The largest value of `pa` (a function of the parameters) as a C expression: the maximum
// of its pieces, each taken everywhere (an upper bound); "" when a piece is not affine.
std::string pw_aff_bound_to_c(isl_pw_aff* pa) {
  struct Acc {
    std::vector<std::string> pieces;
    bool ok = true;
  } acc;
  isl_pw_aff_foreach_piece(
      pa,
      [](isl_set* set, isl_aff* aff, void* user) -> isl_stat {
        auto* a = static_cast<Acc*>(user);
        std::string c = aff_to_c(aff);
        if (c.empty()) a->ok = false;
        else a->pieces.push_back(c);
        isl_set_free(set);
        isl_aff_free(aff);
        return isl_stat_ok;
      },
      &acc);
  isl_pw_aff_free(pa);
  if (!acc.ok || acc.pieces.empty()) return "";
  std::string out = "(" + acc.pieces[0] + ")";
  for (size_t i = 1; i < acc.pieces.size(); ++i)
    out = "(" + out + " > (" + acc.pieces[i] + ") ? " + out + " : (" + acc.pieces[i] + "))";
  return out;
}

isl::schedule mark_parallel_loops(const isl::schedule& schedule, const isl::union_map& deps, std::vector<std::string>& log,
                                  long long min_work, const Scop* reductions_of, const std::string& num_threads) {
  return parallel_walk(schedule.get_root(), deps, log, min_work, reductions_of, num_threads).get_schedule();
}

isl::schedule mark_simd_loops(const isl::schedule& schedule, const isl::union_map& deps, std::vector<std::string>& log,
                              const Scop* accumulations_of) {
  bool below = false;
  return simd_walk(schedule.get_root(), deps, log, accumulations_of, below).get_schedule();
}

}  // namespace pz::poly
