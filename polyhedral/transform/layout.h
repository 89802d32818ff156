// Data layout selection: the storage order and padding of the arrays that a sequence of
// programs shares (the layers of a network, each one scop), chosen from how the programs
// access them and applied to every program before it is scheduled.
//
// Programs are written against logical arrays, in the shape a reader expects (a tensor as
// [n][c][h][w], a convolution's weights as [out][in][kh][kw]), and may read outside an
// array's declared box: a zero-padded convolution reads row −1. Such elements are never
// written; whoever allocates the storage keeps them zero (nn/ zeroes its arena once).
//
// For every array that is not fixed, the pass chooses
//  - the storage order of its dimensions, by a vote of its accesses weighted by how many
//    times each access runs (the statement's instances). An access prefers the order that
//    puts first the dimensions indexed by no loop, then each dimension by the depth of the
//    innermost loop indexing it, and last the dimension indexed by its statement's vector
//    loop: vector loads and stores become contiguous and the other loops walk memory in
//    order (the layout selection of Kennedy & Kremer, "Automatic data layout for distributed-
//    memory machines", TOPLAS 1998, with a locality cost; the channel-last tensor formats of
//    oneDNN and XNNPACK are what it finds for convolutions);
//  - the vector loop of a statement: among the loops that index the element it writes, the
//    one whose extent fills the largest share of the vector lanes, the deeper on a tie; a loop
//    of unknown extent (a parameter) only when no other indexes the element;
//  - its padding: storage covers the declared box and every element an access touches (the
//    box hull of the accesses, exact in isl), so a padded convolution reads a zero border
//    instead of testing bounds.
// The order of dimensions with a parameter extent (the batch) is kept outermost, so that
// the storage is a C array of rows of constant size. Fixed arrays (a caller's input and
// output buffers) keep their declared order and box; an access outside a fixed array's box
// is an error.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "polyhedral/ir/scop.h"

namespace pz::poly {

// An array's declared (logical) shape.
struct ArrayShape {
  std::vector<long long> extent;  // per dimension; -1: a parameter (dimension 0 only)
  std::vector<std::string> dims;  // dimension names for reports ("n", "c", "h", "w"); optional
  bool fixed = false;             // the caller's buffer: declared order and box kept
};

struct ArrayLayout {
  std::string array;
  ArrayShape shape;
  std::vector<int> order;                  // storage dimension k holds logical dimension order[k]
  std::vector<long long> before, after;    // padding per logical dimension
  std::string reason;                      // why this order, in words

  long long storage_extent(int logical_dim) const;  // -1 for a parameter
  // The storage extents of every storage dimension but the first: "[8][9][32]" (a C array
  // of rows; the first dimension is the pointer's).
  std::string c_row_dims() const;
  std::size_t row_elements() const;  // product of the storage extents but the first
  std::size_t elements() const;      // all of them; the first extent must be constant
  // The storage offset (in elements) of a logical element; indices may lie in the padding.
  std::size_t offset(const std::vector<long long>& logical) const;
  // "[n][c][h][w] 32x6x7 stored as [n][h+2][w+2][c]"
  std::string describe() const;
  bool same_storage(const ArrayLayout& other) const;  // identical extents, order and padding
};

struct LayoutOptions {
  int vector_lanes = 16;  // elements of one vector register
};

// One layout per array of `shapes` that the programs access; arrays not in `shapes` are left
// alone. Throws std::invalid_argument when an access leaves a fixed array's box or a shape
// is malformed (a parameter extent other than first, a rank that does not match the accesses).
std::map<std::string, ArrayLayout> choose_layouts(const std::vector<const Scop*>& programs,
                                                  const std::map<std::string, ArrayShape>& shapes,
                                                  const LayoutOptions& options = {});

// Rewrites every access to an array of `layouts` into storage subscripts: statement bodies
// and access relations (A[c][h][w] → A[h + 1][w + 1][c]).
void apply_layouts(Scop& scop, const std::map<std::string, ArrayLayout>& layouts);

}  // namespace pz::poly
