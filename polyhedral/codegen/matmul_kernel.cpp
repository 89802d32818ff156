#include "polyhedral/codegen/matmul_kernel.h"

#include <algorithm>
#include <functional>
#include <set>

namespace pz::poly {

namespace {

// Lines of C at a growing and shrinking indentation.
class Lines {
 public:
  explicit Lines(std::string indent) : indent_(std::move(indent)) {}
  Lines& line(const std::string& text) {
    out_ += indent_ + std::string(2 * static_cast<std::size_t>(depth_), ' ') + text + "\n";
    return *this;
  }
  Lines& open(const std::string& text) {
    line(text.empty() ? "{" : text + " {");
    ++depth_;
    return *this;
  }
  Lines& close() {
    --depth_;
    return line("}");
  }
  const std::string& text() const { return out_; }

 private:
  std::string indent_;
  std::string out_;
  int depth_ = 0;
};

std::string str(long v) { return std::to_string(v); }

// `limit` if `rest` is larger, else `rest`: the size of the block that starts at `start`.
std::string block_size(const std::string& hi, const std::string& start, long limit) {
  const std::string rest = hi + " - " + start + " + 1";
  return rest + " < " + str(limit) + " ? " + rest + " : " + str(limit);
}

std::string for_loop(const std::string& it, const std::string& from, const std::string& below, const std::string& step) {
  return "for (int " + it + " = " + from + "; " + it + " < " + below + "; " + it + (step == "1" ? "++" : " += " + step) + ")";
}

// One operand's sliver: `buffer`[p * width + x] = `operand` at `across` = start + x (zero
// from x = `valid` on) and k = pc + p, for p < kc. The loop along the operand's contiguous
// subscript is innermost.
struct SliverPacking {
  std::string buffer, operand, across, start, valid;
  long width;
  bool k_contiguous;
  bool uses_across, uses_k;
};

void pack_loops(Lines& c, const SliverPacking& s, const std::string& k, bool whole) {
  const std::string value = whole ? "(" + s.operand + ")" : "pz_x < " + s.valid + " ? (" + s.operand + ") : 0";
  const std::string store = "(" + s.buffer + ")[pz_p * " + str(s.width) + " + pz_x] = " + value + ";";
  const std::string p_loop = for_loop("pz_p", "0", "pz_kc", "1"), x_loop = for_loop("pz_x", "0", str(s.width), "1");
  const std::string declare_k = "const int " + k + " = pz_pc + pz_p;";
  const std::string declare_across = "const int " + s.across + " = " + s.start + " + pz_x;";
  // A whole sliver is copied a row of the buffer at a time, each row one vector store per
  // `lanes` elements: loaded by vectors where the operand runs along the sliver's width,
  // gathered where it runs along k (a transposing copy). An edge sliver keeps the loop along
  // the operand's contiguous subscript innermost.
  const bool p_outer = whole || !s.k_contiguous;
  c.open(p_outer ? p_loop : x_loop);
  if (p_outer ? s.uses_k : s.uses_across) c.line(p_outer ? declare_k : declare_across);
  if (whole) c.line("#pragma omp simd");
  c.open(p_outer ? x_loop : p_loop);
  if (p_outer ? s.uses_across : s.uses_k) c.line(p_outer ? declare_across : declare_k);
  c.line(store).close().close();
}

// The sliver packed: a whole one (`valid` == width) as plain copies, an edge one with zeros
// beyond the edge. The test per element would keep GCC from vectorising the copy, which
// then costs as much as a good part of the micro-kernel's work on it.
void pack_sliver(Lines& c, const SliverPacking& s, const std::string& k) {
  c.open("if (" + s.valid + " == " + str(s.width) + ")");
  pack_loops(c, s, k, true);
  c.close().open("else");
  pack_loops(c, s, k, false);
  c.close();
}

// Whether the block of rows [m0, m_last] and columns [n0, n_last] has an element in the
// contraction's triangle (`whole`: every element is in it). "" for a box.
std::string block_in_triangle(const Contraction& k, const std::string& m0, const std::string& m_last,
                              const std::string& n0, const std::string& n_last, bool whole) {
  if (k.triangle == 0) return "";
  // n <= m + c: the block's last column against its first row, or its first column against
  // its last row; n >= m + c mirrors it.
  const bool below = k.triangle > 0;
  return whole == below ? triangle_condition(k, n_last, m0) : triangle_condition(k, n0, m_last);
}

}  // namespace

std::string box_multiply_adds_c(const Contraction& k) {
  return "(long long)(" + k.m_hi + " - " + k.m_lo + " + 1) * (long long)(" + k.n_hi + " - " + k.n_lo + " + 1) * (long long)(" +
         k.k_hi + " - " + k.k_lo + " + 1)";
}

namespace {

// One parallel region around the block loops (one fork per call). Each thread packs L's
// block into its own buffer and takes the same columns of X (`schedule(static) nowait`;
// round-robin slivers for a triangle) in every block: no barrier inside the region, so a
// thread whose partner the OS has descheduled (a busy machine) never waits for it before
// the join.
std::string parallel_region_pragma(const Contraction& k, const PackedKernelOptions& o) {
  std::string pragma = "#pragma omp parallel";
  if (o.min_parallel_work > 0 && k.multiply_adds < 0)
    pragma += " if (" + box_multiply_adds_c(k) + " >= " + std::to_string(o.min_parallel_work) + "LL)";
  if (!o.num_threads.empty()) pragma += " num_threads(" + o.num_threads + ")";
  return pragma;
}

// The condition under which the block at (pz_m0, pz_n0) is m_r x `width` elements, all in
// the triangle.
std::string whole_block(const Contraction& k, const MatmulBlocking& b, long width) {
  const std::string whole = block_in_triangle(k, "pz_m0", "pz_m0 + " + str(b.mr - 1), "pz_n0", "pz_n0 + " + str(width - 1), true);
  return "pz_mr == " + str(b.mr) + " && pz_nr == " + str(width) + (whole.empty() ? "" : " && " + whole);
}

// An edge block of X at (pz_m0, pz_n0) into or out of pz_acc, element by element: zeros
// outside the block and the triangle, stores only inside.
void move_edge_block(Lines& c, const Contraction& k, const MatmulBlocking& b, bool load) {
  const std::string inside = "pz_x < pz_mr && pz_y < pz_nr" + (k.triangle ? " && " + triangle_condition(k, k.n, k.m) : "");
  c.open(for_loop("pz_x", "0", str(b.mr), "1")).line("const int " + k.m + " = pz_m0 + pz_x;");
  c.open(for_loop("pz_y", "0", str(b.nr), "1")).line("const int " + k.n + " = pz_n0 + pz_y;");
  c.line(load ? "pz_acc[pz_x][pz_y] = " + inside + " ? " + k.target + " : 0;"
              : "if (" + inside + ") " + k.target + " = pz_acc[pz_x][pz_y];");
  c.close().close();
}

std::string numbered(const std::string& name, std::size_t t) { return name + std::to_string(t); }

// Term t's R at row pz_p, column pz_y of the sliver: its packed sliver, or R itself (k and n
// declared around it) when read in place, zero beyond the edge when `edge`.
std::string right_value(const ContractionTerm& term, std::size_t t, const MatmulBlocking& b, bool edge) {
  if (!term.right_in_place) return numbered("pz_packed_right", t) + "[pz_p * " + str(b.nr) + " + pz_y]";
  return edge ? "(pz_y < pz_nr ? (" + term.right + ") : 0)" : "(" + term.right + ")";
}

bool any_in_place(const Contraction& k) {
  for (const auto& t : k.terms)
    if (t.right_in_place) return true;
  return false;
}

// pz_acc op= the k_c rank-1 updates of each term's L sliver (pz_a<t>) and R sliver.
void rank_one_updates(Lines& c, const Contraction& k, const MatmulBlocking& b, bool edge) {
  c.open(for_loop("pz_p", "0", "pz_kc", "1"));
  bool declare_k = false, declare_n = false;
  for (const auto& t : k.terms) {
    declare_k = declare_k || (t.right_in_place && t.right_iterators.count(k.k));
    declare_n = declare_n || t.right_in_place;
  }
  if (declare_k) c.line("const int " + k.k + " = pz_pc + pz_p;");
  c.open(for_loop("pz_x", "0", str(b.mr), "1"));
  std::string sum;
  for (std::size_t t = 0; t < k.terms.size(); ++t) {
    c.line("const " + k.element_type + " " + numbered("pz_l", t) + " = " + numbered("pz_a", t) + "[pz_p * " + str(b.mr) + " + pz_x];");
    sum += (t ? " " + k.terms[t].sign + " " : "") + numbered("pz_l", t) + " * " + right_value(k.terms[t], t, b, edge);
  }
  c.line("#pragma omp simd simdlen(" + str(b.lanes) + ")");
  c.open(for_loop("pz_y", "0", str(b.nr), "1"));
  if (declare_n) c.line("const int " + k.n + " = pz_n0 + pz_y;");
  c.line("pz_acc[pz_x][pz_y] " + k.op + " " + sum + ";");
  c.close().close().close();
}

// The block of X into or out of pz_acc: a whole block by `omp simd` rows, an edge block
// element by element.
void move_array_block(Lines& c, const Contraction& k, const MatmulBlocking& b, bool load) {
  c.open("if (" + whole_block(k, b, b.nr) + ")");
  c.open(for_loop("pz_x", "0", str(b.mr), "1")).line("const int " + k.m + " = pz_m0 + pz_x;");
  c.line("#pragma omp simd simdlen(" + str(b.lanes) + ")");
  c.open(for_loop("pz_y", "0", str(b.nr), "1")).line("const int " + k.n + " = pz_n0 + pz_y;");
  c.line(load ? "pz_acc[pz_x][pz_y] = " + k.target + ";" : k.target + " = pz_acc[pz_x][pz_y];");
  c.close().close().close().open("else");
  move_edge_block(c, k, b, load);
  c.close();
}

std::string accumulator(long x, long v) { return "pz_c" + str(x) + "_" + str(v); }

// `&element` as a vector of `lanes` elements from the element on: unaligned, and without
// type punning (a copy the compiler turns into one vector load or store).
std::string vector_copy(const std::string& to, const std::string& from) {
  return "__builtin_memcpy(" + to + ", " + from + ", sizeof(pz_vector));";
}

// Term t's L at row `x` of the sliver, k = pz_pc + pz_p: its packed sliver, a row of L
// itself (pz_lrow<t>_<x>, whole slivers of an L read in place) or, in an edge block, the
// sliver packed with zeros below the edge (pz_edge_left<t>).
std::string left_value(const ContractionTerm& term, std::size_t t, const MatmulBlocking& b, long x, bool edge) {
  if (term.left_in_place && !edge) return numbered("pz_lrow", t) + "_" + str(x) + "[pz_p]";
  const std::string sliver = numbered(term.left_in_place ? "pz_edge_left" : "pz_a", t);
  return sliver + "[pz_p * " + str(b.mr) + " + " + str(x) + "]";
}

// Pointers to the m_r rows of each in-place L at k = pz_pc, for a whole sliver.
void left_rows(Lines& c, const Contraction& k, const MatmulBlocking& b) {
  for (std::size_t t = 0; t < k.terms.size(); ++t) {
    const ContractionTerm& term = k.terms[t];
    if (!term.left_in_place) continue;
    std::string rows;
    for (long x = 0; x < b.mr; ++x) rows += std::string(x ? ", " : "") + "*" + numbered("pz_lrow", t) + "_" + str(x);
    c.line("const " + k.element_type + " " + rows + ";");
    for (long x = 0; x < b.mr; ++x) {
      std::string declare;
      if (term.left_iterators.count(k.m)) declare += k.m + " = pz_m0 + " + str(x);
      declare += std::string(declare.empty() ? "" : ", ") + k.k + " = pz_pc";
      c.line("{ const int " + declare + "; " + numbered("pz_lrow", t) + "_" + str(x) + " = &(" + term.left + "); }");
    }
  }
}

// The block's m_r x (n_r / lanes) accumulators as named vectors (GCC's and Clang's vector
// extension), so that they live in registers by construction rather than by the compiler's
// choice to unroll and scalarise a local array: loaded, k_c rank-1 updates (each term's R
// row loaded once as n_r / lanes vectors, each L element broadcast by the scalar-vector
// product), stored back. A whole block loads and stores X and reads R and L in place where
// it can; an edge block works on pz_acc (the block zero-padded) and on the slivers of the
// operands read in place, packed with zeros beyond the edge (pz_edge_left<t>,
// pz_edge_right<t>).
// Prefetches into L1 the block of X the micro-kernel updates next (BLIS's micro-kernels
// prefetch C the same way): the block below in this column of blocks, or after the last
// one the first block of the next column. X's blocks are loaded and stored once per k_c
// rank-1 updates, and between two k_c blocks a whole column of m_c x n blocks has passed
// through the caches: without it each block's loads wait on L3 or memory. Only whole
// blocks inside the m_c block and the contraction's box are prefetched.
void prefetch_next_block(Lines& c, const Contraction& k, const MatmulBlocking& b, long vectors) {
  const std::string mr = str(b.mr), nr = str(b.nr);
  c.line("const int pz_down = pz_ir + 2 * " + mr + " <= pz_mc;");
  c.line("const int pz_across = !pz_down && pz_n0 + 2 * " + nr + " - 1 <= " + k.n_hi + " && pz_mc >= " + mr + ";");
  c.open("if (pz_down || pz_across)");
  c.line("const int pz_next_m = pz_down ? pz_m0 + " + mr + " : pz_ic, pz_next_n = pz_down ? pz_n0 : pz_n0 + " + nr + ";");
  for (long x = 0; x < b.mr; ++x)
    for (long v = 0; v < vectors; ++v)
      c.line("{ const int " + k.m + " = pz_next_m + " + str(x) + ", " + k.n + " = pz_next_n + " + str(v * b.lanes) +
             "; __builtin_prefetch(&(" + k.target + "), 1, 3); }");
  c.close();
}

void vector_block_kernel(Lines& c, const Contraction& k, const MatmulBlocking& b, long vectors, bool edge) {
  c.line("typedef " + k.element_type + " pz_vector __attribute__((vector_size(" + str(b.lanes * k.element_bytes) + ")));");
  if (!edge) left_rows(c, k, b);
  std::string declared;
  for (long x = 0; x < b.mr; ++x)
    for (long v = 0; v < vectors; ++v) declared += (declared.empty() ? "" : ", ") + accumulator(x, v);
  c.line("pz_vector " + declared + ";");
  auto each_element = [&](bool load) {
    for (long x = 0; x < b.mr; ++x)
      for (long v = 0; v < vectors; ++v) {
        const std::string acc = "&" + accumulator(x, v);
        if (edge) {
          const std::string element = "&pz_acc[" + str(x) + "][" + str(v * b.lanes) + "]";
          c.line(load ? vector_copy(acc, element) : vector_copy(element, acc));
          continue;
        }
        const std::string element = "&(" + k.target + ")";
        c.line("{ const int " + k.m + " = pz_m0 + " + str(x) + ", " + k.n + " = pz_n0 + " + str(v * b.lanes) + "; " +
               (load ? vector_copy(acc, element) : vector_copy(element, acc)) + " }");
      }
  };
  each_element(true);
  if (!edge && vectors == b.nr / b.lanes) prefetch_next_block(c, k, b, vectors);
  c.open(for_loop("pz_p", "0", "pz_kc", "1"));
  bool declare_k = false;
  for (const auto& t : k.terms) declare_k = declare_k || (!edge && t.right_in_place && t.right_iterators.count(k.k));
  if (declare_k) c.line("const int " + k.k + " = pz_pc + pz_p;");
  for (std::size_t t = 0; t < k.terms.size(); ++t)
    for (long v = 0; v < vectors; ++v) {
      const ContractionTerm& term = k.terms[t];
      const std::string row = numbered("pz_r", t) + "_" + str(v);
      c.line("pz_vector " + row + ";");
      if (term.right_in_place && !edge) {
        c.line("{ const int " + k.n + " = pz_n0 + " + str(v * b.lanes) + "; " + vector_copy("&" + row, "&(" + term.right + ")") + " }");
        continue;
      }
      const std::string sliver = numbered(term.right_in_place ? "pz_edge_right" : "pz_packed_right", t);
      c.line(vector_copy("&" + row, sliver + " + pz_p * " + str(b.nr) + " + " + str(v * b.lanes)));
    }
  for (long x = 0; x < b.mr; ++x) {
    std::string left;
    for (std::size_t t = 0; t < k.terms.size(); ++t)
      left += (t ? ", " : "") + numbered("pz_l", t) + " = " + left_value(k.terms[t], t, b, x, edge);
    c.open("").line("const " + k.element_type + " " + left + ";");
    for (long v = 0; v < vectors; ++v) {
      std::string sum;
      for (std::size_t t = 0; t < k.terms.size(); ++t)
        sum += (t ? " " + k.terms[t].sign + " " : "") + numbered("pz_l", t) + " * " + numbered("pz_r", t) + "_" + str(v);
      c.line(accumulator(x, v) + " " + k.op + " " + sum + ";");
    }
    c.close();
  }
  c.close();
  each_element(false);
}

// The micro-kernel in named vectors where the target has vectors of that width (GCC lowers
// wider generic vectors through memory; Clang splits them well), else on the array
// pz_acc under `omp simd` loops, which GCC vectorises for whatever width it has.
std::string vector_condition(const Contraction& k, const MatmulBlocking& b) {
  const long bytes = b.lanes * k.element_bytes;
  const std::string native = bytes >= 64 ? "defined(__AVX512F__)" : bytes >= 32 ? "defined(__AVX__)" : "1";
  return native + " || defined(__clang__)";
}

std::string vector_target(const Contraction& k, const MatmulBlocking& b) { return "#if " + vector_condition(k, b); }

// What `emit` writes, under `#if !(vector condition)` when `only` holds: code only the array
// form (the `#else` of vector_target) uses, such as the packed slivers of an L that the
// vector form reads in place.
void array_form_only(Lines& c, const Contraction& k, const MatmulBlocking& b, bool only, const std::function<void()>& emit) {
  if (only) c.line("#if !(" + vector_condition(k, b) + ")");
  emit();
  if (only) c.line("#endif");
}

// The operands read in place (L's when `left`, else R's), packed for an edge block with
// zeros beyond its edge: pz_edge_left<t>, pz_edge_right<t>.
void pack_edge_slivers(Lines& c, const Contraction& k, const MatmulBlocking& b, bool left) {
  for (std::size_t i = 0; i < k.terms.size(); ++i) {
    const ContractionTerm& term = k.terms[i];
    if (!(left ? term.left_in_place : term.right_in_place)) continue;
    const std::string buffer = numbered(left ? "pz_edge_left" : "pz_edge_right", i), &across = left ? k.m : k.n;
    const std::set<std::string>& iterators = left ? term.left_iterators : term.right_iterators;
    const long width = left ? b.mr : b.nr;
    c.line(k.element_type + " " + buffer + "[" + str(b.kc * width) + "];");
    pack_sliver(c, {buffer, left ? term.left : term.right, across, left ? "pz_m0" : "pz_jc", left ? "pz_mr" : "pz_nr", width,
                    left ? term.left_k_contiguous : term.right_k_contiguous, iterators.count(across) > 0,
                    iterators.count(k.k) > 0}, k.k);
  }
}

void vector_micro_kernel(Lines& c, const Contraction& k, const MatmulBlocking& b) {
  const std::string& t = k.element_type;
  // Whole blocks, and the last column of blocks when it is a whole number of vectors wide
  // (narrower kernels, no padding); other edge blocks are padded.
  for (long vectors = b.nr / b.lanes; vectors >= 1; --vectors) {
    c.open(std::string(vectors == b.nr / b.lanes ? "" : "else ") + "if (" + whole_block(k, b, vectors * b.lanes) + ")");
    vector_block_kernel(c, k, b, vectors, false);
    c.close();
  }
  c.open("else");
  c.line(t + " pz_acc[" + str(b.mr) + "][" + str(b.nr) + "];");
  pack_edge_slivers(c, k, b, true);
  pack_edge_slivers(c, k, b, false);
  move_edge_block(c, k, b, true);
  vector_block_kernel(c, k, b, b.nr / b.lanes, true);
  move_edge_block(c, k, b, false);
  c.close();
}

void array_micro_kernel(Lines& c, const Contraction& k, const MatmulBlocking& b) {
  c.line(k.element_type + " pz_acc[" + str(b.mr) + "][" + str(b.nr) + "];");
  move_array_block(c, k, b, true);
  if (!any_in_place(k)) {
    rank_one_updates(c, k, b, false);
  } else {
    c.open("if (pz_nr == " + str(b.nr) + ")");
    rank_one_updates(c, k, b, false);
    c.close().open("else");
    rank_one_updates(c, k, b, true);
    c.close();
  }
  move_array_block(c, k, b, false);
}

// `statement` (C over k.m and k.n) where k.m and k.n lie in the contraction's domain.
std::string in_domain(const Contraction& k, const std::string& statement) {
  return (k.triangle ? "if (" + triangle_condition(k, k.n, k.m) + ") " : "") + statement + ";";
}

// `statement` (C over k.m and k.n) on each element of the block at (pz_m0, pz_n0) of
// pz_mr x pz_nr elements inside the contraction's domain: a fused neighbour.
void on_block(Lines& c, const Contraction& k, const std::string& statement) {
  c.open(for_loop("pz_x", "0", "pz_mr", "1")).line("const int " + k.m + " = pz_m0 + pz_x;");
  c.line("#pragma omp simd");
  c.open(for_loop("pz_y", "0", "pz_nr", "1")).line("const int " + k.n + " = pz_n0 + pz_y;");
  c.line(in_domain(k, statement));
  c.close().close();
}

// A fused neighbour on every element of the domain, in the order of the source's loops
// (m then n): where the k range is empty the packed loops never reach the elements.
void on_domain(Lines& c, const Contraction& k, const std::string& statement) {
  c.open("for (int " + k.m + " = " + k.m_lo + "; " + k.m + " <= " + k.m_hi + "; " + k.m + "++)");
  c.open("for (int " + k.n + " = " + k.n_lo + "; " + k.n + " <= " + k.n_hi + "; " + k.n + "++)");
  c.line(in_domain(k, statement));
  c.close().close();
}

void micro_kernel(Lines& c, const Contraction& k, const MatmulBlocking& b) {
  const std::string t = k.element_type;
  for (std::size_t i = 0; i < k.terms.size(); ++i)
    array_form_only(c, k, b, k.terms[i].left_in_place, [&] {
      c.line("const " + t + " *const " + numbered("pz_a", i) + " = " + numbered("pz_packed_left", i) + " + pz_ir * pz_kc;");
    });
  c.line("const int pz_m0 = pz_ic + pz_ir, pz_n0 = pz_jc;");
  c.line("const int pz_mr = pz_mc - pz_ir < " + str(b.mr) + " ? pz_mc - pz_ir : " + str(b.mr) + ";");
  const std::string meets = block_in_triangle(k, "pz_m0", "pz_m0 + pz_mr - 1", "pz_n0", "pz_n0 + pz_nr - 1", false);
  if (!meets.empty()) c.line("if (!(" + meets + ")) continue;");
  if (!k.prologue.empty()) {
    c.open("if (pz_pc == " + k.k_lo + ")");
    on_block(c, k, k.prologue);
    c.close();
  }
  c.line(vector_target(k, b));
  vector_micro_kernel(c, k, b);
  c.line("#else");
  array_micro_kernel(c, k, b);
  c.line("#endif");
  if (!k.epilogue.empty()) {
    c.open("if (pz_pc + pz_kc > " + k.k_hi + ")");
    on_block(c, k, k.epilogue);
    c.close();
  }
}

// R's panels (MatmulBlocking::right_panel_reuse): for each packed R, room for all of its
// k_c x n_r slivers of one k_c block, 64-byte aligned, allocated when the run-time sizes give
// each sliver enough reuses. pz_panel_right<t> stays null otherwise, or when the allocation
// fails: each m_c block then packs its own slivers.
void allocate_right_panels(Lines& c, const Contraction& k, const MatmulBlocking& b) {
  const std::string blocks_of_m = "((long long)(" + k.m_hi + " - " + k.m_lo + " + " + str(b.mc) + ") / " + str(b.mc) + ")";
  const std::string blocks_of_k = "((long long)(" + k.k_hi + " - " + k.k_lo + " + " + str(b.kc) + ") / " + str(b.kc) + ")";
  const std::string slivers = "(__SIZE_TYPE__)((" + k.n_hi + " - " + k.n_lo + " + " + str(b.nr) + ") / " + str(b.nr) + ")";
  const std::string reused = "(" + k.n_hi + ") >= (" + k.n_lo + ") && (" + blocks_of_m + " - 1) * " + blocks_of_k +
                             " >= " + str(b.right_panel_reuse) + "LL";
  for (std::size_t i = 0; i < k.terms.size(); ++i) {
    if (k.terms[i].right_in_place) continue;
    const std::string memory = numbered("pz_panel_memory", i), panel = numbered("pz_panel_right", i);
    c.line("void *" + memory + " = 0;").line(k.element_type + " *" + panel + " = 0;");
    c.open("if (" + reused + ")");
    c.line(memory + " = __builtin_malloc(sizeof(" + k.element_type + ") * " + str(b.kc * b.nr) + " * " + slivers + " + 64);");
    c.line("if (" + memory + ") " + panel + " = (" + k.element_type + " *)(((__UINTPTR_TYPE__)" + memory +
           " + 63) & ~(__UINTPTR_TYPE__)63);");
    c.close();
  }
}

// R's sliver at pz_jc for term `t`: its place in the panel, packed by the first m_c block
// that meets its columns (the thread that owns the columns in every block: the same static
// schedule), or a local sliver packed for each block when there is no panel.
void right_sliver_in_panel(Lines& c, const Contraction& k, const MatmulBlocking& b, std::size_t t, const SliverPacking& s) {
  const std::string panel = numbered("pz_panel_right", t), local = numbered("pz_sliver_right", t);
  c.line(k.element_type + " " + local + "[" + str(b.kc * b.nr) + "] __attribute__((aligned(64)));");
  c.line(k.element_type + " *const " + s.buffer + " = " + panel + " ? " + panel + " + (long)((pz_jc - (" + k.n_lo + ")) / " +
         str(b.nr) + ") * " + str(b.kc * b.nr) + " : " + local + ";");
  // The block above this one (a whole m_c block) misses these columns in a triangle.
  const std::string above_meets = block_in_triangle(k, "(pz_ic - " + str(b.mc) + ")", "(pz_ic - 1)", "pz_jc", "pz_jc + pz_nr - 1", false);
  const std::string first = "pz_ic == (" + k.m_lo + ")" + (above_meets.empty() ? "" : " || !(" + above_meets + ")");
  c.open("if (!" + panel + " || " + first + ")");
  pack_sliver(c, s, k.k);
  c.close();
}

}  // namespace

std::string packed_matmul_c(const Contraction& k, const MatmulBlocking& b, const PackedKernelOptions& o) {
  Lines c(o.indent);
  const std::string t = k.element_type;
  if (!k.prologue.empty() || !k.epilogue.empty()) {
    c.open("if (" + k.k_hi + " < " + k.k_lo + ")");
    for (const std::string* fused : {&k.prologue, &k.epilogue})
      if (!fused->empty()) on_domain(c, k, *fused);
    c.close();
  }
  if (b.right_panel_reuse > 0) {
    c.open("");
    allocate_right_panels(c, k, b);
  }
  if (o.parallel) c.line(parallel_region_pragma(k, o));
  c.open("");
  for (std::size_t i = 0; i < k.terms.size(); ++i)
    array_form_only(c, k, b, k.terms[i].left_in_place, [&] {
      c.line(t + " " + numbered("pz_packed_left", i) + "[" + str(b.mc * b.kc) + "] __attribute__((aligned(64)));");
    });
  c.open("for (int pz_pc = " + k.k_lo + "; pz_pc <= " + k.k_hi + "; pz_pc += " + str(b.kc) + ")");
  c.line("const int pz_kc = " + block_size(k.k_hi, "pz_pc", b.kc) + ";");
  c.open("for (int pz_ic = " + k.m_lo + "; pz_ic <= " + k.m_hi + "; pz_ic += " + str(b.mc) + ")");
  c.line("const int pz_mc = " + block_size(k.m_hi, "pz_ic", b.mc) + ";");
  // L's block packed, m_r rows a sliver (an L read in place: only for the array form).
  const bool all_left_in_place =
      std::all_of(k.terms.begin(), k.terms.end(), [](const ContractionTerm& term) { return term.left_in_place; });
  array_form_only(c, k, b, all_left_in_place, [&] {
    c.open(for_loop("pz_ir", "0", "pz_mc", str(b.mr)));
    c.line("const int pz_mr = pz_mc - pz_ir < " + str(b.mr) + " ? pz_mc - pz_ir : " + str(b.mr) + ";");
    for (std::size_t i = 0; i < k.terms.size(); ++i) {
      const ContractionTerm& term = k.terms[i];
      array_form_only(c, k, b, term.left_in_place && !all_left_in_place, [&] {
        pack_sliver(c, {numbered("pz_packed_left", i) + " + pz_ir * pz_kc", term.left, k.m, "pz_ic + pz_ir", "pz_mr", b.mr,
                        term.left_k_contiguous, term.left_iterators.count(k.m) > 0, term.left_iterators.count(k.k) > 0}, k.k);
      });
    }
    c.close();
  });
  // A triangle's columns hold unequal work (syrk's lower triangle: the first columns the
  // most rows); slivers dealt round-robin give each thread an even share.
  if (o.parallel) c.line(k.triangle ? "#pragma omp for schedule(static, 1) nowait" : "#pragma omp for schedule(static) nowait");
  c.open("for (int pz_jc = " + k.n_lo + "; pz_jc <= " + k.n_hi + "; pz_jc += " + str(b.nr) + ")");
  c.line("const int pz_nr = " + block_size(k.n_hi, "pz_jc", b.nr) + ";");
  const std::string meets = block_in_triangle(k, "pz_ic", "pz_ic + pz_mc - 1", "pz_jc", "pz_jc + pz_nr - 1", false);
  if (!meets.empty()) c.line("if (!(" + meets + ")) continue;");
  for (std::size_t i = 0; i < k.terms.size(); ++i) {
    const ContractionTerm& term = k.terms[i];
    if (term.right_in_place) continue;
    const SliverPacking sliver{numbered("pz_packed_right", i), term.right, k.n, "pz_jc", "pz_nr", b.nr, term.right_k_contiguous,
                               term.right_iterators.count(k.n) > 0, term.right_iterators.count(k.k) > 0};
    if (b.right_panel_reuse > 0) {
      right_sliver_in_panel(c, k, b, i, sliver);
      continue;
    }
    c.line(t + " " + numbered("pz_packed_right", i) + "[" + str(b.kc * b.nr) + "] __attribute__((aligned(64)));");
    pack_sliver(c, sliver, k.k);
  }
  c.open(for_loop("pz_ir", "0", "pz_mc", str(b.mr)));
  micro_kernel(c, k, b);
  c.close().close().close().close().close();
  if (b.right_panel_reuse > 0) {
    for (std::size_t i = 0; i < k.terms.size(); ++i)
      if (!k.terms[i].right_in_place) c.line("__builtin_free(" + numbered("pz_panel_memory", i) + ");");
    c.close();
  }
  return c.text();
}

}  // namespace pz::poly
