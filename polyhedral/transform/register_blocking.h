// Register blocking of a reduction chain: the micro-kernel of contractions and direct
// convolutions (the register tile of Goto/BLIS, sized by the rule of Low et al., TOMS 2016;
// the whole reduction kept in registers as libxsmm's batch-reduce kernels do; the
// accumulators promoted out of memory as PPCG's private-memory promotion does for GPUs).
//
// A chain is a scop of two or three statements over the same leading iterators x, in this
// order:
//   init    Z[f(x)]  = e0            (e0 does not read Z)
//   update  Z[f(x)] op= e1 over x,y  (the extra iterators y are the reduction; e1 does not read Z)
//   final   W[g(x)]  = e2            (optional; reads Z only as Z[f(x)]; W is Z with the same
//                                     subscripts, or an array nothing else in the scop touches
//                                     when Z is not live-out: Z then never leaves the block)
// with f injective, Z touched nowhere else, and the domains of update and final projecting
// onto init's. Without a final statement one is added: Z[f(x)] = Z[f(x)], the store.
//
// Two members of x form the block: the vector member v (the last subscript of f, stride 1)
// and the row member r (the last other member of x). The schedule is
//   band   (other members of x, r / R, v / V)             the tiles, in source order
//   mark   kRegisterBlockMark
//   sequence
//     init:    band (r mod R) unrolled → mark "omp simd" → band (v mod V)
//     update:  band (y) → band (r mod R) unrolled → mark "omp simd" → band (v mod V)
//     final:   band (r mod R) unrolled → mark "omp simd" → band (v mod V)
// and the code generator keeps the R×V block of Z in a local array (`T pz_rb[R][V]`) whose
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
  // The arrays read after the scop (a kernel's outputs); unset: every array. A chain whose
  // final statement writes another array than Z is blocked only when Z is not one of them.
  std::optional<std::set<std::string>> live_out;
};

// What the code generator needs to keep a block of one array in registers.
struct RegisterBlock {
  std::string array;         // Z
  std::string element_type;  // Z's declared type
  long long rows = 1, columns = 1;
  std::string row_iterator, vector_iterator;
  // Per statement: its instance → (row, column) of the element it touches in the block.
  std::map<std::string, isl::multi_aff> position;
  // Statements whose write goes to memory (the final one); the others write the block.
  std::set<std::string> stores;
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

// The blocked schedule when `scop` is a chain (possibly after appending the store statement
// to it); nullopt, with the reason in `log`, when it is not.
std::optional<RegisterBlocking> register_block(Scop& scop, const RegisterBlockOptions& options,
                                               std::vector<std::string>& log);

}  // namespace pz::poly
