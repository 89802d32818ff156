// The eight symmetries of a square (the dihedral group D4) acting on H×W grids.
//
// Games list the subset that leaves their rules and initial state unchanged: a rectangle
// keeps only the identity, the left-right mirror, the up-down flip and the half turn; Hex's
// rhombus keeps the half turn; Othello's starting square keeps the diagonal reflections.
#pragma once

#include <string>

namespace pz::games {

enum class Symmetry {
  kIdentity,
  kRotate90,       // clockwise quarter turn (square boards only)
  kRotate180,
  kRotate270,      // (square boards only)
  kMirror,         // left-right: x -> W-1-x
  kFlip,           // up-down: y -> H-1-y
  kTranspose,      // main diagonal: (y, x) -> (x, y) (square boards only)
  kAntiTranspose,  // anti-diagonal (square boards only)
};

inline constexpr int kNumSymmetries = 8;

const char* symmetry_name(Symmetry symmetry);

// True when the symmetry maps an H×W grid onto itself.
bool symmetry_fits(Symmetry symmetry, int height, int width);

// Where cell (y, x) of an H×W grid goes.
struct Cell {
  int y, x;
};
Cell transform_cell(Symmetry symmetry, int height, int width, Cell cell);

// The symmetry that undoes this one.
Symmetry inverse(Symmetry symmetry);

}  // namespace pz::games
