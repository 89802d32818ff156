// Frontend 1: the scop regions of an ordinary C file, between `#pragma scop` and
// `#pragma endscop`, as Pluto's polycc and PPCG read them.
//
// The subset: `for` loops with affine bounds (min/max, floord/ceild and / or % by positive
// constants; step an integer constant; increasing or decreasing), `if` with affine
// conditions (&&, ||, !, comparisons), assignments and compound assignments to scalars and
// to arrays with affine subscripts, float/double/int arithmetic, casts and calls to (pure)
// math functions inside expressions. Loop iterators are assumed dead after the region.
//
// Outside the regions the file is not interpreted, except for two harmless look-ups:
// `#define NAME <integer>` before a region gives the parameter NAME a concrete value (the
// compiler sees the same constant), and declarations of type keywords give arrays their
// element types (any other type stays unknown: builder.h's LowerOptions::element_types).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "polyhedral/frontend/builder.h"
#include "polyhedral/ir/loop_tree.h"

namespace pz::poly {

struct ScopRegion {
  size_t begin = 0, end = 0;  // byte range: start of `#pragma scop` .. end of `#pragma endscop` line
  size_t body_begin = 0, body_end = 0;  // the lines between the two pragma lines
  // Start of the line where the top-level declaration holding the region (its function)
  // begins: after the last `;`, `}` or preprocessor line outside braces before it.
  size_t declaration_begin = 0;
  int line = 0;               // of `#pragma scop`
  std::string indent;         // whitespace before `#pragma scop`
  std::unique_ptr<LoopNode> tree;
  LowerOptions options;
};

// The largest input read: its tokens take up to ~30 bytes per input byte while parsing.
inline constexpr size_t kMaxSourceBytes = size_t{32} << 20;

// Finds and parses every region; throws FrontendError (line:column: message) on anything
// outside the subset, when no region exists and for an input over kMaxSourceBytes.
std::vector<ScopRegion> parse_c_regions(const std::string& source);

// The regions' places only (no parsing, `tree` null): for a file whose regions are parsed
// from its preprocessed text (preprocess.h) but replaced in the file as written.
std::vector<ScopRegion> find_c_regions(const std::string& source);

}  // namespace pz::poly
