#include "polyhedral/transform/layout.h"

#include <isl/ilp.h>
#include <isl/set.h>
#include <isl/val.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <stdexcept>

namespace pz::poly {

namespace {

std::string str(long long v) { return std::to_string(v); }

std::string dim_name(const ArrayShape& shape, int d) {
  return d < static_cast<int>(shape.dims.size()) && !shape.dims[static_cast<std::size_t>(d)].empty()
             ? shape.dims[static_cast<std::size_t>(d)]
             : "d" + str(d);
}

// The iterators that occur in `e`, as indices into `iterators`.
std::set<int> iterators_in(const ExprPtr& e, const std::vector<std::string>& iterators) {
  std::set<int> out;
  visit(e, [&](const ExprPtr& x) {
    if (x->kind != Expr::Kind::kName) return;
    auto it = std::find(iterators.begin(), iterators.end(), x->text);
    if (it != iterators.end()) out.insert(static_cast<int>(it - iterators.begin()));
  });
  return out;
}

// The share of the vector lanes a loop of `extent` iterations fills; 0 when unknown.
double lane_share(long long extent, int lanes) {
  if (extent <= 0) return 0;
  const long long vectors = (extent + lanes - 1) / lanes;
  return static_cast<double>(extent) / static_cast<double>(vectors * lanes);
}

// How many times the statement runs, counting members of unknown extent once.
double instances(const Statement& s) {
  double n = 1;
  for (long long e : constant_extents(s.domain)) n *= static_cast<double>(std::max(1LL, e));
  return n;
}

// The storage order one access prefers (see layout.h).
std::vector<int> preferred_order(const Expr& access, const Statement& s, int vector) {
  const int rank = static_cast<int>(access.args.size());
  std::vector<int> key(static_cast<std::size_t>(rank), -1);
  for (int d = 0; d < rank; ++d) {
    const std::set<int> its = iterators_in(access.args[static_cast<std::size_t>(d)], s.iterators);
    if (its.count(vector)) key[static_cast<std::size_t>(d)] = static_cast<int>(s.iterators.size());
    else if (!its.empty()) key[static_cast<std::size_t>(d)] = *its.rbegin();
  }
  std::vector<int> order(static_cast<std::size_t>(rank));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return key[static_cast<std::size_t>(a)] < key[static_cast<std::size_t>(b)]; });
  return order;
}

std::optional<long long> finite(isl_val* v) {
  std::optional<long long> out;
  if (v && isl_val_is_int(v) == isl_bool_true) out = isl_val_get_num_si(v);
  isl_val_free(v);
  return out;
}

bool keeps_parameters_first(const ArrayShape& shape, const std::vector<int>& order) {
  for (std::size_t k = 1; k < order.size(); ++k)
    if (shape.extent[static_cast<std::size_t>(order[k])] < 0) return false;
  return true;
}

void check_shape(const std::string& name, const ArrayShape& shape) {
  for (std::size_t d = 0; d < shape.extent.size(); ++d)
    if (shape.extent[d] == 0 || shape.extent[d] < -1 || (shape.extent[d] < 0 && d > 0))
      throw std::invalid_argument("layout: array " + name + " dimension " + str(static_cast<long long>(d)) +
                                  " has extent " + str(shape.extent[d]) +
                                  " (extents are positive; -1, a parameter, only for the first dimension)");
}

}  // namespace

long long ArrayLayout::storage_extent(int d) const {
  const long long e = shape.extent[static_cast<std::size_t>(d)];
  return e < 0 ? -1 : e + before[static_cast<std::size_t>(d)] + after[static_cast<std::size_t>(d)];
}

std::string ArrayLayout::c_row_dims() const {
  std::string out;
  for (std::size_t k = 1; k < order.size(); ++k) out += "[" + str(storage_extent(order[k])) + "]";
  return out;
}

std::size_t ArrayLayout::row_elements() const {
  std::size_t n = 1;
  for (std::size_t k = 1; k < order.size(); ++k) n *= static_cast<std::size_t>(storage_extent(order[k]));
  return n;
}

std::size_t ArrayLayout::elements() const {
  if (order.empty()) return 1;
  const long long first = storage_extent(order[0]);
  if (first < 0) throw std::logic_error("layout: " + array + " has a parameter extent");
  return static_cast<std::size_t>(first) * row_elements();
}

std::size_t ArrayLayout::offset(const std::vector<long long>& logical) const {
  std::size_t at = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t d = static_cast<std::size_t>(order[k]);
    const long long extent = k == 0 ? 1 : storage_extent(order[k]);
    at = at * static_cast<std::size_t>(extent) + static_cast<std::size_t>(logical[d] + before[d]);
  }
  return at;
}

std::string ArrayLayout::describe() const {
  std::string logical, sizes, stored;
  for (int d = 0; d < static_cast<int>(order.size()); ++d) {
    logical += "[" + dim_name(shape, d) + "]";
    if (shape.extent[static_cast<std::size_t>(d)] > 0)
      sizes += (sizes.empty() ? "" : "x") + str(shape.extent[static_cast<std::size_t>(d)]);
  }
  for (int d : order) {
    const long long pad = before[static_cast<std::size_t>(d)] + after[static_cast<std::size_t>(d)];
    stored += "[" + dim_name(shape, d) + (pad ? "+" + str(pad) : "") + "]";
  }
  return logical + " " + sizes + (stored == logical ? "" : " stored as " + stored);
}

bool ArrayLayout::same_storage(const ArrayLayout& o) const {
  return shape.extent == o.shape.extent && order == o.order && before == o.before && after == o.after;
}

namespace {

// An access's cost factor when `vector` is its statement's vector loop and its array is
// stored as `layout`: 1 when the loop leaves the access invariant (a broadcast) or walks the
// innermost storage dimension (contiguous), kStrided when it walks another (a gather).
constexpr double kStrided = 0.25;

double access_factor(const Expr& access, const Statement& s, int vector, const ArrayLayout* layout) {
  if (!layout) return 1;  // not decided yet: it will follow
  const std::size_t rank = access.args.size();
  for (std::size_t d = 0; d < rank; ++d)
    if (iterators_in(access.args[d], s.iterators).count(vector) && static_cast<int>(d) != layout->order.back()) return kStrided;
  return 1;
}

struct StatementUse {
  const Statement* statement;
  std::size_t program;
  double weight;
  int vector = -1;
};

// The vector loop of `s` given the layouts decided so far: the loop indexing the element it
// writes with the best lane share times the access factors, the deeper on a tie.
int choose_vector_loop(const Statement& s, const std::map<std::string, ArrayLayout>& layouts,
                       const std::set<std::string>& decided, int lanes) {
  if (!s.lhs || s.lhs->kind != Expr::Kind::kAccess) return -1;
  std::set<int> candidates;
  for (const ExprPtr& sub : s.lhs->args)
    for (int i : iterators_in(sub, s.iterators)) candidates.insert(i);
  const std::vector<long long> extents = constant_extents(s.domain);
  int best = -1;
  double best_score = -1;
  for (int v : candidates) {  // ascending: a tie goes to the deeper loop
    double score = lane_share(extents[static_cast<std::size_t>(v)], lanes);
    for (const Access& a : s.accesses) {
      auto it = layouts.find(a.array);
      if (it != layouts.end() && a.expr && decided.count(a.array)) score *= access_factor(*a.expr, s, v, &it->second);
    }
    if (score >= best_score) best = v, best_score = score;
  }
  return best;
}

}  // namespace

std::map<std::string, ArrayLayout> choose_layouts(const std::vector<const Scop*>& programs,
                                                  const std::map<std::string, ArrayShape>& shapes,
                                                  const LayoutOptions& options) {
  std::map<std::string, ArrayLayout> layouts;
  std::vector<StatementUse> uses;
  for (std::size_t p = 0; p < programs.size(); ++p) {
    for (const Statement& s : programs[p]->statements) {
      uses.push_back({&s, p, instances(s)});
      for (const Access& a : s.accesses) {
        auto shape = shapes.find(a.array);
        if (shape == shapes.end() || !a.expr || a.expr->kind != Expr::Kind::kAccess) continue;
        const int rank = static_cast<int>(a.expr->args.size());
        if (rank != static_cast<int>(shape->second.extent.size()))
          throw std::invalid_argument("layout: array " + a.array + " is declared with " +
                                      str(static_cast<long long>(shape->second.extent.size())) +
                                      " dimensions but accessed with " + str(rank) + " in " + to_c(*a.expr));
        check_shape(a.array, shape->second);
        ArrayLayout& layout = layouts[a.array];
        if (layout.array.empty()) {
          layout.array = a.array;
          layout.shape = shape->second;
          layout.order.resize(static_cast<std::size_t>(rank));
          std::iota(layout.order.begin(), layout.order.end(), 0);
          layout.before.assign(static_cast<std::size_t>(rank), 0);
          layout.after.assign(static_cast<std::size_t>(rank), 0);
        }
        // Padding: the box hull of the elements this access touches.
        isl::set touched = a.relation.range();
        for (int d = 0; d < rank; ++d) {
          const long long extent = layout.shape.extent[static_cast<std::size_t>(d)];
          if (extent < 0) continue;
          const auto lo = finite(isl_set_dim_min_val(touched.copy(), d));
          const auto hi = finite(isl_set_dim_max_val(touched.copy(), d));
          const long long below = lo ? std::max(0LL, -*lo) : 0, above = hi ? std::max(0LL, *hi - (extent - 1)) : 0;
          if ((below || above || !lo || !hi) && layout.shape.fixed)
            throw std::invalid_argument("layout: " + to_c(*a.expr) + " in " + s.name + " reaches outside " + a.array +
                                        "'s " + str(extent) + " elements along " + dim_name(layout.shape, d) +
                                        " (the array is the caller's: its box is fixed)");
          layout.before[static_cast<std::size_t>(d)] = std::max(layout.before[static_cast<std::size_t>(d)], below);
          layout.after[static_cast<std::size_t>(d)] = std::max(layout.after[static_cast<std::size_t>(d)], above);
        }
      }
    }
  }
  // The heaviest statements first: each chooses its vector loop given the layouts decided so
  // far and decides the order of the arrays it is the first to touch.
  std::stable_sort(uses.begin(), uses.end(), [](const StatementUse& a, const StatementUse& b) { return a.weight > b.weight; });
  std::set<std::string> decided;
  for (auto& [name, layout] : layouts)
    if (layout.shape.fixed) decided.insert(name), layout.reason = "fixed: the caller's buffer";
  const int lanes = std::max(1, options.vector_lanes);
  for (StatementUse& use : uses) {
    const Statement& s = *use.statement;
    use.vector = choose_vector_loop(s, layouts, decided, lanes);
    for (const Access& a : s.accesses) {
      auto it = layouts.find(a.array);
      if (it == layouts.end() || !a.expr || decided.count(a.array)) continue;
      std::vector<int> order = preferred_order(*a.expr, s, use.vector);
      if (!keeps_parameters_first(it->second.shape, order)) continue;  // a later access decides
      it->second.order = std::move(order);
      it->second.reason = "decided by " + s.name + " of program " + str(static_cast<long long>(use.program)) +
                          (use.vector >= 0 ? " (vector loop " + s.iterators[static_cast<std::size_t>(use.vector)] + ")" : "");
      decided.insert(a.array);
    }
  }
  // How many of each array's accessing instances the decided order suits (for the report).
  std::map<std::string, std::pair<double, double>> agree;  // array -> (suited, all)
  for (const StatementUse& use : uses)
    for (const Access& a : use.statement->accesses) {
      auto it = layouts.find(a.array);
      if (it == layouts.end() || !a.expr || it->second.shape.fixed) continue;
      auto& [suited, all] = agree[a.array];
      all += use.weight;
      if (access_factor(*a.expr, *use.statement, use.vector, &it->second) == 1) suited += use.weight;
    }
  for (auto& [name, layout] : layouts) {
    if (layout.shape.fixed) continue;
    const auto [suited, all] = agree[name];
    const long long percent = all > 0 ? static_cast<long long>(100 * suited / all + 0.5) : 100;
    const std::string decided = layout.reason.empty() ? "the declared order (no access could decide)" : layout.reason;
    layout.reason = dim_name(layout.shape, layout.order.back()) + " innermost, " + decided + "; " + str(percent) +
                    "% of the instances touching it are contiguous or broadcast";
  }
  return layouts;
}

namespace {

ExprPtr rewrite(const ExprPtr& e, const std::map<std::string, ArrayLayout>& layouts) {
  if (!e) return e;
  std::vector<ExprPtr> args;
  args.reserve(e->args.size());
  for (const ExprPtr& a : e->args) args.push_back(rewrite(a, layouts));
  auto it = e->kind == Expr::Kind::kAccess ? layouts.find(e->text) : layouts.end();
  if (it != layouts.end() && args.size() == it->second.order.size()) {
    std::vector<ExprPtr> stored;
    for (int d : it->second.order) {
      ExprPtr sub = args[static_cast<std::size_t>(d)];
      if (const long long pad = it->second.before[static_cast<std::size_t>(d)])
        sub = Expr::make(Expr::Kind::kBinary, "+", {sub, Expr::make(Expr::Kind::kInt, str(pad), {}, e->loc)}, e->loc);
      stored.push_back(sub);
    }
    args = std::move(stored);
  }
  return Expr::make(e->kind, e->text, std::move(args), e->loc);
}

// { A[d0, ..., dr] -> A[storage subscripts] }
isl::map storage_map(isl::ctx ctx, const ArrayLayout& layout) {
  std::string in, out;
  for (std::size_t d = 0; d < layout.order.size(); ++d) in += (d ? ", d" : "d") + str(static_cast<long long>(d));
  for (std::size_t k = 0; k < layout.order.size(); ++k) {
    const std::size_t d = static_cast<std::size_t>(layout.order[k]);
    out += (k ? ", d" : "d") + str(static_cast<long long>(d)) + (layout.before[d] ? " + " + str(layout.before[d]) : "");
  }
  return isl::map(ctx, "{ " + layout.array + "[" + in + "] -> " + layout.array + "[" + out + "] }");
}

}  // namespace

void apply_layouts(Scop& scop, const std::map<std::string, ArrayLayout>& layouts) {
  std::map<std::string, isl::map> maps;
  for (const auto& [name, layout] : layouts)
    if (scop.array(name)) maps.emplace(name, storage_map(scop.ctx, layout));
  for (Statement& s : scop.statements) {
    s.lhs = rewrite(s.lhs, layouts);
    s.rhs = rewrite(s.rhs, layouts);
    for (Access& a : s.accesses) {
      auto m = maps.find(a.array);
      if (m == maps.end()) continue;
      a.expr = rewrite(a.expr, layouts);
      a.relation = a.relation.apply_range(m->second);
    }
  }
}

}  // namespace pz::poly
