// Packed contractions: the GEMM-class statements of a scop run as BLIS's loop nest (Van Zee
// and van de Geijn, TOMS 2015; the cache-block sizes by the analytical rule of Low et al.,
// TOMS 2016), pattern-matched as Polly's matrix-multiplication optimiser does (Gareev,
// Grosser and Kruse, TACO 2018).
//
// A contraction is a statement
//   X[f(m, n)] op= L * R     op one of += -=, over a domain in (m, n, k) that is a box,
//                            or a box cut by n <= m + c or n >= m + c (syrk's triangle);
//                            the update may be a sum L1 * R1 + L2 * R2 ... (syr2k)
// where L's iterators are among {m, k}, R's among {k, n} (either may be the left factor, and
// either may read its matrix transposed), n is the iterator of X's last subscript and m the
// other one, k the third. alpha * A[i][k] * B[k][j] is (alpha * A[i][k]) * B[k][j] in C, so
// gemm, 2mm and 3mm match with alpha folded into L.
//
// The scop becomes a sequence of pieces in source order: each contraction alone, and the
// statements between them (run through the rest of polyc's pipeline as a scop of their own).
// That is legal when no dependence goes from a later piece to an earlier one and a
// contraction's dependences on itself all stay within one element of X with k increasing:
// every element then receives its updates in the source's order, and results are bit for
// bit those of the source (the micro-kernel starts from X's value, packs L and R as the
// source computes them and adds L * R in k order).
//
// Two neighbours of a contraction join its loops instead of sweeping X on their own (fusion
// of producer and consumer into the GEMM, as libraries fuse a bias or an activation into
// its epilogue): the statement just before it when it initialises each element of X (gemm's
// C[i][j] *= beta, a layer's u[b][i] = bias[i]) runs on each micro-tile just before the
// tile's first k block, and the statement just after it when it reads each element's final
// value (y[b][i] = x0[b][i] * u[b][i] + x[b][i]) runs on each tile just after its last.
// Either is fused only when it is two loops deep over the contraction's (m, n) domain,
// touches X only at its own element, and every dependence between it and the contraction
// links the same element: moving it next to that element's updates then keeps every
// dependence's order.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "polyhedral/analysis/cache_info.h"
#include "polyhedral/analysis/dependences.h"
#include "polyhedral/ir/scop.h"

namespace pz::poly {

struct MatmulPackingOptions {
  bool enabled = true;
  int vector_bytes = 64;       // one vector register (AVX-512)
  int accumulator_vectors = 24;  // of 32 vector registers: the m_r x n_r block of X
  int vectors_per_row = 3;     // n_r = 3 vectors; m_r = accumulator_vectors / 3 / terms
  // m_c at most this many m_r slivers: a larger L block costs a first call page faults on
  // its buffer and gains nothing once R's sliver is reused this often.
  int max_slivers_per_block = 12;
  // R's k_c x n_r sliver is packed (contiguous, so the micro-kernel streams it from L1
  // without set conflicts or page crossings, as BLIS packs it) when the L block it serves
  // has at least this many slivers: the copy is then at most 1 / (this * m_r) of the
  // multiply-adds. Fewer rows (a small m, known at compile time) read an R that is one
  // access with n as its last subscript where it is (ContractionTerm::right_in_place).
  int min_slivers_to_pack_right = 4;
  // R's packed slivers of one k_c block are kept for every m_c block (BLIS's k_c x n_c panel
  // of R, here all of n: a buffer on the heap, each thread's slivers packed by that thread
  // at the first L block that uses them) when the copies this saves, (m_c blocks - 1) x
  // k_c blocks per element of the panel, are at least this many per 4 KiB page of it: a
  // page's first touch costs microseconds, about what a few thousand copies do
  // (docs/BENCHMARKS.md). Otherwise, or with 0, each m_c block packs its own slivers.
  long min_right_panel_copies_per_page = 8192;
  // Contractions of fewer multiply-adds stay with the plain pipeline: packing, the edge
  // blocks and the buffers' first-touch page faults cost more than the micro-kernel saves
  // (the crossover, measured on PolyBench's contractions, is in docs/BENCHMARKS.md). With
  // symbolic sizes the program compares its contractions' boxes with this at run time
  // (polyc.cpp).
  long long min_multiply_adds = 1LL << 21;
  // A contraction's initialisation and consumer run on each micro-tile (above).
  bool fuse_neighbours = true;
  // Whole slivers of an L that is one access with k as its last subscript are read in place
  // (ContractionTerm::left_in_place) instead of packed. Off for C files: on PolyBench's
  // double matrices at LARGE (rows of 8-10 KB, so a sliver's rows span 8 pages) the packed
  // sliver was as fast or faster; recsys/'s float products (rows of 1.6-6.6 KB) gained
  // (docs/BENCHMARKS.md), and KernelWriterOptions::pack_contractions turns it on.
  bool left_in_place = false;
};

// One product L * R of a contraction's update.
struct ContractionTerm {
  std::string sign = "+";                 // how it joins the terms before it
  std::string left, right;                // L (m, k) and R (k, n) as C
  std::set<std::string> left_iterators, right_iterators;  // the ones L and R mention
  bool left_k_contiguous = true;          // L's array has k in its last subscript
  bool right_k_contiguous = false;        // R's array has k in its last subscript
  // R's k_c x n_r slivers are read where they are (each row n_r consecutive elements), not
  // packed: R is one array access whose last subscript is n, and its slivers serve few
  // slivers of L (MatmulPackingOptions::min_slivers_to_pack_right).
  bool right_in_place = false;
  // L is one array access whose last subscript is k, which no other subscript mentions:
  // whole m_r-row slivers read its rows where they are (each m_r x k_c block is a few
  // kilobytes of L1, reused by every n_r column), so L is not packed, a transposing copy.
  bool left_in_place = false;
};

// One contraction statement, matched.
struct Contraction {
  std::string statement;
  std::string m, n, k;                    // iterator names
  std::string m_lo, m_hi, n_lo, n_hi, k_lo, k_hi;  // inclusive bounds, C expressions of the parameters
  // The domain is the box of those bounds (0), or the part of it where n <= m + offset (1)
  // or n >= m + offset (-1).
  int triangle = 0;
  long triangle_offset = 0;
  std::string target;                     // X[f(m, n)] as C
  std::string op;                         // "+=" or "-="
  // The update: terms[0] (+ or - terms[t], in this order, as C evaluates them).
  std::vector<ContractionTerm> terms;
  std::string element_type = "double";
  int element_bytes = 8;
  long long multiply_adds = -1;           // -1: symbolic sizes
  // The fused neighbours (above) as C over m and n, "" for none, and their statements.
  std::string prologue, epilogue;
  std::string prologue_statement, epilogue_statement;
};

// The BLIS blocking of one contraction (Low et al.): the m_r x n_r micro-tile kept in
// registers, R's k_c x n_r sliver in L1 while L's m_r x k_c slivers stream through it, L's
// m_c x k_c block in L2 (matmul_kernel.h has the loops).
struct MatmulBlocking {
  int lanes = 8;
  int mr = 8, nr = 24;
  long kc = 128, mc = 96;
  // R's slivers kept in a panel across the m_c blocks when the contraction's run-time sizes
  // give each at least this many reuses, (m_c blocks - 1) x k_c blocks
  // (MatmulPackingOptions::min_right_panel_copies_per_page); 0: no panel.
  long right_panel_reuse = 0;
};

struct MatmulPiece {
  std::optional<Contraction> contraction;  // set: this piece is one packed contraction
  std::vector<std::string> statements;     // the piece's statements, in source order
};

struct MatmulPlan {
  std::vector<MatmulPiece> pieces;
  std::vector<MatmulBlocking> blockings;  // one per piece (unused for the plain ones)
};

// Whether a statement has a contraction's shape at first sight (an update += or -= `depth`
// loops deep; 4 for a contraction under a batch loop, outer_loop.h): a test without isl,
// before dependences are computed for the plan.
bool may_hold_contractions(const Scop& scop, std::size_t depth = 3);

// The contraction `s` is, or nullopt with the reason in `why`.
std::optional<Contraction> match_contraction(const Scop& scop, const Statement& s, std::string& why);

// The triangle's constraint on the C expressions `n` and `m` ("1" for a box).
std::string triangle_condition(const Contraction& c, const std::string& n, const std::string& m);

MatmulBlocking matmul_blocking(const CacheInfo& cache, const MatmulPackingOptions& options, const Contraction& c);

// The scop as pieces when at least one statement is a contraction worth packing and the
// pieces' order is legal; nullopt otherwise, with the reasons in `log`.
std::optional<MatmulPlan> plan_matmul_packing(const Scop& scop, const Dependences& deps, const CacheInfo& cache,
                                              const MatmulPackingOptions& options, std::vector<std::string>& log);


}  // namespace pz::poly
