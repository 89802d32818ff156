#include "polyhedral/transform/register_blocking.h"

#include <isl/ast_type.h>
#include <isl/constraint.h>
#include <isl/fixed_box.h>
#include <isl/id.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/val.h>

#include <algorithm>
#include <bit>

#include "polyhedral/ir/isl_context.h"
#include "polyhedral/transform/parallel_marks.h"

namespace pz::poly {

std::string RegisterBlock::describe() const {
  return array + " in a " + std::to_string(rows) + "x" + std::to_string(columns) + " register block (rows " +
         (row_iterator.empty() ? std::string("-") : row_iterator) + ", vectors " + vector_iterator + ")";
}

namespace {

// True when `e` reads array `name` anywhere.
bool reads_array(const ExprPtr& e, const std::string& name) {
  bool found = false;
  if (e) visit(e, [&](const ExprPtr& x) { found = found || (x->kind == Expr::Kind::kAccess && x->text == name); });
  return found;
}

// Every access to `name` in `e` prints as `access`.
bool only_as(const ExprPtr& e, const std::string& name, const std::string& access) {
  bool ok = true;
  if (e)
    visit(e, [&](const ExprPtr& x) {
      if (x->kind == Expr::Kind::kAccess && x->text == name) ok = ok && to_c(*x) == access;
    });
  return ok;
}

isl::set with_name(const isl::set& set, const std::string& name) {
  return isl::manage(isl_set_set_tuple_name(set.copy(), name.c_str()));
}

// True when every name of `x` is one of `all`'s and `all` has more.
bool contains_all(const std::vector<std::string>& all, const std::vector<std::string>& x) {
  for (const auto& name : x)
    if (std::find(all.begin(), all.end(), name) == all.end()) return false;
  return all.size() > x.size();
}

// `all` without the names of `x`, in order: an update's reduction iterators.
std::vector<std::string> without(const std::vector<std::string>& all, const std::vector<std::string>& x) {
  std::vector<std::string> out;
  for (const auto& name : all)
    if (std::find(x.begin(), x.end(), name) == x.end()) out.push_back(name);
  return out;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

// The instances of update `s` projected onto the initialisation's iterators, as `init`'s set.
isl::set project_onto(const Scop& scop, const Statement& s, const Statement& init) {
  const isl::map to_init(scop.ctx, "[" + join(scop.params, ", ") + "] -> { " + s.name + "[" + join(s.iterators, ", ") +
                                       "] -> " + init.name + "[" + join(init.iterators, ", ") + "] }");
  return s.domain.apply(to_init);
}

// The dimension of the affine hull of `domain`: its iterators less the equalities that fix
// some of them (S[r, q, p] with r = nr - 1 and q = nq - 1 is 1-dimensional).
int hull_dimension(const isl::set& domain) {
  isl_basic_set* hull = isl_set_affine_hull(domain.copy());
  const int n = static_cast<int>(isl_basic_set_dim(hull, isl_dim_set));
  int fixed = 0;
  isl_basic_set_foreach_constraint(
      hull,
      [](isl_constraint* c, void* user) {
        const int dims = static_cast<int>(isl_constraint_dim(c, isl_dim_set));
        if (isl_constraint_is_equality(c) == isl_bool_true && isl_constraint_involves_dims(c, isl_dim_set, 0, dims) == isl_bool_true)
          ++*static_cast<int*>(user);
        isl_constraint_free(c);
        return isl_stat_ok;
      },
      &fixed);
  isl_basic_set_free(hull);
  return n - fixed;
}

// True when `domain` is the product of its members' ranges (no member's bounds depend on
// another's, as a triangle's j <= i does).
bool is_box(const isl::set& domain) {
  const int n = static_cast<int>(isl_set_dim(domain.get(), isl_dim_set));
  isl_set* box = nullptr;
  for (int i = 0; i < n; ++i) {
    isl_set* range = isl_set_project_out(isl_set_project_out(domain.copy(), isl_dim_set, static_cast<unsigned>(i + 1),
                                                             static_cast<unsigned>(n - i - 1)),
                                         isl_dim_set, 0, static_cast<unsigned>(i));
    box = box ? isl_set_flat_product(box, range) : range;
  }
  if (!box) return true;
  isl_set* whole = isl_set_reset_tuple_id(domain.copy());
  box = isl_set_reset_tuple_id(box);
  const bool equal = isl_set_is_equal(box, whole) == isl_bool_true;
  isl_set_free(box);
  isl_set_free(whole);
  return equal;
}

// Indices into the scop's statements (which may grow: the added stores).
struct Chain {
  std::size_t init = 0;
  std::vector<std::size_t> updates;
  std::optional<std::size_t> final;
  // The accumulator must also reach memory: something reads Z after the block (a later
  // statement, a later block's loading initialisation, or the program when Z is live-out)
  // but the final statement writes W != Z.
  bool store_z = false;
};

// The chain's statements, or the reason the scop is not one. Statements after the chain
// (`trailing`) may read Z and W; that they run after every block is for the legality check.
std::optional<Chain> find_chain(const Scop& scop, const RegisterBlockOptions& o, std::string& why) {
  const auto& st = scop.statements;
  if (st.size() < 2) return why = "fewer than two statements", std::nullopt;
  Chain c;
  const Statement& init = st[0];
  if (!init.lhs || init.lhs->kind != Expr::Kind::kAccess) return why = "the first statement does not assign an array element", std::nullopt;
  const std::string z = init.lhs->text, target = to_c(*init.lhs);
  if (reads_array(init.rhs, z)) return why = "the first statement reads " + z + " on its right-hand side", std::nullopt;
  std::size_t k = 1;
  for (; k < st.size(); ++k) {
    const Statement& s = st[k];
    if (s.op == "=" || !s.lhs || to_c(*s.lhs) != target) break;
    if (!contains_all(s.iterators, init.iterators))
      return why = s.name + " does not reduce over loops inside " + init.name + "'s", std::nullopt;
    if (reads_array(s.rhs, z)) return why = s.name + " reads " + z + " on its right-hand side", std::nullopt;
    if (!project_onto(scop, s, init).is_subset(init.domain))
      return why = s.name + " updates elements " + init.name + " does not initialise", std::nullopt;
    c.updates.push_back(k);
  }
  if (c.updates.empty()) return why = "no update of " + target + " follows its initialisation", std::nullopt;
  if (k < st.size()) {
    const Statement& f = st[k];
    const bool is_final = f.op == "=" && f.lhs && f.lhs->kind == Expr::Kind::kAccess && f.iterators == init.iterators &&
                          f.domain.is_equal(with_name(init.domain, f.name)) && reads_array(f.rhs, z);
    if (is_final) {
      if (!only_as(f.rhs, z, target)) return why = f.name + " reads " + z + " other than as " + target, std::nullopt;
      if (f.lhs->text == z && to_c(*f.lhs) != target)
        return why = f.name + " writes another element of " + z + " than the one it finalises", std::nullopt;
      c.final = k++;
    }
  }
  // After the chain only statements of fewer dimensions than it (copies out of an expanded
  // accumulator, say), which run in source order: larger ones are better served by the
  // usual passes than left untransformed.
  const int chain_dimension = hull_dimension(init.domain);
  for (std::size_t t = k; t < st.size(); ++t) {
    if (st[t].domain.is_empty()) continue;
    if (hull_dimension(st[t].domain) >= chain_dimension)
      return why = "statements after the final one (" + st[t].name + " as large as the chain)", std::nullopt;
    if (st[t].lhs && st[t].lhs->text == z) return why = st[t].name + " writes " + z + " after the chain", std::nullopt;
    if (reads_array(st[t].rhs, z)) c.store_z = true;
  }
  const bool final_writes_other = c.final && st[*c.final].lhs->text != z;
  if (final_writes_other && (!o.live_out || o.live_out->count(z))) c.store_z = true;
  // An initialisation that loads the element reads what an earlier block left in memory.
  if (init.op != "=") c.store_z = true;
  if (!c.final || !final_writes_other) c.store_z = false;  // the final (or added) store is Z's
  c.init = 0;
  return c;
}

// Z[f(x)] = Z[f(x)]: the store of the block when the chain has no final statement.
Statement store_statement(const Scop& scop, const Statement& init) {
  Statement s = init;
  s.name = "S" + std::to_string(scop.statements.size());
  while (scop.statement(s.name)) s.name += "_store";
  s.domain = with_name(init.domain, s.name);
  s.op = "=";
  s.rhs = init.lhs;
  Access write = init.accesses.front(), read = write;
  write.relation = isl::manage(isl_map_set_tuple_name(write.relation.copy(), isl_dim_in, s.name.c_str()));
  read.write = false;
  read.relation = write.relation;
  s.accesses = {write, read};
  return s;
}

isl::multi_union_pw_aff partial(isl::ctx ctx, const Scop& scop, const std::vector<std::pair<const Statement*, std::string>>& parts) {
  std::vector<std::string> pieces;
  for (const auto& [s, exprs] : parts) pieces.push_back(s->name + "[" + join(s->iterators, ", ") + "] -> [" + exprs + "]");
  const std::string text = "[" + join(scop.params, ", ") + "] -> { " + join(pieces, "; ") + " }";
  isl::union_pw_multi_aff upma(ctx, text);
  return isl::manage(isl_multi_union_pw_aff_from_union_pw_multi_aff(upma.release()));
}

isl::schedule insert_band(isl::schedule s, const isl::multi_union_pw_aff& band, bool unroll = false) {
  s = isl::manage(isl_schedule_insert_partial_schedule(s.release(), band.copy()));
  if (!unroll) return s;
  isl_schedule_node* node = isl_schedule_node_child(isl_schedule_get_root(s.get()), 0);
  for (int i = 0, n = static_cast<int>(isl_schedule_node_band_n_member(node)); i < n; ++i)
    node = isl_schedule_node_band_member_set_ast_loop_type(node, i, isl_ast_loop_unroll);
  isl_schedule* out = isl_schedule_node_get_schedule(node);
  isl_schedule_node_free(node);
  return isl::manage(out);
}

// A mark right below the domain; `depth` is the schedule depth of the loop it means.
isl::schedule insert_mark(isl::schedule s, const std::string& name, intptr_t depth) {
  isl_schedule_node* node = isl_schedule_node_child(isl_schedule_get_root(s.get()), 0);
  node = isl_schedule_node_insert_mark(node, isl_id_alloc(s.ctx().get(), name.c_str(), reinterpret_cast<void*>(depth)));
  isl_schedule* out = isl_schedule_node_get_schedule(node);
  isl_schedule_node_free(node);
  return isl::manage(out);
}

// The root band's iterations whose last member is at most `last_full` isolated (isl's
// "isolate" AST option): isl generates them as loops of their own, apart from the rest.
isl::schedule isolate_last_member_up_to(isl::schedule s, long long last_full) {
  isl_schedule_node* node = isl_schedule_node_child(isl_schedule_get_root(s.get()), 0);
  const int n = static_cast<int>(isl_schedule_node_band_n_member(node));
  std::vector<std::string> t;
  for (int i = 0; i < n; ++i) t.push_back("t" + std::to_string(i));
  const std::string text = "{ isolate[[] -> [" + join(t, ", ") + "]] : " + t.back() + " <= " + std::to_string(last_full) + " }";
  node = isl_schedule_node_band_set_ast_build_options(node, isl_union_set_read_from_str(s.ctx().get(), text.c_str()));
  isl_schedule* out = isl_schedule_node_get_schedule(node);
  isl_schedule_node_free(node);
  return isl::manage(out);
}

// The vector registers a block row of `columns` elements takes: where the row is not a
// whole number of vectors, the C compiler holds the rest in halved vectors (3 doubles of a
// 4-lane vector: a 2-lane one and a scalar), one register per bit of the rest.
long long registers_per_row(long long columns, long long lanes) {
  return columns / lanes + std::popcount(static_cast<unsigned long long>(columns % lanes));
}

}  // namespace

bool is_reduction_chain(const Scop& scop, const RegisterBlockOptions& options) {
  std::string why;
  return find_chain(scop, options, why).has_value();
}

std::optional<RegisterBlocking> register_block(Scop& scop, const RegisterBlockOptions& o, std::vector<std::string>& log) {
  if (!o.enabled) return std::nullopt;
  std::string why;
  std::optional<Chain> chain = find_chain(scop, o, why);
  if (!chain) {
    log.push_back("register blocking: not a reduction chain (" + why + ")");
    return std::nullopt;
  }
  {
    const Statement& init = scop.statements[chain->init];
    const ExprPtr& last = init.lhs->args.back();
    const auto& x = init.iterators;
    if (last->kind != Expr::Kind::kName || std::find(x.begin(), x.end(), last->text) == x.end()) {
      log.push_back("register blocking: the last subscript of " + to_c(*init.lhs) + " is not a loop iterator");
      return std::nullopt;
    }
  }
  const Statement& first = scop.statements[chain->init];
  const std::vector<std::string> x = first.iterators;
  const ExprPtr& last = first.lhs->args.back();
  const std::size_t v = static_cast<std::size_t>(std::find(x.begin(), x.end(), last->text) - x.begin());
  std::optional<std::size_t> r;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (i != v) r = i;
  // The block holds one element per instance of a tile: f must be injective once the
  // members outside the block (all but r and v) are fixed. Across tiles Z may be reused;
  // the dependences decide whether the tiles' order keeps that legal.
  {
    std::string outside;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (i != v && (!r || i != *r)) outside += (outside.empty() ? "" : ", ") + x[i];
    const isl::map fix(scop.ctx, "[" + join(scop.params, ", ") + "] -> { " + first.name + "[" + join(x, ", ") + "] -> [" +
                                     outside + "] }");
    isl::map keyed = isl::manage(isl_map_range_product(first.accesses.front().relation.copy(),
                                                       fix.intersect_domain(first.domain).release()));
    if (!keyed.is_injective()) {
      log.push_back("register blocking: not a reduction chain (" + to_c(*first.lhs) +
                    " is not one element per instance of a block)");
      return std::nullopt;
    }
  }
  if (o.constant_extents_only) {
    const std::vector<long long> extent = constant_extents(first.domain);
    if (extent[v] <= 0 || (r && extent[*r] <= 0) || !is_box(first.domain)) {
      log.push_back("register blocking: not applied (the extent of " + x[v] + (r ? " or " + x[*r] : std::string()) +
                    " is not a constant: blocks would be partial)");
      return std::nullopt;
    }
  }
  if (o.whole_columns) {
    const long long extent = constant_extents(first.domain)[v];
    const long long lanes = std::max(1, o.vector_lanes);
    const char* why = extent <= 0                                    ? "its extent is not a constant"
                      : extent <= lanes * std::max(1, o.max_vectors) ? "one block spans it already"
                      : registers_per_row(extent, lanes) > o.accumulators
                          ? "a row of it needs more registers than the block may take"
                          : nullptr;
    if (why) {
      log.push_back("register blocking: no block over the whole of " + x[v] + " (" + why + ")");
      return std::nullopt;
    }
  }
  // The members in block order: init, updates, final; then the stores this adds.
  std::vector<std::size_t> order{chain->init};
  order.insert(order.end(), chain->updates.begin(), chain->updates.end());
  if (chain->final) order.push_back(*chain->final);
  std::vector<std::size_t> stores;
  if (chain->final) stores.push_back(*chain->final);
  if (!chain->final || chain->store_z) {
    scop.statements.push_back(store_statement(scop, scop.statements[chain->init]));
    order.push_back(scop.statements.size() - 1);
    stores.push_back(scop.statements.size() - 1);
    log.push_back("register blocking: store statement " + scop.statements.back().name + " added");
  }
  const Statement& init = scop.statements[chain->init];
  const auto& subscripts = init.lhs->args;
  const std::vector<long long> ext = constant_extents(init.domain);
  const int lanes = std::max(1, o.vector_lanes);
  long long columns = static_cast<long long>(lanes) * std::max(1, o.max_vectors);
  if (o.whole_columns) columns = (ext[v] + lanes - 1) / lanes * lanes;
  if (ext[v] > 0) columns = std::min(columns, (ext[v] + lanes - 1) / lanes * lanes);
  if (ext[v] > 0 && ext[v] < lanes) columns = ext[v];
  const long long vectors = (columns + lanes - 1) / lanes;
  const long long registers = ext[v] > 0 && columns >= ext[v] ? registers_per_row(ext[v], lanes) : vectors;
  long long rows = 1;
  if (r) {
    rows = std::max<long long>(1, o.accumulators / registers);
    if (ext[*r] > 0) {
      const long long tiles = (ext[*r] + rows - 1) / rows;
      rows = (ext[*r] + tiles - 1) / tiles;
    }
  }
  RegisterBlock block;
  block.array = init.lhs->text;
  const Array* z = scop.array(block.array);
  block.element_type = z ? z->element_type : typeof_element(block.array, static_cast<int>(subscripts.size()));
  block.rows = rows;
  block.columns = columns;
  block.vector_iterator = x[v];
  if (r) block.row_iterator = x[*r];
  auto in_block = [&](const std::string& it, long long size) { return "(" + it + ") mod " + std::to_string(size); };
  auto tile_of = [&](const std::string& it, long long size) { return "floor((" + it + ")/" + std::to_string(size) + ")"; };
  std::vector<std::string> outer;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (i != v && i != r) outer.push_back("(" + x[i] + ")");
  if (r) outer.push_back(tile_of(x[*r], rows));
  outer.push_back(tile_of(x[v], columns));
  const intptr_t outer_depth = static_cast<intptr_t>(outer.size());
  isl::ctx ctx = scop.ctx;
  std::vector<const Statement*> members;
  for (std::size_t i : order) members.push_back(&scop.statements[i]);
  std::set<std::string> block_stores;
  for (std::size_t i : stores) block_stores.insert(scop.statements[i].name);
  isl::schedule sequence;
  for (const Statement* s : members) {
    // Statements share x's names; the reduction members are the ones after x.
    const std::vector<std::string> y = without(s->iterators, x);
    const intptr_t depth = outer_depth + static_cast<intptr_t>(y.empty() ? 0 : y.size()) + (r ? 1 : 0);
    isl::schedule one = isl::manage(isl_schedule_from_domain(isl_union_set_from_set(s->domain.copy())));
    one = insert_band(one, partial(ctx, scop, {{s, "(" + in_block(x[v], columns) + ")"}}));
    // The loops that store the block carry no simd mark: GCC then unrolls their few
    // vectors completely, so the block's indices are constants and it stays in registers
    // on its way out (under the mark it went through the stack).
    if (!block_stores.count(s->name)) one = insert_mark(one, kSimdMark, depth);
    if (r) one = insert_band(one, partial(ctx, scop, {{s, "(" + in_block(x[*r], rows) + ")"}}), true);
    if (!y.empty()) {
      std::vector<std::string> ys;
      for (const auto& it : y) ys.push_back("(" + it + ")");
      one = insert_band(one, partial(ctx, scop, {{s, join(ys, ", ")}}));
    }
    sequence = sequence.is_null() ? one : isl::manage(isl_schedule_sequence(sequence.release(), one.release()));
    std::vector<std::string> pos;
    if (r) pos.push_back(in_block(x[*r], rows));
    pos.push_back(in_block(x[v], columns));
    if (!r) pos.insert(pos.begin(), "0");
    block.position.emplace(s->name, isl::multi_aff(ctx, "[" + join(scop.params, ", ") + "] -> { " + s->name + "[" +
                                                            join(s->iterators, ", ") + "] -> [" + join(pos, ", ") + "] }"));
  }
  block.stores = block_stores;
  if (init.op != "=") block.loads.insert(init.name);
  std::vector<std::pair<const Statement*, std::string>> tiles;
  for (const Statement* s : members) tiles.emplace_back(s, join(outer, ", "));
  isl::schedule schedule = insert_mark(sequence, kRegisterBlockMark, outer_depth);
  schedule = insert_band(schedule, partial(ctx, scop, tiles));
  // A last, partial column tile of a constant extent gets loops of its own, so that every
  // block's loops have constant trip counts and its array stays in registers.
  if (ext[v] > columns && ext[v] % columns != 0) schedule = isolate_last_member_up_to(schedule, ext[v] / columns - 1);
  // The statements after the chain, in their source order, after every block.
  isl::union_set members_domain = isl::union_set(isl::manage(isl_union_set_empty(isl_space_params_alloc(ctx.get(), 0))));
  for (const Statement* s : members) members_domain = members_domain.unite(isl::union_set(s->domain));
  const isl::union_set trailing = scop.domain().subtract(members_domain);
  if (!trailing.is_empty())
    schedule = isl::manage(isl_schedule_sequence(
        schedule.release(), isl_schedule_intersect_domain(scop.schedule.copy(), trailing.copy())));
  // The tile band is the source's loop order: permutable only as far as the check says, so
  // no pass below relies on it.
  log.push_back("register blocking: " + block.describe() + ", " + std::to_string(rows * registers) +
                " vector accumulators, tiles (" + join(outer, ", ") + ")");
  std::vector<std::pair<const Statement*, std::string>> points;
  std::vector<std::string> xs;
  std::vector<long> sizes;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xs.push_back("(" + x[i] + ")");
    sizes.push_back(i == v ? static_cast<long>(columns) : r && i == *r ? static_cast<long>(rows) : 1);
  }
  for (const Statement* s : members) points.emplace_back(s, join(xs, ", "));
  isl::schedule flat = insert_band(isl::manage(isl_schedule_from_domain(members_domain.release())), partial(ctx, scop, points));
  return RegisterBlocking{schedule, block, flat.get_root().child(0), sizes};
}

}  // namespace pz::poly
