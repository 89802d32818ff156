#include "polyhedral/transform/matmul_packing.h"

#include <isl/aff.h>
#include <isl/schedule.h>
#include <isl/set.h>

#include <algorithm>
#include <map>
#include <set>

#include "polyhedral/ir/isl_context.h"
#include "polyhedral/ir/point_count.h"
#include "polyhedral/transform/parallel_marks.h"

namespace pz::poly {

namespace {

// The statement iterators `e` mentions.
std::set<std::string> iterators_in(const ExprPtr& e, const std::vector<std::string>& iterators) {
  std::set<std::string> out;
  visit(e, [&](const ExprPtr& x) {
    if (x->kind == Expr::Kind::kName && std::count(iterators.begin(), iterators.end(), x->text)) out.insert(x->text);
  });
  return out;
}

bool reads_array(const ExprPtr& e, const std::string& name) {
  bool found = false;
  visit(e, [&](const ExprPtr& x) { found = found || (x->kind == Expr::Kind::kAccess && x->text == name); });
  return found;
}

// The first part of `e` whose value is not of `type` before C's usual arithmetic conversions
// (C11 6.3.1.8): an array or scalar with elements of another type, a cast to one, a call, a
// double literal in a float's product; "" when there is none. Packed slivers hold each factor
// in `type`, which is the factor's own type only then. Integer values (iterators, sizes,
// integer literals) convert to a floating `type` exactly as in the source.
std::string part_of_another_type(const ExprPtr& e, const Scop& scop, const std::string& type) {
  std::string found;
  visit(e, [&](const ExprPtr& x) {
    if (!found.empty()) return;
    const Array* a = x->kind == Expr::Kind::kAccess || x->kind == Expr::Kind::kName ? scop.array(x->text) : nullptr;
    const bool float_literal = !x->text.empty() && (x->text.back() == 'f' || x->text.back() == 'F');
    if ((a && a->element_type != type) || (x->kind == Expr::Kind::kCast && x->text != type) || x->kind == Expr::Kind::kCall ||
        (x->kind == Expr::Kind::kFloat && type == "float" && !float_literal))
      found = to_c(*x);
  });
  return found;
}

bool within(const std::set<std::string>& names, const std::set<std::string>& allowed) {
  return std::includes(allowed.begin(), allowed.end(), names.begin(), names.end());
}

// Whether the first array `operand` reads has `k` as its last subscript.
bool k_contiguous(const ExprPtr& operand, const std::string& k) {
  const Expr* first = nullptr;
  visit(operand, [&](const ExprPtr& x) {
    if (!first && x->kind == Expr::Kind::kAccess) first = x.get();
  });
  if (!first || first->args.empty()) return false;
  const Expr& last = *first->args.back();
  return last.kind == Expr::Kind::kName && last.text == k;
}

// Whether `s`'s domain is `set` wherever the parameters allow `s` instances.
bool domain_is(const Statement& s, const isl::set& set) {
  return s.domain.is_subset(set) && set.intersect_params(s.domain.params()).is_subset(s.domain);
}

// `s`'s domain as the box of its members' inclusive bounds (C expressions of the parameters),
// cut by at most one triangle constraint between m and n (syrk's j <= i); false when it is
// no such set (strides, other shapes). Sets the bounds and triangle fields of `c`.
bool match_domain(const Scop& scop, const Statement& s, Contraction& c) {
  std::string params, dims, box;
  for (const auto& p : scop.params) params += (params.empty() ? "" : ", ") + p;
  for (int d = 0; d < static_cast<int>(s.iterators.size()); ++d) {
    isl_pw_aff* lo = isl_set_dim_min(s.domain.copy(), d);
    isl_pw_aff* hi = isl_set_dim_max(s.domain.copy(), d);
    std::string l, h;
    if (isl_pw_aff_n_piece(lo) == 1 && isl_pw_aff_n_piece(hi) == 1) {
      l = pw_aff_bound_to_c(lo);  // takes lo
      h = pw_aff_bound_to_c(hi);
    } else {
      isl_pw_aff_free(lo);
      isl_pw_aff_free(hi);
    }
    if (l.empty() || h.empty()) return false;
    const std::string& it = s.iterators[d];
    (it == c.m ? c.m_lo : it == c.n ? c.n_lo : c.k_lo) = l;
    (it == c.m ? c.m_hi : it == c.n ? c.n_hi : c.k_hi) = h;
    dims += (dims.empty() ? "" : ", ") + it;
    box += (box.empty() ? "" : " and ") + l + " <= " + it + " <= " + h;
  }
  auto is_domain = [&](const std::string& constraints) {
    return domain_is(s, isl::set(scop.ctx, "[" + params + "] -> { " + s.name + "[" + dims + "] : " + constraints + " }"));
  };
  if (is_domain(box)) return true;
  for (int side : {1, -1})
    for (long offset : {0L, -1L, 1L}) {
      c.triangle = side;
      c.triangle_offset = offset;
      if (is_domain(box + " and " + triangle_condition(c, c.n, c.m))) return true;
    }
  c.triangle = 0;
  return false;
}

long long domain_volume(const Scop& scop, const Statement& s) {
  for (const auto& p : scop.params)
    if (!scop.param_values.count(p)) return -1;
  long long volume = 1;
  for (long long e : constant_extents(s.domain)) {
    if (e <= 0) return -1;
    volume = saturating_product(volume, e);
  }
  return volume;
}

// The products of `e`, a left-leaning chain p1 + p2 - p3 ... of products, with the sign
// before each; false for any other shape.
bool sum_of_products(const ExprPtr& e, const std::string& sign, std::vector<std::pair<std::string, ExprPtr>>& out) {
  if (e->kind != Expr::Kind::kBinary) return false;
  if (e->text == "*") {
    out.emplace_back(sign, e);
    return true;
  }
  if (e->text != "+" && e->text != "-") return false;
  return sum_of_products(e->args[0], sign, out) && e->args[1]->kind == Expr::Kind::kBinary && e->args[1]->text == "*" &&
         sum_of_products(e->args[1], e->text, out);
}

// `product` as L (iterators among m, k) times R (among k, n), either factor first.
std::optional<ContractionTerm> match_term(const ExprPtr& product, const std::vector<std::string>& iterators, const Contraction& c) {
  const ExprPtr& a = product->args[0];
  const ExprPtr& b = product->args[1];
  const std::set<std::string> mk{c.m, c.k}, kn{c.k, c.n};
  const std::set<std::string> in_a = iterators_in(a, iterators), in_b = iterators_in(b, iterators);
  ExprPtr left, right;
  if (within(in_a, mk) && within(in_b, kn)) left = a, right = b;
  else if (within(in_b, mk) && within(in_a, kn)) left = b, right = a;
  else return std::nullopt;
  ContractionTerm t;
  t.left = to_c(*left);
  t.right = to_c(*right);
  t.left_iterators = iterators_in(left, iterators);
  t.right_iterators = iterators_in(right, iterators);
  t.left_k_contiguous = k_contiguous(left, c.k);
  t.right_k_contiguous = k_contiguous(right, c.k);
  t.left_in_place = left->kind == Expr::Kind::kAccess && !left->args.empty() && left->args.back()->kind == Expr::Kind::kName &&
                    left->args.back()->text == c.k &&
                    std::none_of(left->args.begin(), left->args.end() - 1,
                                 [&](const ExprPtr& a) { return iterators_in(a, iterators).count(c.k) > 0; });
  t.right_in_place = right->kind == Expr::Kind::kAccess && !right->args.empty() &&
                     right->args.back()->kind == Expr::Kind::kName && right->args.back()->text == c.n;
  return t;
}

std::optional<Contraction> match_unbudgeted(const Scop& scop, const Statement& s, std::string& why) {
  if (s.op != "+=" && s.op != "-=") return why = "not an update += or -=", std::nullopt;
  if (!s.lhs || s.lhs->kind != Expr::Kind::kAccess || s.lhs->args.empty())
    return why = "does not update an array element", std::nullopt;
  if (s.iterators.size() != 3) return why = "not three loops deep", std::nullopt;
  const Expr& last = *s.lhs->args.back();
  const std::set<std::string> written = iterators_in(s.lhs, s.iterators);
  if (last.kind != Expr::Kind::kName || !written.count(last.text) || written.size() != 2)
    return why = "the element written is not indexed by two loops, the last subscript one of them", std::nullopt;
  Contraction c;
  c.statement = s.name;
  c.n = last.text;
  for (const auto& it : s.iterators)
    if (it != c.n && written.count(it)) c.m = it;
    else if (!written.count(it)) c.k = it;
  std::vector<std::pair<std::string, ExprPtr>> products;
  if (!s.rhs || !sum_of_products(s.rhs, "+", products)) return why = "the update is not a sum of products", std::nullopt;
  for (const auto& [sign, product] : products) {
    std::optional<ContractionTerm> term = match_term(product, s.iterators, c);
    if (!term) return why = "a product is not (" + c.m + ", " + c.k + ") times (" + c.k + ", " + c.n + ")", std::nullopt;
    term->sign = sign;
    c.terms.push_back(*term);
  }
  if (reads_array(s.rhs, s.lhs->text)) return why = "the product reads " + s.lhs->text, std::nullopt;
  const Array* x = scop.array(s.lhs->text);
  c.element_type = x ? x->element_type : typeof_element(s.lhs->text, static_cast<int>(s.lhs->args.size()));
  if (!is_named_type(c.element_type))
    return why = "the type of " + s.lhs->text + "'s elements has no name polyc knows (" + c.element_type +
                 "; --cpp resolves macros)",
           std::nullopt;
  if (c.element_type != "double" && c.element_type != "float")
    return why = "elements of type " + c.element_type + ", not floating point", std::nullopt;
  if (const std::string other = part_of_another_type(s.rhs, scop, c.element_type); !other.empty())
    return why = other + " is not of " + s.lhs->text + "'s type " + c.element_type + ", which the packed slivers hold",
           std::nullopt;
  c.element_bytes = x ? x->element_bytes() : 8;
  if (!match_domain(scop, s, c)) return why = "the domain is neither a box nor a box cut by " + c.n + " <= or >= " + c.m, std::nullopt;
  c.target = to_c(*s.lhs);
  c.op = s.op;
  c.multiply_adds = domain_volume(scop, s);
  return c;
}

std::string params_prefix(const Scop& scop) {
  std::string params;
  for (const auto& p : scop.params) params += (params.empty() ? "" : ", ") + p;
  return "[" + params + "] -> ";
}

// Every dependence of the contraction on itself stays within one element of X, k increasing:
// the packed loops, which keep only that order, are then legal.
bool self_dependences_within_elements(const Scop& scop, const Statement& s, const Contraction& c, const isl::union_map& validity) {
  const isl::union_set domain(s.domain);
  const isl::union_map self = validity.intersect_domain(domain).intersect_range(domain);
  std::string in, out;
  for (const auto& it : s.iterators) {
    in += (in.empty() ? "" : ", ") + it;
    out += (out.empty() ? "pz_later_" : ", pz_later_") + it;
  }
  const std::string same = "pz_later_" + c.m + " = " + c.m + " and pz_later_" + c.n + " = " + c.n + " and pz_later_" + c.k + " > " + c.k;
  const isl::union_map allowed(scop.ctx, params_prefix(scop) + "{ " + s.name + "[" + in + "] -> " + s.name + "[" + out +
                                             "] : " + same + " }");
  return self.is_subset(allowed);
}

isl::union_set piece_domain(const Scop& scop, const MatmulPiece& piece) {
  isl::union_set out;
  for (const auto& name : piece.statements) {
    const isl::union_set domain(scop.statement(name)->domain);
    out = out.is_null() ? domain : out.unite(domain);
  }
  return out;
}

// No dependence from a later piece to an earlier one.
bool pieces_in_order(const Scop& scop, const std::vector<MatmulPiece>& pieces, const isl::union_map& validity) {
  for (std::size_t later = 1; later < pieces.size(); ++later)
    for (std::size_t earlier = 0; earlier < later; ++earlier) {
      const isl::union_map back = validity.intersect_domain(piece_domain(scop, pieces[later]))
                                      .intersect_range(piece_domain(scop, pieces[earlier]));
      if (!back.is_empty()) return false;
    }
  return true;
}

// Fusion of a contraction's neighbours (matmul_packing.h).

// The NameMap that applies `names`.
NameMap renaming(const std::map<std::string, std::string>& names) {
  return [&names](const std::string& name) -> std::optional<std::string> {
    const auto it = names.find(name);
    return it == names.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

// `s` renamed onto the contraction's (m, n): a map from s's two iterators to c.m and c.n
// under which every access of s to X's array prints as c.target, and at least one does;
// nullopt when there is none.
std::optional<std::map<std::string, std::string>> onto_element(const Statement& s, const Contraction& c,
                                                               const std::string& x) {
  if (s.iterators.size() != 2) return std::nullopt;
  for (int swap = 0; swap < 2; ++swap) {
    const std::map<std::string, std::string> names{{s.iterators[swap], c.m}, {s.iterators[1 - swap], c.n}};
    const NameMap rename = renaming(names);
    bool all = true;
    int count = 0;
    for (const ExprPtr& side : {s.lhs, s.rhs}) {
      if (!side) continue;
      visit(side, [&](const ExprPtr& e) {
        if (e->kind != Expr::Kind::kAccess || e->text != x) return;
        ++count;
        all = all && to_c(*e, rename) == c.target;
      });
    }
    if (all && count > 0) return names;
  }
  return std::nullopt;
}

// Whether `s`'s domain is the contraction's (m, n) domain under `names`.
bool spans_element_domain(const Scop& scop, const Statement& s, const Contraction& c,
                          const std::map<std::string, std::string>& names) {
  std::string sm, sn;
  for (const auto& [from, to] : names) (to == c.m ? sm : sn) = from;
  const std::string constraints = c.m_lo + " <= " + sm + " <= " + c.m_hi + " and " + c.n_lo + " <= " + sn + " <= " + c.n_hi +
                                  (c.triangle ? " and " + triangle_condition(c, sn, sm) : "");
  return domain_is(s, isl::set(scop.ctx, params_prefix(scop) + "{ " + s.name + "[" + s.iterators[0] + ", " + s.iterators[1] +
                                              "] : " + constraints + " }"));
}

// Whether every dependence between `s` and the contraction's statement `x` links the same
// element (`s_first`: s runs before x), and s's instances are independent of each other.
bool dependences_within_elements(const Scop& scop, const Statement& s, const Statement& x,
                                 const std::map<std::string, std::string>& names, bool s_first,
                                 const isl::union_map& validity) {
  const isl::union_set s_domain(s.domain), x_domain(x.domain);
  if (!validity.intersect_domain(s_domain).intersect_range(s_domain).is_empty()) return false;
  std::string s_dims, x_dims, same;
  for (const auto& it : s.iterators) s_dims += (s_dims.empty() ? "" : ", ") + it;
  for (const auto& it : x.iterators) x_dims += (x_dims.empty() ? "pz_x_" : ", pz_x_") + it;
  for (const auto& [from, to] : names) same += (same.empty() ? "" : " and ") + from + " = pz_x_" + to;
  const std::string s_tuple = s.name + "[" + s_dims + "]", x_tuple = x.name + "[" + x_dims + "]";
  const isl::union_map allowed(scop.ctx, params_prefix(scop) + "{ " + (s_first ? s_tuple + " -> " + x_tuple : x_tuple + " -> " + s_tuple) +
                                             " : " + same + " }");
  const isl::union_map between = s_first ? validity.intersect_domain(s_domain).intersect_range(x_domain)
                                         : validity.intersect_domain(x_domain).intersect_range(s_domain);
  return between.is_subset(allowed);
}

// `s` as C over the contraction's m and n when it may join the contraction `c` of statement
// `x` (before each element's first update when `s_first`, after its last otherwise).
std::optional<std::string> fusable(const Scop& scop, const Statement& s, const Statement& x, const Contraction& c,
                                   bool s_first, const isl::union_map& validity) {
  const std::string array = x.lhs->text;
  if (s_first && (!s.lhs || s.lhs->kind != Expr::Kind::kAccess || s.lhs->text != array)) return std::nullopt;
  const auto names = onto_element(s, c, array);
  if (!names || !spans_element_domain(scop, s, c, *names) ||
      !dependences_within_elements(scop, s, x, *names, s_first, validity))
    return std::nullopt;
  return s.to_c(renaming(*names));
}

// Moves into each contraction the statement just before it that initialises its elements
// and the one just after it that reads their final values, where fusable; drops the pieces
// this empties.
void fuse_neighbours(const Scop& scop, const isl::union_map& validity, MatmulPlan& plan, std::vector<std::string>& log) {
  auto& pieces = plan.pieces;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (!pieces[i].contraction) continue;
    Contraction& c = *pieces[i].contraction;
    const Statement& x = *scop.statement(c.statement);
    auto fuse = [&](MatmulPiece& neighbour, bool before) {
      if (neighbour.contraction || neighbour.statements.empty()) return;
      const std::string name = before ? neighbour.statements.back() : neighbour.statements.front();
      std::optional<std::string> code;
      try {
        code = fusable(scop, *scop.statement(name), x, c, before, validity);
      } catch (const isl::exception&) {
        return;
      }
      if (!code) return;
      (before ? c.prologue : c.epilogue) = *code;
      (before ? c.prologue_statement : c.epilogue_statement) = name;
      auto& list = neighbour.statements;
      list.erase(before ? list.end() - 1 : list.begin());
      log.push_back("matmul packing: " + name + " fused into " + c.statement + "'s packed loops (" +
                    (before ? "before each element's first update" : "after each element's last update") + ")");
    };
    if (i > 0) fuse(pieces[i - 1], true);
    if (i + 1 < pieces.size()) fuse(pieces[i + 1], false);
  }
  for (std::size_t i = pieces.size(); i-- > 0;)
    if (!pieces[i].contraction && pieces[i].statements.empty()) {
      pieces.erase(pieces.begin() + static_cast<long>(i));
      plan.blockings.erase(plan.blockings.begin() + static_cast<long>(i));
    }
}

long round_down(long x, long multiple) { return std::max(multiple, x / multiple * multiple); }
long round_up(long long x, long multiple) { return static_cast<long>((x + multiple - 1) / multiple * multiple); }

}  // namespace

std::string triangle_condition(const Contraction& c, const std::string& n, const std::string& m) {
  if (c.triangle == 0) return "1";
  const std::string shifted = c.triangle_offset == 0 ? m
                              : c.triangle_offset > 0 ? m + " + " + std::to_string(c.triangle_offset)
                                                      : m + " - " + std::to_string(-c.triangle_offset);
  return n + (c.triangle > 0 ? " <= " : " >= ") + shifted;
}

bool may_hold_contractions(const Scop& scop, std::size_t depth) {
  return std::any_of(scop.statements.begin(), scop.statements.end(), [depth](const Statement& s) {
    return (s.op == "+=" || s.op == "-=") && s.iterators.size() == depth;
  });
}

std::optional<Contraction> match_contraction(const Scop& scop, const Statement& s, std::string& why) {
  try {
    return match_unbudgeted(scop, s, why);
  } catch (const isl::exception& e) {
    why = std::string("isl: ") + e.what();
    return std::nullopt;
  }
}

MatmulBlocking matmul_blocking(const CacheInfo& cache, const MatmulPackingOptions& o, const Contraction& c) {
  MatmulBlocking b;
  const long eb = c.element_bytes;
  b.lanes = std::max(1, o.vector_bytes / static_cast<int>(eb));
  b.nr = o.vectors_per_row * b.lanes;
  b.mr = std::max(1, o.accumulator_vectors / o.vectors_per_row / static_cast<int>(std::max<std::size_t>(1, c.terms.size())));
  // Low et al.: R's k_c x n_r sliver stays in L1 while L's m_r x k_c slivers stream through
  // it; L's m_c x k_c block stays in L2 while R's slivers stream. The sliver takes all of L1
  // rather than half: L's slivers are m_r / n_r of its size, and a larger k_c divides the
  // traffic of X's blocks (loaded and stored once per k_c rank-1 updates) by as much.
  b.kc = std::clamp(round_down(cache.l1 / (b.nr * eb), 8), 32L, 512L);
  b.mc = std::clamp(round_down(cache.l2 / 2 / (b.kc * eb), b.mr), static_cast<long>(b.mr),
                    static_cast<long>(o.max_slivers_per_block) * b.mr);
  return b;
}

namespace {

// With concrete sizes the blocks shrink to the problem (smaller buffers, no empty blocks).
MatmulBlocking fit_to_extents(MatmulBlocking b, const Statement& s, const Contraction& c) {
  const std::vector<long long> ext = constant_extents(s.domain);
  for (std::size_t d = 0; d < s.iterators.size(); ++d) {
    if (ext[d] <= 0) continue;
    if (s.iterators[d] == c.k) b.kc = std::min<long>(b.kc, static_cast<long>(ext[d]));
    if (s.iterators[d] == c.m) b.mc = std::min(b.mc, round_up(ext[d], b.mr));
  }
  return b;
}

// The reuses of R's panel (MatmulBlocking::right_panel_reuse) when R is packed and the
// concrete sizes, where known, give its slivers enough of them; 0 otherwise.
long right_panel_reuse(const Statement& s, const Contraction& c, const MatmulBlocking& b, const MatmulPackingOptions& o) {
  const long elements_per_page = std::max(1L, 4096L / c.element_bytes);
  const long min_reuse = (o.min_right_panel_copies_per_page + elements_per_page - 1) / elements_per_page;
  if (min_reuse <= 0) return 0;
  if (std::all_of(c.terms.begin(), c.terms.end(), [](const ContractionTerm& t) { return t.right_in_place; })) return 0;
  const std::vector<long long> ext = constant_extents(s.domain);
  long long m_blocks = -1, k_blocks = -1;
  for (std::size_t d = 0; d < s.iterators.size(); ++d) {
    if (ext[d] <= 0) continue;
    if (s.iterators[d] == c.m) m_blocks = (ext[d] + b.mc - 1) / b.mc;
    if (s.iterators[d] == c.k) k_blocks = (ext[d] + b.kc - 1) / b.kc;
  }
  if (m_blocks > 0 && k_blocks > 0 && (m_blocks - 1) * k_blocks < min_reuse) return 0;
  return min_reuse;
}

}  // namespace


namespace {

// Why the contraction `c` of `s`, blocked as `b`, is not packed; "" when it is.
std::string reason_not_to_pack(const Scop& scop, const Statement& s, const Contraction& c, const MatmulBlocking& b,
                               const MatmulPackingOptions& o, const isl::union_map& validity) {
  if (c.multiply_adds >= 0 && c.multiply_adds < o.min_multiply_adds)
    return "cost model: " + s.name + " is a contraction of " + std::to_string(c.multiply_adds) + " multiply-adds, under " +
           std::to_string(o.min_multiply_adds) + ": not packed";
  const std::vector<long long> ext = constant_extents(s.domain);
  for (std::size_t d = 0; d < s.iterators.size(); ++d) {
    const long long tile = s.iterators[d] == c.m ? b.mr : s.iterators[d] == c.n ? b.nr : 0;
    if (ext[d] > 0 && ext[d] < tile)
      return "cost model: " + s.name + "'s " + s.iterators[d] + " has " + std::to_string(ext[d]) + " values, fewer than the " +
             std::to_string(b.mr) + "x" + std::to_string(b.nr) + " micro-tile: not packed";
  }
  if (!self_dependences_within_elements(scop, s, c, validity))
    return "matmul packing: " + s.name + " depends on itself across elements of " + c.target;
  return "";
}

}  // namespace

std::optional<MatmulPlan> plan_matmul_packing(const Scop& scop, const Dependences& deps, const CacheInfo& cache,
                                              const MatmulPackingOptions& o, std::vector<std::string>& log) {
  if (!o.enabled) return std::nullopt;
  const isl::union_map validity = deps.validity();
  MatmulPlan plan;
  for (const auto& s : scop.statements) {
    std::string why;
    std::optional<Contraction> c = match_contraction(scop, s, why);
    MatmulBlocking b;
    if (c) {
      if (!o.left_in_place)
        for (auto& term : c->terms) term.left_in_place = false;
      b = fit_to_extents(matmul_blocking(cache, o, *c), s, *c);
      if (b.mc >= static_cast<long>(o.min_slivers_to_pack_right) * b.mr)
        for (auto& term : c->terms) term.right_in_place = false;
      b.right_panel_reuse = right_panel_reuse(s, *c, b, o);
      why = reason_not_to_pack(scop, s, *c, b, o, validity);
      if (!why.empty()) c.reset();
    } else {
      why = "matmul packing: " + s.name + " is no contraction (" + why + ")";
    }
    if (!why.empty()) log.push_back(why);
    if (c || plan.pieces.empty() || plan.pieces.back().contraction) {
      plan.pieces.push_back({c, {s.name}});
      plan.blockings.push_back(b);
    } else {
      plan.pieces.back().statements.push_back(s.name);
    }
  }
  if (std::none_of(plan.pieces.begin(), plan.pieces.end(), [](const MatmulPiece& p) { return p.contraction.has_value(); }))
    return std::nullopt;
  if (!pieces_in_order(scop, plan.pieces, validity)) {
    log.push_back("matmul packing: a dependence runs from a later piece to an earlier one; not packed");
    return std::nullopt;
  }
  if (o.fuse_neighbours) fuse_neighbours(scop, validity, plan, log);
  for (std::size_t i = 0; i < plan.pieces.size(); ++i) {
    const auto& c = plan.pieces[i].contraction;
    const MatmulBlocking& b = plan.blockings[i];
    if (c)
      log.push_back("matmul packing: " + c->statement + " packed, micro-tile " + std::to_string(b.mr) + "x" + std::to_string(b.nr) +
                    " (" + c->m + " x " + c->n + "), blocks m_c " + std::to_string(b.mc) + ", k_c " + std::to_string(b.kc) +
                    (b.right_panel_reuse > 0 ? ", R's slivers kept in a panel across the m_c blocks when each is reused at least " +
                                                   std::to_string(b.right_panel_reuse) + " times"
                                             : ""));
  }
  return plan;
}

}  // namespace pz::poly
