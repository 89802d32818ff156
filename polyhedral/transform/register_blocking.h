// Register blocking of a reduction chain: the micro-kernel of contractions and direct
// convolutions (the register tile of Goto/BLIS, sized by the rule of Low et al., TOMS 2016;
// the whole reduction kept in registers as libxsmm's batch-reduce kernels do; the
// accumulators promoted out of memory as PPCG's private-memory promotion does for GPUs).
//
// A chain is a scop whose statements begin with, in this order:
//   init    Z[f(x)]  = e0 or op= e0  (e0 does not read Z; `C[i][j] *= beta` loads the
//                                     element into the block)
//   update  Z[f(x)] op= e1 over x,y  (the extra iterators y are the reduction, before,
//                                     between or after x's; e1 does not read Z)
//   final   W[g(x)]  = e2            (optional; reads Z only as Z[f(x)]; W may be Z with the
//                                     same subscripts or another array)
// followed only by statements of fewer dimensions than the chain (copies out of an
// expanded accumulator), which run after every block, in source order; the updates'
// instances project into init's. Without a final statement one is added: Z[f(x)] =
// Z[f(x)], the store; with a final one writing W != Z, that store is added too where Z is
// read afterwards (a later statement, a later block's loading init, or live-out). f need
// only be injective within a block (the members other than the block's two fixed), so one
// accumulator may serve every block in turn, as doitgen's sum[p] does; whether the
// blocks' order keeps that legal is for the dependence check the caller makes (polyc.cpp:
// keep_if_legal).
//
// Two members of x form the block: the vector member v (the last subscript of f, stride 1)
// and the row member r (the last other member of x). The schedule is
//   band   (other members of x, r / R, v / V)             the tiles, in source order
//   mark   kRegisterBlockMark
//   sequence
//     init:    band (r mod R) unrolled → mark "omp simd" → band (v mod V)
//     update:  band (y) → band (r mod R) unrolled → mark "omp simd" → band (v mod V)
//     final:   band (r mod R) unrolled → band (v mod V)   (no simd mark: GCC unrolls the
//                                                         store loops, see polyhedral/README.md)
// (a partial last tile of a constant v isolated), and the code generator keeps the R×V block of Z in a local array (`T pz_rb[R][V]`) whose
// indices are constants once r is unrolled, so the C compiler holds it in vector registers:
// the init writes it, the updates accumulate into it without touching memory, the final
// statement reads it. V is a whole number of vectors (at most max_vectors, fewer when v is
// shorter) and R·(V / lanes) ≤ accumulators, R balanced over r's extent so that the last
// tile is not a sliver.
#pragma once

#include <isl/cpp.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "polyhedral/ir/scop.h"

namespace pz::poly {

inline constexpr const char* kRegisterBlockMark = "register block";

struct RegisterBlockOptions {
  bool enabled = true;
  int vector_lanes = 16;  // elements of one vector register (fp32 in AVX-512)
  int accumulators = 24;  // vector registers the block may take (of 32)
  int max_vectors = 4;    // vectors along v per block
  // Refuse a chain whose rows or columns vary (a triangle's j <= i, a symbolic size), where
  // most blocks would be partial.
  bool constant_extents_only = false;
  // One block spans the whole constant extent of v (up to `accumulators` vectors; fewer rows
  // then): for chains whose final statement overwrites what a later column block still reads
  // (doitgen's A[r][q][p] = sum[p] after sums over A[r][q][s]), which are legal only so.
  bool whole_columns = false;
  // The arrays read after the scop (a kernel's outputs); unset: every array. A chain whose
  // final statement writes another array than Z is blocked only when Z is not one of them.
  std::optional<std::set<std::string>> live_out;

  static RegisterBlockOptions off() {
    RegisterBlockOptions o;
    o.enabled = false;
    return o;
  }
};

// What the code generator needs to keep a block of one array in registers.
struct RegisterBlock {
  std::string array;         // Z
  std::string element_type;  // Z's declared type
  long long rows = 1, columns = 1;
  std::string row_iterator, vector_iterator;
  // Per statement: its instance → (row, column) of the element it touches in the block.
  std::map<std::string, isl::multi_aff> position;
  // Statements whose write goes to memory (the final one, the stores); the others write
  // the block.
  std::set<std::string> stores;
  // The initialisation when it is an update (`Z[f(x)] *= beta`): it reads the element from
  // memory into the block (`block = Z[f(x)] * (beta)`).
  std::set<std::string> loads;
  std::string describe() const;  // "Z in a 7x32 block (rows w, vectors o)"
};

struct RegisterBlocking {
  isl::schedule schedule;
  RegisterBlock block;
  // The members of x as one untiled band, and the block as its tile (1 on the other
  // members): what footprint.h measures per block and sums over blocks.
  isl::schedule_node block_band;
  std::vector<long> block_sizes;
};

// Whether `scop`'s statements have a chain's shape (a cheap test before register_block,
// which also checks the block and leaves legality to the caller).
bool is_reduction_chain(const Scop& scop, const RegisterBlockOptions& options);

// The blocked schedule when `scop` is a chain (possibly after appending the store statement
// to it); nullopt, with the reason in `log`, when it is not.
std::optional<RegisterBlocking> register_block(Scop& scop, const RegisterBlockOptions& options,
                                               std::vector<std::string>& log);

}  // namespace pz::poly
