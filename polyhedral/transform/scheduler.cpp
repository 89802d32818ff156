#include "polyhedral/transform/scheduler.h"

#include <isl/options.h>
#include <isl/aff.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/val.h>

#include "polyhedral/analysis/legality.h"
#include "polyhedral/frontend/c_parser.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/ir/point_count.h"
#include "polyhedral/transform/loop_order.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <vector>

namespace pz::poly {

isl::schedule run_isl_scheduler(IslContext& ctx, const Scop& scop, const isl::union_map& validity, bool serialize,
                                const ScheduleOptions& o, std::string& error, bool outer_coincidence) {
  isl_ctx* raw = ctx.raw();
  isl_options_set_schedule_serialize_sccs(raw, serialize ? 1 : 0);
  isl_options_set_schedule_outer_coincidence(raw, outer_coincidence ? 1 : 0);
  isl_options_set_schedule_maximize_band_depth(raw, 1);
  isl_options_set_schedule_max_coefficient(raw, o.max_coefficient);
  IslBudgetScope budget(ctx, o.budget);
  try {
    isl_schedule_constraints* sc = isl_schedule_constraints_on_domain(scop.domain().release());
    sc = isl_schedule_constraints_set_context(sc, scop.context.copy());
    sc = isl_schedule_constraints_set_validity(sc, validity.copy());
    sc = isl_schedule_constraints_set_proximity(sc, validity.copy());
    sc = isl_schedule_constraints_set_coincidence(sc, validity.copy());
    isl_schedule* s = isl_schedule_constraints_compute_schedule(sc);
    if (!s) {
      const char* msg = isl_ctx_last_error_msg(raw);
      error = msg ? msg : "isl could not compute a schedule";
      return {};
    }
    return isl::manage(s);
  } catch (const isl::exception& e) {
    error = e.what();
    return {};
  }
}

namespace {

// The statement instances a child of a sequence or set keeps: a filter node's own filter
// (node_domain gives what reaches it, before its filter applies), else its domain.
isl::union_set filter_or_domain(const isl::schedule_node& child) {
  return isl_schedule_node_get_type(child.get()) == isl_schedule_node_filter
             ? isl::manage(isl_schedule_node_filter_get_filter(child.get()))
             : node_domain(child);
}

// How many loop dimensions statements `a` and `b` share under `schedule` (the depth of the
// band members above the node where their paths part).
int shared_loops(isl::schedule_node node, const std::string& a, const std::string& b) {
  int depth = 0;
  for (;;) {
    const int n = static_cast<int>(isl_schedule_node_n_children(node.get()));
    if (n == 0) return depth;
    if (isl_schedule_node_get_type(node.get()) == isl_schedule_node_band)
      depth += static_cast<int>(isl_schedule_node_band_n_member(node.get()));
    if (n == 1) {
      node = node.child(0);
      continue;
    }
    int next = -1;
    for (int i = 0; i < n; ++i) {
      isl::union_set dom = filter_or_domain(node.child(i));
      bool has_a = false, has_b = false;
      for (isl::set s : sets_of(dom)) {
        std::string name = isl_set_get_tuple_name(s.get());
        has_a = has_a || name == a;
        has_b = has_b || name == b;
      }
      if (has_a != has_b) return depth;
      if (has_a) next = i;
    }
    if (next < 0) return depth;
    node = node.child(next);
  }
}

// Points of a concrete set, exact or (when exact counting is over its budget) the volume of
// its bounding box; 0 when not countable (parametric, unbounded).
long long instance_count(const isl::set& domain) {
  std::optional<PointCount> n = count_points_bounded(domain);
  return n ? n->points : 0;
}

// The bytes of `array` as declared with constant extents (PolyBench's `double A[1900 +
// 0][2100 + 0]` under symbolic loop bounds); 0 when an extent is not a constant.
long long declared_bytes(const Array& array) {
  if (array.rank == 0 || static_cast<int>(array.declared_extents.size()) != array.rank) return 0;
  long long elements = 1;
  for (const auto& text : array.declared_extents) {
    std::optional<long long> extent = evaluate_text(text);
    if (!extent || *extent <= 0) return 0;
    elements = saturating_product(elements, *extent);
  }
  return saturating_product(elements, array.element_bytes());
}

// The accesses of `s` that read `array` without temporal reuse (every element at most once),
// with the number of bytes they touch; 0 when `s` reuses some element of it. With symbolic
// sizes the array's declared bytes stand in when `declared` (0 otherwise: no claim).
long long streamed_bytes(const Scop& scop, const Statement& s, const std::string& array, bool declared) {
  long long bytes = 0;
  const Array* arr = scop.array(array);
  for (const auto& a : s.accesses) {
    if (a.write || a.array != array) continue;
    isl::map m = a.relation.intersect_domain(s.domain);
    if (isl_map_is_injective(m.get()) != isl_bool_true) return 0;
    long long n = instance_count(m.range());  // 0 when parametric
    if (n == 0 && declared && arr) return declared_bytes(*arr);
    bytes = saturating_sum(bytes, saturating_product(n, arr ? arr->element_bytes() : 8));
  }
  return bytes;
}

// The loop depth of statement `s` (its iterators).
int depth_of(const Statement& s) { return static_cast<int>(isl_set_dim(s.domain.get(), isl_dim_set)); }

struct SkewScan {
  bool skewed = false;        // a member combines two or more iterators of a statement
  bool outer_parallel = false;  // an outermost loop (or one a permutable band can move there) is parallel
  long largest_coefficient = 0;  // of an iterator in any member
};

isl_stat scan_piece(isl_set* set, isl_aff* aff, void* user) {
  auto* scan = static_cast<SkewScan*>(user);
  int nonzero = 0;
  for (int d = 0, n = static_cast<int>(isl_aff_dim(aff, isl_dim_in)); d < n; ++d) {
    isl_val* c = isl_aff_get_coefficient_val(aff, isl_dim_in, d);
    nonzero += isl_val_is_zero(c) == isl_bool_false;
    if (isl_val_is_int(c) == isl_bool_true) scan->largest_coefficient = std::max(scan->largest_coefficient, std::labs(isl_val_get_num_si(c)));
    isl_val_free(c);
  }
  if (nonzero >= 2) scan->skewed = true;
  isl_set_free(set);
  isl_aff_free(aff);
  return isl_stat_ok;
}

isl_stat scan_pw_aff(isl_pw_aff* pa, void* user) {
  isl_stat r = isl_pw_aff_foreach_piece(pa, &scan_piece, user);
  isl_pw_aff_free(pa);
  return r;
}

isl_bool scan_node(isl_schedule_node* node, void* user) {
  if (isl_schedule_node_get_type(node) != isl_schedule_node_band) return isl_bool_true;
  auto* scan = static_cast<SkewScan*>(user);
  const bool outermost = isl_schedule_node_get_schedule_depth(node) == 0;
  const bool permutable = isl_schedule_node_band_get_permutable(node) == isl_bool_true;
  isl_multi_union_pw_aff* mupa = isl_schedule_node_band_get_partial_schedule(node);
  const int n = static_cast<int>(isl_multi_union_pw_aff_size(mupa));
  bool has_band_below = false;
  for (int c = 0, k = static_cast<int>(isl_schedule_node_n_children(node)); c < k && !has_band_below; ++c) {
    isl_schedule_node* child = isl_schedule_node_get_child(node, c);
    has_band_below = isl_schedule_node_has_children(child) == isl_bool_true ||
                     isl_schedule_node_get_type(child) == isl_schedule_node_band;
    isl_schedule_node_free(child);
  }
  for (int i = 0; i < n; ++i) {
    isl_union_pw_aff* upa = isl_multi_union_pw_aff_get_union_pw_aff(mupa, i);
    isl_union_pw_aff_foreach_pw_aff(upa, &scan_pw_aff, user);
    isl_union_pw_aff_free(upa);
    if (outermost && (i == 0 || permutable) && (i + 1 < n || has_band_below) &&
        isl_schedule_node_band_member_get_coincident(node, i) == isl_bool_true)
      scan->outer_parallel = true;
  }
  isl_multi_union_pw_aff_free(mupa);
  return isl_bool_true;
}

SkewScan scan_schedule(const isl::schedule& schedule) {
  SkewScan scan;
  isl_schedule_foreach_schedule_node_top_down(schedule.get(), &scan_node, &scan);
  return scan;
}

}  // namespace

bool skews_without_parallelism(const isl::schedule& schedule) {
  const SkewScan scan = scan_schedule(schedule);
  return scan.skewed && !scan.outer_parallel;
}

bool skews(const isl::schedule& schedule) { return scan_schedule(schedule).skewed; }

namespace {

// The members of the first band below `node` through single-child nodes; 0 when a
// sequence or set comes first.
int band_members_below(isl::schedule_node node) {
  while (isl_schedule_node_get_type(node.get()) != isl_schedule_node_band) {
    const auto type = isl_schedule_node_get_type(node.get());
    if (type != isl_schedule_node_domain && type != isl_schedule_node_context && type != isl_schedule_node_mark &&
        type != isl_schedule_node_filter)
      return 0;
    if (isl_schedule_node_n_children(node.get()) != 1) return 0;
    node = node.child(0);
  }
  return static_cast<int>(isl_schedule_node_band_n_member(node.get()));
}

// The outermost band's members of each part of the schedule: of the whole when it starts
// with a band, else of each child of the sequence (or set) at its top.
std::vector<int> outermost_bands(const isl::schedule& schedule) {
  isl::schedule_node node = schedule.get_root();
  while (isl_schedule_node_n_children(node.get()) == 1 && isl_schedule_node_get_type(node.get()) != isl_schedule_node_band)
    node = node.child(0);
  const auto type = isl_schedule_node_get_type(node.get());
  if (type != isl_schedule_node_sequence && type != isl_schedule_node_set) return {band_members_below(schedule.get_root())};
  std::vector<int> parts;
  for (int i = 0; i < isl_schedule_node_n_children(node.get()); ++i) parts.push_back(band_members_below(node.child(i)));
  return parts;
}

// `alt` deepens the outer band (of the whole, or of some part of a top-level sequence into
// a band of 3 or more members) and makes no part's shallower (the same parts in both). A
// part's 3-D band is a factorisation's tileable nest (ludcmp's lu beside its solves); a
// part deepened to 2 members over statements of unequal depth (gramschmidt) traded its
// stride-1 inner loops for no tiling.
bool deepens_outer_bands(const std::vector<int>& base, const std::vector<int>& alt) {
  if (base.size() != alt.size()) return false;
  bool deeper = false;
  for (std::size_t i = 0; i < base.size(); ++i) {
    if (alt[i] < base[i]) return false;
    deeper = deeper || (alt[i] > base[i] && (base.size() == 1 || alt[i] >= 3));
  }
  return deeper;
}

}  // namespace

int outermost_band_members(const isl::schedule& schedule) { return band_members_below(schedule.get_root()); }

bool splits_streamed_nest(const Scop& scop, const isl::schedule& schedule, long stream_bytes, std::string& why) {
  if (stream_bytes <= 0) return false;
  // Only concrete sizes give byte counts (parametric ranges count as unbounded: no claim).
  const auto& st = scop.statements;
  std::vector<long long> work;
  long long most = 0;
  for (const auto& s : st) {
    work.push_back(instance_count(s.domain));
    most = std::max(most, work.back());
  }
  for (size_t x = 0; x < st.size(); ++x)
    for (size_t y = x + 1; y < st.size(); ++y) {
      if (shared_loops(scop.schedule.get_root(), st[x].name, st[y].name) == 0) continue;
      // One extra pass over a matrix matters only when these statements are the kernel's
      // bulk: covariance's cov[i][j] /= .. and cov[j][i] = cov[i][j] (M^2/2 instances each)
      // sit beside an M^2 N/2 contraction that isl's schedule runs with a unit-stride
      // inner loop instead of the source's column walk (0.77x gcc when rejected).
      if (saturating_product(8, std::max(work[x], work[y])) < most) continue;
      if (shared_loops(schedule.get_root(), st[x].name, st[y].name) > 0) continue;
      // With symbolic sizes the declared extents stand in, for statements that each keep an
      // innermost loop of their own in the source (atax: a row read twice from L1 beats two
      // sweeps of A from memory). Where they share the innermost loop (bicg: one vector
      // update beside one reduction in a loop) the source order measured slower.
      const int source_shared = shared_loops(scop.schedule.get_root(), st[x].name, st[y].name);
      const bool declared = source_shared < std::min(depth_of(st[x]), depth_of(st[y]));
      for (const auto& a : st[x].accesses) {
        if (a.write) continue;
        const Array* arr = scop.array(a.array);
        if (!arr || arr->rank < 2) continue;
        long long bx = streamed_bytes(scop, st[x], a.array, declared), by = streamed_bytes(scop, st[y], a.array, declared);
        if (bx > stream_bytes && by > stream_bytes) {
          why = st[x].name + " and " + st[y].name + " would each stream " + a.array + " (" +
                std::to_string(std::min(bx, by)) + " B) in separate nests";
          return true;
        }
      }
    }
  return false;
}

namespace {

// The deepest band node on the path from the root to statement `name`'s leaf; null when
// none.
isl::schedule_node innermost_band_of(const isl::schedule& schedule, const std::string& name) {
  isl::schedule_node node = schedule.get_root(), band;
  for (;;) {
    if (isl_schedule_node_get_type(node.get()) == isl_schedule_node_band) band = node;
    const int n = static_cast<int>(isl_schedule_node_n_children(node.get()));
    if (n == 0) return band;
    int next = n == 1 ? 0 : -1;
    for (int i = 0; i < n && next < 0; ++i)
      for (isl::set s : sets_of(filter_or_domain(node.child(i))))
        if (name == isl_set_get_tuple_name(s.get())) next = i;
    if (next < 0) return band;
    node = node.child(next);
  }
}

}  // namespace

bool walks_columns(const Scop& scop, const isl::schedule& schedule, long sweep_bytes, std::string& why) {
  if (sweep_bytes <= 0) return false;
  constexpr long long kLineBytes = 64;
  int deepest = 0;
  for (const auto& s : scop.statements) deepest = std::max(deepest, static_cast<int>(isl_set_dim(s.domain.get(), isl_dim_set)));
  for (const auto& s : scop.statements) {
    if (static_cast<int>(isl_set_dim(s.domain.get(), isl_dim_set)) < deepest) continue;
    isl::schedule_node mine = innermost_band_of(schedule, s.name), source = innermost_band_of(scop.schedule, s.name);
    if (mine.is_null() || source.is_null()) continue;
    const int n = static_cast<int>(isl_schedule_node_band_n_member(mine.get()));
    const int source_last = static_cast<int>(isl_schedule_node_band_n_member(source.get())) - 1;
    const long long trips = innermost_trip_count(mine);
    if (trips >= 0 && trips <= sweep_bytes / kLineBytes) continue;  // trips lines fit the sweep
    for (const auto& a : s.accesses) {
      const Array* arr = scop.array(a.array);
      if (!arr || arr->rank < 2) continue;
      isl::map access = a.relation.intersect_domain(s.domain);
      if (access_stride(mine, n - 1, access) != AccessStride::kOther) continue;
      if (access_stride(source, source_last, access) != AccessStride::kUnit) continue;
      // Loop order permutes only permutable bands.
      const bool permutable = isl_schedule_node_band_get_permutable(mine.get()) == isl_bool_true;
      bool repairable = false;
      for (int m = 0; permutable && m + 1 < n && !repairable; ++m)
        repairable = access_stride(mine, m, access) == AccessStride::kUnit;
      if (repairable) continue;
      why = s.name + "'s innermost loop would walk " + a.array + " down its columns (the source walks its rows)";
      return true;
    }
  }
  return false;
}

ScheduleResult compute_schedule(IslContext& ctx, const Scop& scop, const Dependences& deps,
                                const ScheduleOptions& options) {
  if (!options.use_isl || scop.statements.empty()) return {scop.schedule, "source order"};
  const isl::union_map validity = deps.validity();
  std::string error;
  bool serialize_first = options.fusion == ScheduleOptions::Fusion::kMin;
  std::vector<bool> attempts = {serialize_first};
  if (!serialize_first) attempts.push_back(true);
  for (bool serialize : attempts) {
    isl::schedule s = run_isl_scheduler(ctx, scop, validity, serialize, options, error);
    // isl's result is trusted only after our own check: a wrong schedule would mean wrong
    // numbers, a missed optimisation only a slower kernel.
    if (!s.is_null() && !find_violation(s, validity)) {
      std::string why;
      if (splits_streamed_nest(scop, s, options.stream_bytes, why))
        return {scop.schedule, "source order (isl's schedule rejected: " + why + ")"};
      const SkewScan shape = scan_schedule(s);
      const bool useless_skew = options.reject_useless_skew && shape.skewed && !shape.outer_parallel;
      // isl's incremental scheduler keeps coefficients within max_coefficient; its fallback
      // (Feautrier's, carrying dependences one by one) does not, and over constant extents it
      // can linearise a nest into one loop (3969i + 63j over 64 x 64), the body under modulo
      // tests (polyhedral/README.md).
      const long coefficient = shape.largest_coefficient;
      const bool linearised = options.max_coefficient > 0 && coefficient > options.max_coefficient;
      if (options.deepen_outer_band) {
        // Asking for an outer coincident (parallel) member makes isl end the outermost band
        // at the first loop that carries a dependence: lu got (k) over 2-deep bands, swept
        // once per k. Without that request it finds (i, k, j), tileable in 3-D (2x faster
        // serially than the parallel-inner version on 2 cores). Taken only when it deepens
        // the outer band without skewing, so stencils keep their parallel spatial loops.
        // Part by part when the schedule is a sequence (ludcmp: the factorisation beside two
        // triangular solves).
        std::vector<int> depth = outermost_bands(s);
        if (useless_skew || linearised) std::fill(depth.begin(), depth.end(), 0);
        std::string alt_error;
        isl::schedule alt = run_isl_scheduler(ctx, scop, validity, serialize, options, alt_error, false);
        if (!alt.is_null() && deepens_outer_bands(depth, outermost_bands(alt)) && !skews(alt) && !find_violation(alt, validity)) {
          std::string why;
          if (!splits_streamed_nest(scop, alt, options.stream_bytes, why) && !walks_columns(scop, alt, options.column_sweep_bytes, why))
            return {alt, std::string(serialize ? "isl (fusion=min" : "isl (fusion=max") +
                             ", outer band deepened without outer coincidence)"};
        }
      }
      if (useless_skew)
        return {scop.schedule, "source order (isl's schedule rejected: it skews loops but gains no outer parallel loop)"};
      if (linearised)
        return {scop.schedule, "source order (isl's schedule rejected: a coefficient of " + std::to_string(coefficient) +
                                   " linearises loops)"};
      if (walks_columns(scop, s, options.column_sweep_bytes, why))
        return {scop.schedule, "source order (isl's schedule rejected: " + why + ")"};
      return {s, serialize ? "isl (fusion=min)" : "isl (fusion=max)"};
    }
    if (!s.is_null()) error = "isl's schedule violates a dependence";
  }
  return {scop.schedule, "source order (isl: " + error + ")"};
}

}  // namespace pz::poly
