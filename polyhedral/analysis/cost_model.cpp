#include "polyhedral/analysis/cost_model.h"

#include <map>

#include <isl/aff.h>
#include <isl/set.h>

#include "polyhedral/ir/isl_context.h"
#include "polyhedral/ir/point_count.h"
#include "polyhedral/transform/parallel_marks.h"

namespace pz::poly {

namespace {

// The product of the constant extents of `set`'s members; -1 when one is not constant.
long long box_volume(const isl::set& set) {
  if (set.is_empty()) return 0;
  long long volume = 1;
  for (long long e : constant_extents(set)) {
    if (e <= 0) return -1;
    volume = saturating_product(volume, e);
  }
  return volume;
}

}  // namespace

namespace {

// Per array, the elements the scop reads or writes (domains applied to accesses).
std::map<std::string, isl::set> touched_elements(const Scop& scop) {
  std::map<std::string, isl::set> elements;
  for (const auto& s : scop.statements)
    for (const auto& a : s.accesses) {
      isl::set touched = s.domain.apply(a.relation);
      auto it = elements.find(a.array);
      if (it == elements.end()) elements.emplace(a.array, touched);
      else it->second = it->second.unite(touched);
    }
  return elements;
}

std::string footprint_expression_unbudgeted(const Scop& scop) {
  std::string sum;
  for (const auto& [name, set] : touched_elements(scop)) {
    const Array* a = scop.array(name);
    std::string product = std::to_string(a ? a->element_bytes() : 8) + "LL";
    for (int d = 0, n = static_cast<int>(isl_set_dim(set.get(), isl_dim_set)); d < n; ++d) {
      isl_pw_aff* hi = isl_set_dim_max(set.copy(), d);
      isl_pw_aff* lo = isl_set_dim_min(set.copy(), d);
      isl_pw_aff* extent = isl_pw_aff_sub(hi, lo);
      extent = isl_pw_aff_add_constant_val(extent, isl_val_one(isl_pw_aff_get_ctx(extent)));
      if (!extent || isl_pw_aff_involves_nan(extent) == isl_bool_true) {
        isl_pw_aff_free(extent);
        return "";
      }
      const std::string c = pw_aff_bound_to_c(extent);
      if (c.empty()) return "";
      product += " * (long long)" + c;
    }
    sum += (sum.empty() ? "" : " + ") + product;
  }
  return sum;
}

}  // namespace

std::string footprint_expression(const Scop& scop) {
  try {
    IslBudgetScope budget(isl_set_get_ctx(scop.context.get()), 400'000);
    std::string expr = footprint_expression_unbudgeted(scop);
    return budget.exceeded() ? "" : expr;
  } catch (const isl::exception&) {
    return "";
  }
}

CostEstimate estimate_cost(const Scop& scop) {
  CostEstimate out;
  for (const auto& p : scop.params)
    if (!scop.param_values.count(p)) return out;
  for (const auto& s : scop.statements) {
    const long long n = box_volume(s.domain);
    if (n < 0) return out;
    out.instances = saturating_sum(out.instances, n);
  }
  for (const auto& [name, set] : touched_elements(scop)) {
    const long long n = box_volume(set);
    if (n < 0) return out;
    const Array* a = scop.array(name);
    out.footprint_bytes = saturating_sum(out.footprint_bytes, saturating_product(n, a ? a->element_bytes() : 8));
  }
  out.concrete = true;
  return out;
}

CostDecision decide_transformations(const CostEstimate& e, const CacheInfo& cache, long long min_parallel_work) {
  CostDecision d;
  if (!e.concrete) return d;
  const std::string sizes = std::to_string(e.instances) + " instances, " + std::to_string(e.footprint_bytes) + " B of arrays";
  if (cache.l2 > 0 && e.footprint_bytes <= cache.l2 / 2) {
    d.tile = d.time_tile = false;
    d.log.push_back("cost model: " + sizes + " fit in L2/2 (" + std::to_string(cache.l2 / 2) +
                    " B): every sweep streams from L2 already, no tiling");
  } else if (cache.l2 > 0 && e.footprint_bytes <= cache.l2) {
    d.time_tile = false;
    d.log.push_back("cost model: " + sizes + " fit in L2 (" + std::to_string(cache.l2) +
                    " B): every time step streams from L2 already, no time tiles");
  }
  if (min_parallel_work > 0 && e.instances < min_parallel_work) {
    d.parallel = false;
    d.log.push_back("cost model: " + sizes + ", under " + std::to_string(min_parallel_work) +
                    " instances: no fork/join pays, no parallel loop");
  }
  return d;
}

}  // namespace pz::poly
