#include "polyhedral/codegen/codegen.h"

#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/id_to_ast_expr.h>
#include <isl/map.h>
#include <isl/union_map.h>
#include <isl/val.h>

#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "polyhedral/ir/isl_context.h"
#include "polyhedral/transform/parallel_marks.h"
#include "polyhedral/transform/reductions.h"
#include "polyhedral/transform/register_tiling.h"

namespace pz::poly {

namespace {

std::string val_str(isl_val* v) {
  char* s = isl_val_to_str(v);
  std::string out = s;
  free(s);
  isl_val_free(v);
  return out;
}

// Concatenation by appending: GCC 12 at -O3 reports false -Wstringop-overflow and
// -Warray-bounds for chains of `"literal" + std::string` (GCC bug 105651).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (auto p : parts) out.append(p);
  return out;
}

// "(a <= b)" -> "a <= b": conditions and substituted iterators read better without the
// outer pair (and clang warns about `if ((a == b))`).
std::string strip(const std::string& s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
    if (depth == 0 && i + 1 < s.size()) return s;
  }
  return s.substr(1, s.size() - 2);
}

// The annotation of a statement's AST node inside a register block: its element of the
// block as expressions of the loops around it (constants where isl unrolled the rows).
constexpr const char* kBlockPosition = "register block position";

class Emitter {
 public:
  Emitter(const Scop& scop, const CodegenOptions& o, std::string prefix, std::string accumulator, std::string block,
          std::string jam_register)
      : scop_(scop),
        o_(o),
        prefix_(std::move(prefix)),
        accumulator_(std::move(accumulator)),
        jam_register_(std::move(jam_register)),
        block_(std::move(block)) {
    for (const auto& s : scop.statements) stmts_[s.name] = &s;
  }

  void node(isl_ast_node* n, int depth, const char* pragma = nullptr, const std::string& pragma_iterator = "") {
    switch (isl_ast_node_get_type(n)) {
      case isl_ast_node_for: emit_for(n, depth, pragma, pragma_iterator); break;
      case isl_ast_node_if: emit_if(n, depth); break;
      case isl_ast_node_block: {
        isl_ast_node_list* list = isl_ast_node_block_get_children(n);
        // isl may split the code below one kRegisterBlockMark into sibling nests (one per
        // statement), each under its own copy of the mark: they share one block, declared
        // in the scope around them.
        const bool declares = !block_in_scope_ && has_block_mark(list);
        if (declares) open_block(depth);
        std::vector<isl_ast_node*> children;
        append_flattened(list, children);
        for (size_t i = 0; i < children.size(); ++i) {
          if (i + 1 < children.size() && emit_joined_for(children[i], children[i + 1], depth + (declares ? 1 : 0)))
            ++i;
          else
            node(children[i], depth + (declares ? 1 : 0));
        }
        for (isl_ast_node* c : children) isl_ast_node_free(c);
        if (declares) close_block(depth);
        isl_ast_node_list_free(list);
        break;
      }
      case isl_ast_node_mark: {
        isl_id* id = isl_ast_node_mark_get_id(n);
        std::string name = isl_id_get_name(id);
        int loop = mark_loop_depth(id);
        isl_id_free(id);
        isl_ast_node* c = isl_ast_node_mark_get_node(n);
        // A mark applies to the loop of its schedule dimension; when isl removed that loop
        // (a single iteration) the pragma is dropped, never moved to the loop below.
        const char* p = nullptr;
        if (o_.openmp && name.rfind(kParallelMark, 0) == 0) p = name.c_str();  // with its reduction clauses
        if (o_.openmp && name == kSimdMark) p = kSimdMark;
        const std::string iterator = prefix_ + std::to_string(loop);
        if (name == kRegisterBlockMark) {
          const bool declares = o_.register_block && !block_in_scope_;
          if (declares) open_block(depth);
          node(c, depth + (declares ? 1 : 0));
          if (declares) close_block(depth);
          isl_ast_node_free(c);
          break;
        }
        if (name == kUnrollJamMark && emit_jam_in_register(c, depth)) {
          isl_ast_node_free(c);
          break;
        }
        // Sums into one element run in a scalar under `omp simd reduction`, which GCC
        // vectorises inside a parallel loop as outside one; the parallel loop itself excepted.
        if (o_.openmp && name.rfind(kAccumulateMark, 0) == 0 && !(pragma && pragma_iterator == iterator)) {
          std::set<std::string> statements;
          std::istringstream words(name.substr(std::strlen(kAccumulateMark)));
          for (std::string w; words >> w;) statements.insert(w);
          emit_accumulating(c, depth, iterator, statements);
          isl_ast_node_free(c);
          break;
        }
        // A one-loop band both parallel and innermost carries both marks, the parallel one
        // outside: one combined pragma ("omp parallel for simd reduction(...)").
        std::string combined;
        if (p && pragma && pragma_iterator == iterator && p == std::string(kSimdMark)) {
          const std::string outer = pragma;
          combined = outer.substr(0, std::strlen(kParallelMark)) + " simd" + outer.substr(std::strlen(kParallelMark));
          p = combined.c_str();
        }
        node(c, depth, p, p ? iterator : "");
        isl_ast_node_free(c);
        break;
      }
      case isl_ast_node_user: emit_user(n, depth); break;
      default: line(depth, "/* unsupported isl AST node */");
    }
  }

  std::string str() const { return out_.str(); }

 private:
  static bool has_block_mark(isl_ast_node_list* list) {
    bool found = false;
    for (int i = 0, k = isl_ast_node_list_n_ast_node(list); i < k && !found; ++i) {
      isl_ast_node* c = isl_ast_node_list_get_ast_node(list, i);
      if (isl_ast_node_get_type(c) == isl_ast_node_mark) {
        isl_id* id = isl_ast_node_mark_get_id(c);
        found = std::string(isl_id_get_name(id)) == kRegisterBlockMark;
        isl_id_free(id);
      }
      isl_ast_node_free(c);
    }
    return found;
  }

  // The statements of a block in order, the blocks nested in it (isl nests one per sequence
  // node) opened in place: they print the same, and loops in two of them become siblings.
  // A nested block that holds a register block's mark stays whole, as it declares the block.
  static void append_flattened(isl_ast_node_list* list, std::vector<isl_ast_node*>& out) {
    for (int i = 0, k = isl_ast_node_list_n_ast_node(list); i < k; ++i) {
      isl_ast_node* c = isl_ast_node_list_get_ast_node(list, i);
      isl_ast_node_list* inner = isl_ast_node_get_type(c) == isl_ast_node_block ? isl_ast_node_block_get_children(c) : nullptr;
      if (inner && !has_block_mark(inner)) {
        append_flattened(inner, out);
        isl_ast_node_free(c);
      } else {
        out.push_back(c);
      }
      isl_ast_node_list_free(inner);
    }
  }

  // `{ T block[R][V];` ... `}`: the block's scope, inside the loops over its tiles, so that
  // the C compiler sees it live in one tile only and keeps it in registers.
  void open_block(int depth) {
    const RegisterBlock& b = *o_.register_block;
    line(depth, "{");
    line(depth + 1, b.element_type + " " + block_ + "[" + std::to_string(b.rows) + "][" + std::to_string(b.columns) + "];");
    block_in_scope_ = true;
  }
  void close_block(int depth) {
    line(depth, "}");
    block_in_scope_ = false;
  }

 private:
  void line(int depth, const std::string& text) { out_ << o_.indent << std::string(2 * depth, ' ') << text << "\n"; }

  // OpenMP needs the canonical form `for (i = a; i <= b; i += c)`: isl's conditions are
  // `iterator <= bound` or `iterator < bound`; anything else gets no pragma.
  static bool canonical(isl_ast_node* f) {
    isl_ast_expr* cond = isl_ast_node_for_get_cond(f);
    bool ok = isl_ast_expr_get_type(cond) == isl_ast_expr_op &&
              (isl_ast_expr_op_get_type(cond) == isl_ast_expr_op_le || isl_ast_expr_op_get_type(cond) == isl_ast_expr_op_lt);
    if (ok) {
      isl_ast_expr* lhs = isl_ast_expr_op_get_arg(cond, 0);
      isl_ast_expr* it = isl_ast_node_for_get_iterator(f);
      ok = isl_ast_expr_is_equal(lhs, it) == isl_bool_true;
      isl_ast_expr_free(lhs);
      isl_ast_expr_free(it);
    }
    isl_ast_expr_free(cond);
    return ok;
  }

  // A parallel pragma with a run-time condition (`if(parallel: W >= N)`, parallel_marks.h)
  // becomes two versions of the loop: `if (W >= N)` the parallel one, else the loop on this
  // thread with no OpenMP call at all. (An if(false) clause still enters libgomp, which
  // builds a team of one: microseconds per entry, more than a small sweep costs.) The serial
  // version keeps a plain `omp simd` and drops reduction clauses (the sums stay in order).
  bool emit_versioned_for(isl_ast_node* f, int depth, const char* pragma, const std::string& pragma_iterator) {
    static const std::string kIf = " if(parallel: ";
    if (!pragma) return false;
    const std::string p = pragma;
    const size_t at = p.find(kIf);
    if (at == std::string::npos) return false;
    size_t end = at + kIf.size();
    for (int open = 1; end < p.size(); ++end) {
      if (p[end] == '(') ++open;
      if (p[end] == ')' && --open == 0) break;
    }
    if (end >= p.size()) return false;
    isl_ast_expr* it = isl_ast_node_for_get_iterator(f);
    const std::string name = expr(it);
    isl_ast_expr_free(it);
    if (name != pragma_iterator || !canonical(f)) return false;
    const std::string condition = p.substr(at + kIf.size(), end - at - kIf.size());
    const std::string parallel = p.substr(0, at) + p.substr(end + 1);
    const std::string simd_prefix = std::string(kParallelMark) + " simd";
    const bool simd = parallel.rfind(simd_prefix, 0) == 0 && parallel.find("reduction(") == std::string::npos;
    line(depth, "if (" + condition + ") {");
    emit_for(f, depth + 1, parallel.c_str(), pragma_iterator);
    line(depth, "} else {");
    emit_for(f, depth + 1, simd ? kSimdMark : nullptr, pragma_iterator);
    line(depth, "}");
    return true;
  }

  void emit_for(isl_ast_node* f, int depth, const char* pragma, const std::string& pragma_iterator) {
    if (emit_versioned_for(f, depth, pragma, pragma_iterator)) return;
    isl_ast_expr* it = isl_ast_node_for_get_iterator(f);
    isl_ast_expr* init = isl_ast_node_for_get_init(f);
    isl_ast_expr* cond = isl_ast_node_for_get_cond(f);
    isl_ast_expr* inc = isl_ast_node_for_get_inc(f);
    std::string name = expr(it), inc_s = expr(inc);
    const bool marked = pragma && name == pragma_iterator && canonical(f);
    if (marked) line(depth, std::string("#pragma ") + pragma);
    line(depth, "for (" + o_.iterator_type + " " + name + " = " + expr(init) + "; " + strip(expr(cond)) + "; " + name +
                    (inc_s == "1" ? "++" : " += " + inc_s) + ") {");
    isl_ast_expr_free(it);
    isl_ast_expr_free(init);
    isl_ast_expr_free(cond);
    isl_ast_expr_free(inc);
    const bool forks = marked && std::strncmp(pragma, kParallelMark, std::strlen(kParallelMark)) == 0;
    parallel_depth_ += forks;
    isl_ast_node* body = isl_ast_node_for_get_body(f);
    node(body, depth + 1);
    isl_ast_node_free(body);
    parallel_depth_ -= forks;
    line(depth, "}");
  }

  // Two sibling loops over adjacent ranges with the same body, `for (i = a; i < e; i++) B`
  // then `for (i = e; i < b; i++) B` (isl splits them where two statements with the same
  // text cover the two parts, as lu's updates left and right of the diagonal), run the same
  // instances of B in the same order as one loop over [min(a, e), max(e, b)): exact for any
  // a, e and b, empty parts included (if the first part is empty, a >= e; if the second is,
  // b <= e). One loop pays one prologue, epilogue and vector remainder instead of two.
  // Returns false, having printed nothing, unless both are such plain (unmarked) loops.
  bool emit_joined_for(isl_ast_node* first, isl_ast_node* second, int depth) {
    if (isl_ast_node_get_type(first) != isl_ast_node_for || isl_ast_node_get_type(second) != isl_ast_node_for)
      return false;
    if (!canonical(first) || !canonical(second)) return false;
    const std::string iterator = for_part(first, isl_ast_node_for_get_iterator);
    if (for_part(second, isl_ast_node_for_get_iterator) != iterator || for_part(first, isl_ast_node_for_get_inc) != "1" ||
        for_part(second, isl_ast_node_for_get_inc) != "1")
      return false;
    isl_ast_expr* cond = isl_ast_node_for_get_cond(first);
    const bool strict = isl_ast_expr_op_get_type(cond) == isl_ast_expr_op_lt;
    const std::string end = arg(cond, 1);
    isl_ast_expr_free(cond);
    const std::string second_init = for_part(second, isl_ast_node_for_get_init);
    if (!strict || second_init != end) return false;
    const std::string body = body_text(first, depth + 1);
    if (body != body_text(second, depth + 1)) return false;
    cond = isl_ast_node_for_get_cond(second);
    const bool second_strict = isl_ast_expr_op_get_type(cond) == isl_ast_expr_op_lt;
    const std::string bound = arg(cond, 1);
    isl_ast_expr_free(cond);
    const std::string first_init = for_part(first, isl_ast_node_for_get_init);
    const std::string last = second_strict ? end : cat({"(", end, " - 1)"});
    line(depth, "for (" + o_.iterator_type + " " + iterator + " = " + min_of(first_init, end) + "; " + iterator +
                    (second_strict ? " < " : " <= ") + max_of(last, bound) + "; " + iterator + "++) {");
    out_ << body;
    line(depth, "}");
    return true;
  }

  std::string for_part(isl_ast_node* f, isl_ast_expr* (*part)(isl_ast_node*)) {
    isl_ast_expr* e = part(f);
    std::string s = expr(e);
    isl_ast_expr_free(e);
    return s;
  }

  // The code `for_node`'s body prints as at `depth`, printed aside.
  std::string body_text(isl_ast_node* for_node, int depth) {
    std::ostringstream aside;
    std::swap(out_, aside);
    isl_ast_node* body = isl_ast_node_for_get_body(for_node);
    node(body, depth);
    isl_ast_node_free(body);
    std::swap(out_, aside);
    return aside.str();
  }

  void emit_if(isl_ast_node* n, int depth) {
    isl_ast_expr* cond = isl_ast_node_if_get_cond(n);
    line(depth, "if (" + strip(expr(cond)) + ") {");
    isl_ast_expr_free(cond);
    isl_ast_node* then = isl_ast_node_if_get_then_node(n);
    node(then, depth + 1);
    isl_ast_node_free(then);
    if (isl_ast_node_if_has_else_node(n) == isl_bool_true) {
      line(depth, "} else {");
      isl_ast_node* other = isl_ast_node_if_get_else_node(n);
      node(other, depth + 1);
      isl_ast_node_free(other);
    }
    line(depth, "}");
  }

  // A user node is a call S(e0, e1, ...): e_k is the value of the statement's k-th
  // original iterator in terms of the new loops. Returns the statement and that renaming.
  const Statement* user_statement(isl_ast_node* n, NameMap& rename) {
    isl_ast_expr* call = isl_ast_node_user_get_expr(n);
    isl_ast_expr* fn = isl_ast_expr_op_get_arg(call, 0);
    isl_id* id = isl_ast_expr_id_get_id(fn);
    std::string name = isl_id_get_name(id);
    isl_id_free(id);
    isl_ast_expr_free(fn);
    const Statement* s = stmts_.at(name);
    auto values = std::make_shared<std::map<std::string, std::string>>();
    int nargs = isl_ast_expr_op_get_n_arg(call);
    for (int i = 1; i < nargs && i - 1 < static_cast<int>(s->iterators.size()); ++i) {
      isl_ast_expr* a = isl_ast_expr_op_get_arg(call, i);
      (*values)[s->iterators[i - 1]] = strip(expr(a));
      isl_ast_expr_free(a);
    }
    isl_ast_expr_free(call);
    rename = [values](const std::string& v) -> std::optional<std::string> {
      auto it = values->find(v);
      if (it == values->end()) return std::nullopt;
      return it->second;
    };
    return s;
  }

  void emit_user(isl_ast_node* n, int depth) {
    NameMap rename;
    const Statement* s = user_statement(n, rename);
    isl_id* note = isl_ast_node_get_annotation(n);
    if (note && o_.register_block && std::string(isl_id_get_name(note)) == kBlockPosition) {
      auto* position = static_cast<isl_ast_expr_list*>(isl_id_get_user(note));
      std::string element = block_;
      for (int k = 0; k < isl_ast_expr_list_n_ast_expr(position); ++k) {
        isl_ast_expr* e = isl_ast_expr_list_get_ast_expr(position, k);
        element += "[" + strip(expr(e)) + "]";
        isl_ast_expr_free(e);
      }
      isl_id_free(note);
      line(depth, block_statement(*s, rename, element) + ";");
      return;
    }
    isl_id_free(note);
    line(depth, s->to_c(rename) + ";");
  }

  // `s` with the block's array replaced by `element` of the local block: everywhere in the
  // statements that write the block, on the right-hand side only in the ones that store it.
  std::string block_statement(const Statement& s, const NameMap& rename, const std::string& element) {
    const RegisterBlock& b = *o_.register_block;
    std::string target;
    if (s.lhs && s.lhs->text == b.array) target = pz::poly::to_c(*s.lhs, rename);
    if (target.empty() && s.rhs)
      visit(s.rhs, [&](const ExprPtr& x) {
        if (target.empty() && x->kind == Expr::Kind::kAccess && x->text == b.array) target = pz::poly::to_c(*x, rename);
      });
    const std::string lhs = b.stores.count(s.name) || target.empty() ? pz::poly::to_c(*s.lhs, rename) : element;
    const std::string rhs = pz::poly::to_c(*s.rhs, rename);
    // `Z op= e` loading the block: `block = Z op (e)`, what C defines the update to be.
    if (b.loads.count(s.name) && s.op.size() > 1 && s.op.back() == '=')
      return element + " = " + pz::poly::to_c(*s.lhs, rename) + " " + s.op.substr(0, s.op.size() - 1) + " (" + rhs + ")";
    return lhs + " " + s.op + " " + (target.empty() ? rhs : replace_all(rhs, target, element));
  }

  // kUnrollJamMark's unrolled copies (register_tiling.h) when each updates one element X
  // that no other access among them touches (`C[i][j] += A[i][k] * B[k][j]` at k, k + 1,
  // ...): X is loaded into a scalar once, the copies update the scalar, and it is stored
  // once,
  //   { T reg = X;  <the copies, X replaced by reg>  X = reg; }
  // which is what unroll-and-jam is for. GCC cannot do this itself: a store to X might
  // change A or B for all it knows, while polyc's arrays never overlap. The first copy must
  // run unconditionally (then X is read and written in any case); the others may sit under
  // isl's guards, which are conditions on the loops only. Returns false, having printed
  // nothing, for any other shape.
  bool emit_jam_in_register(isl_ast_node* n, int depth) {
    if (o_.register_block) return false;  // its copies read a local block instead
    isl_ast_node* first = n;
    isl_ast_node_list* list = nullptr;
    if (isl_ast_node_get_type(n) == isl_ast_node_block) {
      list = isl_ast_node_block_get_children(n);
      first = isl_ast_node_list_n_ast_node(list) > 0 ? isl_ast_node_list_get_ast_node(list, 0) : nullptr;
      isl_ast_node_list_free(list);
    } else {
      first = isl_ast_node_copy(n);
    }
    const bool leads = first && isl_ast_node_get_type(first) == isl_ast_node_user;
    isl_ast_node_free(first);
    std::string target, array;
    int copies = 0;
    if (!leads || !jam_updates(n, target, array, copies) || copies < 2) return false;
    const Array* a = scop_.array(array);
    if (!a) return false;  // the scalar needs the element's type
    std::ostringstream aside;
    std::swap(out_, aside);
    node(n, depth + 1);
    std::swap(out_, aside);
    line(depth, "{");
    line(depth + 1, cat({a->element_type, " ", jam_register_, " = ", target, ";"}));
    out_ << replace_all(aside.str(), target, jam_register_);
    line(depth + 1, cat({target, " = ", jam_register_, ";"}));
    line(depth, "}");
    return true;
  }

  // Whether every statement below `n`, through blocks and ifs only, is an update of the
  // same element (`target`, of `array`) whose other operands do not read `array`.
  bool jam_updates(isl_ast_node* n, std::string& target, std::string& array, int& copies) {
    switch (isl_ast_node_get_type(n)) {
      case isl_ast_node_user: {
        NameMap rename;
        const Statement* s = user_statement(n, rename);
        if (!s->lhs || !s->rhs || s->lhs->kind != Expr::Kind::kAccess || !update_form(*s)) return false;
        const std::string element = pz::poly::to_c(*s->lhs, rename);
        if (copies > 0 && (element != target || s->lhs->text != array)) return false;
        target = element;
        array = s->lhs->text;
        bool other = false;  // another access to the array: a subscript of X, or another element
        for (const auto& subscript : s->lhs->args)
          visit(subscript, [&](const ExprPtr& x) { other = other || x->kind == Expr::Kind::kAccess; });
        visit(s->rhs, [&](const ExprPtr& x) {
          if (x->kind == Expr::Kind::kAccess && x->text == array) other = other || pz::poly::to_c(*x, rename) != target;
        });
        ++copies;
        return !other;
      }
      case isl_ast_node_block: {
        isl_ast_node_list* list = isl_ast_node_block_get_children(n);
        bool ok = true;
        for (int i = 0, k = isl_ast_node_list_n_ast_node(list); i < k && ok; ++i) {
          isl_ast_node* c = isl_ast_node_list_get_ast_node(list, i);
          ok = jam_updates(c, target, array, copies);
          isl_ast_node_free(c);
        }
        isl_ast_node_list_free(list);
        return ok;
      }
      case isl_ast_node_if: {
        isl_ast_node* then = isl_ast_node_if_get_then_node(n);
        bool ok = jam_updates(then, target, array, copies);
        isl_ast_node_free(then);
        if (ok && isl_ast_node_if_has_else_node(n) == isl_bool_true) {
          isl_ast_node* other = isl_ast_node_if_get_else_node(n);
          ok = jam_updates(other, target, array, copies);
          isl_ast_node_free(other);
        }
        return ok;
      }
      default: return false;  // a loop or a mark
    }
  }

  // kAccumulateMark's loop, when it has the shape the mark promises (one statement, an
  // update of an element that does not depend on the loop):
  //   if (<the loop runs at least once>) {
  //     T acc = X;
  //     #pragma omp simd reduction(op:acc)
  //     for (...) acc op= e;
  //     X = acc;
  //   }
  // The guard keeps X from being touched (or even addressed) when the loop is empty.
  // Returns false, having printed nothing, for any other shape.
  bool emit_accumulating_for(isl_ast_node* f, int depth, const std::string& iterator,
                             const std::set<std::string>& statements) {
    if (isl_ast_node_get_type(f) != isl_ast_node_for || !canonical(f)) return false;
    isl_ast_node* body = isl_ast_node_for_get_body(f);
    bool ok = isl_ast_node_get_type(body) == isl_ast_node_user;
    NameMap rename;
    const Statement* s = ok ? user_statement(body, rename) : nullptr;
    isl_ast_node_free(body);
    std::optional<Update> update = s && statements.count(s->name) && update_may_be_reordered(*s, scop_) ? update_form(*s) : std::nullopt;
    if (!update) return false;
    const std::string target = pz::poly::to_c(*s->lhs, rename);
    if (mentions(target, iterator)) return false;
    const std::string statement = s->to_c(rename);
    const Array* array = scop_.array(s->lhs->text);
    if (!array) return false;  // the accumulator needs the element's type
    isl_ast_expr* it = isl_ast_node_for_get_iterator(f);
    if (name_of(it) != iterator) {
      isl_ast_expr_free(it);
      return false;
    }
    isl_ast_expr* init = isl_ast_node_for_get_init(f);
    isl_ast_expr* cond = isl_ast_node_for_get_cond(f);
    isl_ast_expr* inc = isl_ast_node_for_get_inc(f);
    const std::string init_s = expr(init), inc_s = expr(inc), cond_s = strip(expr(cond));
    isl_id_to_ast_expr* first = isl_id_to_ast_expr_alloc(isl_ast_node_get_ctx(f), 1);
    first = isl_id_to_ast_expr_set(first, isl_ast_expr_id_get_id(it), isl_ast_expr_copy(init));
    isl_ast_expr* runs = isl_ast_expr_substitute_ids(isl_ast_expr_copy(cond), first);
    const std::string runs_s = strip(expr(runs));
    isl_ast_expr_free(runs);
    isl_ast_expr_free(it);
    isl_ast_expr_free(init);
    isl_ast_expr_free(cond);
    isl_ast_expr_free(inc);
    line(depth, "if (" + runs_s + ") {");
    line(depth + 1, array->element_type + " " + accumulator_ + " = " + target + ";");
    line(depth + 1, cat({"#pragma omp simd reduction(", std::string(1, update->op), ":", accumulator_, ")"}));
    line(depth + 1, "for (" + o_.iterator_type + " " + iterator + " = " + init_s + "; " + cond_s + "; " + iterator +
                        (inc_s == "1" ? "++" : " += " + inc_s) + ") {");
    line(depth + 2, replace_all(statement, target, accumulator_) + ";");
    line(depth + 1, "}");
    line(depth + 1, target + " = " + accumulator_ + ";");
    line(depth, "}");
    return true;
  }

  // The code below a kAccumulateMark: its loops (one, or several in a block, beside the
  // statements that take one value of the loop) each accumulate when they can.
  void emit_accumulating(isl_ast_node* n, int depth, const std::string& iterator, const std::set<std::string>& statements) {
    if (isl_ast_node_get_type(n) != isl_ast_node_block) {
      if (!emit_accumulating_for(n, depth, iterator, statements)) node(n, depth);
      return;
    }
    isl_ast_node_list* list = isl_ast_node_block_get_children(n);
    for (int i = 0, k = isl_ast_node_list_n_ast_node(list); i < k; ++i) {
      isl_ast_node* c = isl_ast_node_list_get_ast_node(list, i);
      if (!emit_accumulating_for(c, depth, iterator, statements)) node(c, depth);
      isl_ast_node_free(c);
    }
    isl_ast_node_list_free(list);
  }

  std::string name_of(isl_ast_expr* id_expr) {
    isl_id* id = isl_ast_expr_id_get_id(id_expr);
    std::string name = id ? isl_id_get_name(id) : "";
    isl_id_free(id);
    return name;
  }

  static std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (size_t at = find_token(text, from); at != std::string::npos; at = find_token(text, from, at + to.size()))
      text.replace(at, from.size(), to);
    return text;
  }

  std::string arg(isl_ast_expr* e, int i) {
    isl_ast_expr* a = isl_ast_expr_op_get_arg(e, i);
    std::string s = expr(a);
    isl_ast_expr_free(a);
    return s;
  }

  // min and max printed inline, as every bound is: "(a < b ? a : b)".
  static std::string min_of(const std::string& a, const std::string& b) { return cat({"(", a, " < ", b, " ? ", a, " : ", b, ")"}); }
  static std::string max_of(const std::string& a, const std::string& b) { return cat({"(", a, " > ", b, " ? ", a, " : ", b, ")"}); }

  // Fully parenthesised: generated code is read by compilers, and precedence mistakes are
  // the classic bug of hand-written printers.
  std::string expr(isl_ast_expr* e) {
    switch (isl_ast_expr_get_type(e)) {
      case isl_ast_expr_id: {
        isl_id* id = isl_ast_expr_id_get_id(e);
        std::string s = isl_id_get_name(id);
        isl_id_free(id);
        return s;
      }
      case isl_ast_expr_int: return val_str(isl_ast_expr_int_get_val(e));
      case isl_ast_expr_op: break;
      default: return "/* bad expression */ 0";
    }
    int n = isl_ast_expr_op_get_n_arg(e);
    auto bin = [&](const char* op) { return cat({"(", arg(e, 0), " ", op, " ", arg(e, 1), ")"}); };
    switch (isl_ast_expr_op_get_type(e)) {
      case isl_ast_expr_op_and:
      case isl_ast_expr_op_and_then: return bin("&&");
      case isl_ast_expr_op_or:
      case isl_ast_expr_op_or_else: return bin("||");
      case isl_ast_expr_op_max:
      case isl_ast_expr_op_min: {
        const bool max = isl_ast_expr_op_get_type(e) == isl_ast_expr_op_max;
        std::string acc = arg(e, 0);
        for (int i = 1; i < n; ++i) acc = max ? max_of(acc, arg(e, i)) : min_of(acc, arg(e, i));
        return acc;
      }
      case isl_ast_expr_op_minus: return cat({"(-", arg(e, 0), ")"});
      case isl_ast_expr_op_add: return bin("+");
      case isl_ast_expr_op_sub: return bin("-");
      case isl_ast_expr_op_mul: return bin("*");
      case isl_ast_expr_op_div:     // exact division
      case isl_ast_expr_op_pdiv_q:  // dividend known non-negative
        return bin("/");
      case isl_ast_expr_op_pdiv_r:
      case isl_ast_expr_op_zdiv_r: return bin("%");
      case isl_ast_expr_op_fdiv_q: {
        // floor division by a positive constant, correct for negative dividends
        std::string a = arg(e, 0), b = arg(e, 1);
        return cat({"(", a, " >= 0 ? ", a, " / ", b, " : -((-", a, " + ", b, " - 1) / ", b, "))"});
      }
      case isl_ast_expr_op_cond:
      case isl_ast_expr_op_select: return cat({"(", arg(e, 0), " ? ", arg(e, 1), " : ", arg(e, 2), ")"});
      case isl_ast_expr_op_eq: return bin("==");
      case isl_ast_expr_op_le: return bin("<=");
      case isl_ast_expr_op_lt: return bin("<");
      case isl_ast_expr_op_ge: return bin(">=");
      case isl_ast_expr_op_gt: return bin(">");
      default: return "/* unsupported operator */ 0";
    }
  }

  const Scop& scop_;
  const CodegenOptions& o_;
  std::string prefix_;  // generated iterators are prefix_ + schedule dimension
  std::string accumulator_;  // the scalar of kAccumulateMark loops
  std::string jam_register_;  // the scalar of kUnrollJamMark copies
  std::string block_;        // the local array of a register block
  bool block_in_scope_ = false;
  int parallel_depth_ = 0;  // parallel loops around the code being emitted
  std::map<std::string, const Statement*> stmts_;
  std::ostringstream out_;
};

void free_expr_list(void* list) { isl_ast_expr_list_free(static_cast<isl_ast_expr_list*>(list)); }

isl_ast_node* annotate_block_position(isl_ast_node* node, isl_ast_build* build, void* user) {
  const auto* block = static_cast<const RegisterBlock*>(user);
  isl_ast_expr* call = isl_ast_node_user_get_expr(node);
  isl_ast_expr* fn = isl_ast_expr_op_get_arg(call, 0);
  isl_id* id = isl_ast_expr_id_get_id(fn);
  const std::string name = isl_id_get_name(id);
  isl_id_free(id);
  isl_ast_expr_free(fn);
  isl_ast_expr_free(call);
  auto it = block->position.find(name);
  if (it == block->position.end()) return node;
  // Instance -> position, pulled back to the loops: schedule -> instance is the inverse of
  // the build's schedule, a function at a leaf.
  isl_map* schedule = isl_map_from_union_map(isl_ast_build_get_schedule(build));
  isl_pw_multi_aff* instance = isl_pw_multi_aff_from_map(isl_map_reverse(schedule));
  isl_pw_multi_aff* position = isl_pw_multi_aff_from_multi_aff(it->second.copy());
  position = isl_pw_multi_aff_pullback_pw_multi_aff(position, instance);
  const int n = static_cast<int>(isl_pw_multi_aff_dim(position, isl_dim_out));
  isl_ctx* ctx = isl_ast_node_get_ctx(node);
  isl_ast_expr_list* list = isl_ast_expr_list_alloc(ctx, n);
  for (int k = 0; k < n; ++k)
    list = isl_ast_expr_list_add(list, isl_ast_build_expr_from_pw_aff(build, isl_pw_multi_aff_get_pw_aff(position, k)));
  isl_pw_multi_aff_free(position);
  isl_id* note = isl_id_set_free_user(isl_id_alloc(ctx, kBlockPosition, list), free_expr_list);
  return isl_ast_node_set_annotation(node, note);
}

// Every name the statements use: generated names must not capture one.
std::set<std::string> used_names(const Scop& scop) {
  std::set<std::string> used(scop.params.begin(), scop.params.end());
  for (const auto& a : scop.arrays) used.insert(a.name);
  for (const auto& s : scop.statements) {
    auto add = [&](const ExprPtr& e) {
      if (e) visit(e, [&](const ExprPtr& x) { used.insert(x->text); });
    };
    add(s.lhs);
    add(s.rhs);
  }
  return used;
}

std::string iterator_prefix(const std::set<std::string>& used) {
  for (std::string prefix : {"c", "pz_c", "pz_loop_c"}) {
    bool clash = false;
    for (const auto& u : used)
      if (u.rfind(prefix, 0) == 0 && u.size() > prefix.size() &&
          u.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
        clash = true;
    if (!clash) return prefix;
  }
  return "pz_loop_iterator_c";
}

std::string local_name(const std::set<std::string>& used, const std::string& prefix, std::string name) {
  while (used.count(name) || name.rfind(prefix, 0) == 0) name += '_';
  return name;
}

}  // namespace

std::string generate_c(const Scop& scop, const isl::schedule& schedule, const CodegenOptions& options) {
  isl_ctx* ctx = isl_schedule_get_ctx(schedule.get());
  isl_ast_build* build = isl_ast_build_from_context(scop.context.copy());
  const std::set<std::string> used = used_names(scop);
  std::string prefix = iterator_prefix(used);
  isl_id_list* names = isl_id_list_alloc(ctx, 32);
  for (int i = 0; i < 32; ++i) names = isl_id_list_add(names, isl_id_alloc(ctx, (prefix + std::to_string(i)).c_str(), nullptr));
  build = isl_ast_build_set_iterators(build, names);
  if (options.register_block) build = isl_ast_build_set_at_each_domain(build, annotate_block_position, const_cast<RegisterBlock*>(options.register_block));
  isl_ast_node* tree = isl_ast_build_node_from_schedule(build, isolate_whole_strips(schedule).release());
  isl_ast_build_free(build);
  if (!tree) {
    const char* msg = isl_ctx_last_error_msg(ctx);
    throw std::runtime_error(std::string("isl AST generation failed: ") + (msg ? msg : "unknown error"));
  }
  const std::string block = local_name(used, prefix, "pz_rb");
  Emitter em(scop, options, prefix, local_name(used, prefix, "pz_acc"), block, local_name(used, prefix, "pz_reg"));
  em.node(tree, 1);
  isl_ast_node_free(tree);
  return options.indent + "{\n" + em.str() + options.indent + "}\n";
}

}  // namespace pz::poly
