#include "polyhedral/transform/register_blocking.h"

#include <isl/ast_type.h>
#include <isl/fixed_box.h>
#include <isl/id.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/val.h>

#include <algorithm>

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

bool leading(const std::vector<std::string>& all, const std::vector<std::string>& prefix) {
  return all.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), all.begin());
}

// `domain` of a statement with iterators x, y... projected onto x and renamed as `like`.
isl::set project_onto(const isl::set& domain, std::size_t x, const isl::set& like) {
  isl_set* s = isl_set_project_out(domain.copy(), isl_dim_set, static_cast<unsigned>(x),
                                   static_cast<unsigned>(isl_set_dim(domain.get(), isl_dim_set)) - x);
  return with_name(isl::manage(s), isl_set_get_tuple_name(like.get()));
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

struct Chain {
  const Statement* init = nullptr;
  std::vector<const Statement*> updates;
  const Statement* final = nullptr;
};

// The chain's statements, or the reason the scop is not one.
std::optional<Chain> find_chain(const Scop& scop, const RegisterBlockOptions& o, std::string& why) {
  const auto& st = scop.statements;
  if (st.size() < 2) return why = "fewer than two statements", std::nullopt;
  Chain c;
  c.init = &st[0];
  const Statement& init = st[0];
  if (init.op != "=" || !init.lhs || init.lhs->kind != Expr::Kind::kAccess) return why = "the first statement does not assign an array element", std::nullopt;
  const std::string z = init.lhs->text, target = to_c(*init.lhs);
  if (reads_array(init.rhs, z)) return why = "the first statement reads " + z, std::nullopt;
  std::size_t k = 1;
  for (; k < st.size(); ++k) {
    const Statement& s = st[k];
    if (s.op == "=" || !s.lhs || to_c(*s.lhs) != target) break;
    if (!leading(s.iterators, init.iterators) || s.iterators.size() == init.iterators.size())
      return why = s.name + " does not reduce over loops inside " + init.name + "'s", std::nullopt;
    if (reads_array(s.rhs, z)) return why = s.name + " reads " + z + " on its right-hand side", std::nullopt;
    if (!project_onto(s.domain, init.iterators.size(), init.domain).is_equal(init.domain))
      return why = s.name + "'s domain does not cover " + init.name + "'s", std::nullopt;
    c.updates.push_back(&s);
  }
  if (c.updates.empty()) return why = "no update of " + target + " follows its initialisation", std::nullopt;
  if (k + 1 < st.size()) return why = "statements after the final one", std::nullopt;
  if (k + 1 == st.size()) {
    const Statement& f = st[k];
    if (f.op != "=" || !f.lhs || f.lhs->kind != Expr::Kind::kAccess || f.iterators != init.iterators ||
        !f.domain.is_equal(with_name(init.domain, f.name)))
      return why = f.name + " is not a final statement over " + init.name + "'s instances", std::nullopt;
    if (!only_as(f.rhs, z, target)) return why = f.name + " reads " + z + " other than as " + target, std::nullopt;
    if (f.lhs->text == z ? to_c(*f.lhs) != target : reads_array(f.rhs, f.lhs->text))
      return why = f.name + " writes another element than the one it finalises", std::nullopt;
    for (const auto& s : st)
      if (&s != &f && (reads_array(s.rhs, f.lhs->text) || (f.lhs->text != z && s.lhs && s.lhs->text == f.lhs->text)))
        return why = f.lhs->text + " is also used by " + s.name, std::nullopt;
    if (f.lhs->text != z && (!o.live_out || o.live_out->count(z)))
      return why = z + " is live-out but " + f.name + " writes " + f.lhs->text + " (the block would never be stored)", std::nullopt;
    c.final = &f;
  }
  if (!init.accesses.front().relation.is_injective()) return why = target + " is not one element per instance", std::nullopt;
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

}  // namespace

std::optional<RegisterBlocking> register_block(Scop& scop, const RegisterBlockOptions& o, std::vector<std::string>& log) {
  if (!o.enabled) return std::nullopt;
  std::string why;
  std::optional<Chain> chain = find_chain(scop, o, why);
  if (!chain) {
    log.push_back("register blocking: not a reduction chain (" + why + ")");
    return std::nullopt;
  }
  {
    const ExprPtr& last = chain->init->lhs->args.back();
    const auto& x = chain->init->iterators;
    if (last->kind != Expr::Kind::kName || std::find(x.begin(), x.end(), last->text) == x.end()) {
      log.push_back("register blocking: the last subscript of " + to_c(*chain->init->lhs) + " is not a loop iterator");
      return std::nullopt;
    }
  }
  if (!chain->final) {
    scop.statements.push_back(store_statement(scop, *chain->init));
    chain = find_chain(scop, o, why);  // pointers into the grown vector
    log.push_back("register blocking: store statement " + scop.statements.back().name + " added");
  }
  const Statement& init = *chain->init;
  const auto& subscripts = init.lhs->args;
  const ExprPtr& last = subscripts.back();
  const std::vector<std::string>& x = init.iterators;
  auto v_at = std::find(x.begin(), x.end(), last->kind == Expr::Kind::kName ? last->text : std::string());
  const std::size_t v = static_cast<std::size_t>(v_at - x.begin());
  std::optional<std::size_t> r;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (i != v) r = i;
  const std::vector<long long> ext = constant_extents(init.domain);
  const int lanes = std::max(1, o.vector_lanes);
  long long columns = static_cast<long long>(lanes) * std::max(1, o.max_vectors);
  if (ext[v] > 0) columns = std::min(columns, (ext[v] + lanes - 1) / lanes * lanes);
  if (ext[v] > 0 && ext[v] < lanes) columns = ext[v];
  const long long vectors = (columns + lanes - 1) / lanes;
  long long rows = 1;
  if (r) {
    rows = std::max<long long>(1, o.accumulators / vectors);
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
  std::vector<const Statement*> members{chain->init};
  members.insert(members.end(), chain->updates.begin(), chain->updates.end());
  members.push_back(chain->final);
  isl::schedule sequence;
  for (const Statement* s : members) {
    // Statements share x's names; the reduction members are the ones after x.
    const std::vector<std::string> y(s->iterators.begin() + static_cast<long>(x.size()), s->iterators.end());
    const intptr_t depth = outer_depth + static_cast<intptr_t>(y.empty() ? 0 : y.size()) + (r ? 1 : 0);
    isl::schedule one = isl::manage(isl_schedule_from_domain(isl_union_set_from_set(s->domain.copy())));
    one = insert_band(one, partial(ctx, scop, {{s, "(" + in_block(x[v], columns) + ")"}}));
    one = insert_mark(one, kSimdMark, depth);
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
  block.stores.insert(chain->final->name);
  std::vector<std::pair<const Statement*, std::string>> tiles;
  for (const Statement* s : members) tiles.emplace_back(s, join(outer, ", "));
  isl::schedule schedule = insert_mark(sequence, kRegisterBlockMark, outer_depth);
  schedule = insert_band(schedule, partial(ctx, scop, tiles));
  // The tile band is the source's loop order: permutable only as far as the check says, so
  // no pass below relies on it.
  log.push_back("register blocking: " + block.describe() + ", " + std::to_string(rows * vectors) +
                " vector accumulators, tiles (" + join(outer, ", ") + ")");
  std::vector<std::pair<const Statement*, std::string>> points;
  std::vector<std::string> xs;
  std::vector<long> sizes;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xs.push_back("(" + x[i] + ")");
    sizes.push_back(i == v ? static_cast<long>(columns) : r && i == *r ? static_cast<long>(rows) : 1);
  }
  for (const Statement* s : members) points.emplace_back(s, join(xs, ", "));
  isl::schedule flat = insert_band(isl::manage(isl_schedule_from_domain(scop.domain().release())), partial(ctx, scop, points));
  return RegisterBlocking{schedule, block, flat.get_root().child(0), sizes};
}

}  // namespace pz::poly
