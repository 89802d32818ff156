// The C of one packed contraction (matmul_packing.h): BLIS's loops around its micro-kernel
// (Van Zee and van de Geijn, TOMS 2015),
//   for pc (k_c of the contraction)
//     for ic (m_c rows of X)     L's m_c x k_c block packed into m_r-row slivers (an L
//                                read in place, ContractionTerm::left_in_place: packed
//                                only for the array form; whole slivers read its rows
//                                where they are, edge slivers are packed with zeros)
//       for jc (n_r columns)     R's k_c x n_r sliver packed (or read in place: R one
//                                access with n as its last subscript, few L slivers)
//         for ir (m_r rows)      the micro-kernel: an m_r x n_r block of X in registers,
//                                k_c rank-1 updates from the two slivers
// As BLIS keeps a k_c x n_c panel of R packed across the ic blocks, R's slivers of one pc
// block are kept in a panel of all n columns (on the heap, allocated once per call) when
// the sizes give each enough reuses to pay for the panel's first touch
// (MatmulBlocking::right_panel_reuse): each sliver is packed by the first ic block that
// meets its columns, by the thread that owns those columns in every block. Otherwise R's
// slivers are packed again for each ic block (a 1/m_c share of the multiply-adds in copies)
// into a local array, so that the buffers are the m_c x k_c block and one sliver: constant
// sizes, few pages to touch on a first call. Either way the region stays reentrant and
// without barriers. Slivers are zero-padded
// to whole m_r / n_r, so the micro-kernel has no edge code; the edge blocks of X are loaded
// and stored under a guard, and in a triangle (syrk) blocks outside it are skipped and
// blocks across its edge stored element by element. The block of X is held in m_r x
// (n_r / lanes) named vector variables (GCC's and Clang's vector extension), loaded and
// stored with memcpy, updated by scalar-times-vector products: registers by construction,
// where a local array under `omp simd` loops depends on the compiler's unrolling heuristics
// (GCC keeps it in memory for some sizes). Before its k_c updates, a whole block prefetches
// the block of X it updates next (BLIS's micro-kernels prefetch C alike): X's blocks pass
// through the caches once per k_c block, and their loads would otherwise wait on L3 or
// memory. The last column of blocks, when a whole number
// of vectors wide, gets a narrower kernel of the same form; other edge blocks run it on a
// zero-padded copy. That form is compiled where the target has vectors of that width (or
// the compiler is Clang, which splits wider ones well): `#if defined(__AVX512F__) ||
// defined(__clang__)` for 64-byte vectors. Elsewhere GCC would lower them through memory,
// and the block is a local array `pz_acc[m_r][n_r]` under `omp simd` loops instead, which
// GCC vectorises at the width it has. A sum of products (syr2k) packs each term's operands
// and adds the products in the source's order.
#pragma once

#include <string>

#include "polyhedral/transform/matmul_packing.h"

namespace pz::poly {

struct PackedKernelOptions {
  std::string indent;       // prefix of every line
  // One `omp parallel` region around the loops, without barriers inside: each thread packs
  // L's blocks into its own buffer and takes the same share of the jc loop in every block;
  // with symbolic sizes under an if() of the multiply-adds against min_parallel_work.
  bool parallel = false;
  long long min_parallel_work = 0;
  std::string num_threads;  // a num_threads() clause's expression, "" for none
};

// The multiply-adds of `c`'s box of bounds as a C expression of the parameters (long long):
// its instances for a box, an upper bound for a triangle.
std::string box_multiply_adds_c(const Contraction& c);

// A block `{ ... }` computing every instance of `c` in the packed loops of `b`.
std::string packed_matmul_c(const Contraction& c, const MatmulBlocking& b, const PackedKernelOptions& o);

}  // namespace pz::poly
