#include "games/symmetry.h"

namespace pz::games {

const char* symmetry_name(Symmetry symmetry) {
  switch (symmetry) {
    case Symmetry::kIdentity: return "identity";
    case Symmetry::kRotate90: return "rotate90";
    case Symmetry::kRotate180: return "rotate180";
    case Symmetry::kRotate270: return "rotate270";
    case Symmetry::kMirror: return "mirror";
    case Symmetry::kFlip: return "flip";
    case Symmetry::kTranspose: return "transpose";
    case Symmetry::kAntiTranspose: return "antitranspose";
  }
  return "?";
}

bool symmetry_fits(Symmetry symmetry, int height, int width) {
  switch (symmetry) {
    case Symmetry::kIdentity:
    case Symmetry::kRotate180:
    case Symmetry::kMirror:
    case Symmetry::kFlip: return true;
    default: return height == width;
  }
}

Cell transform_cell(Symmetry symmetry, int height, int width, Cell c) {
  const int h1 = height - 1, w1 = width - 1;
  switch (symmetry) {
    case Symmetry::kIdentity: return c;
    case Symmetry::kRotate90: return {c.x, h1 - c.y};
    case Symmetry::kRotate180: return {h1 - c.y, w1 - c.x};
    case Symmetry::kRotate270: return {w1 - c.x, c.y};
    case Symmetry::kMirror: return {c.y, w1 - c.x};
    case Symmetry::kFlip: return {h1 - c.y, c.x};
    case Symmetry::kTranspose: return {c.x, c.y};
    case Symmetry::kAntiTranspose: return {w1 - c.x, h1 - c.y};
  }
  return c;
}

Symmetry inverse(Symmetry symmetry) {
  switch (symmetry) {
    case Symmetry::kRotate90: return Symmetry::kRotate270;
    case Symmetry::kRotate270: return Symmetry::kRotate90;
    default: return symmetry;  // the others are involutions
  }
}

}  // namespace pz::games
