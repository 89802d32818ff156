#include "games/symmetry.h"

#include <gtest/gtest.h>

#include <set>

namespace pz::games {
namespace {

const Symmetry kAll[] = {Symmetry::kIdentity, Symmetry::kRotate90, Symmetry::kRotate180, Symmetry::kRotate270,
                         Symmetry::kMirror,   Symmetry::kFlip,     Symmetry::kTranspose, Symmetry::kAntiTranspose};

TEST(Symmetry, EachIsAPermutationUndoneByItsInverse) {
  for (Symmetry s : kAll) {
    std::set<std::pair<int, int>> seen;
    for (int y = 0; y < 5; ++y) {
      for (int x = 0; x < 5; ++x) {
        Cell c = transform_cell(s, 5, 5, {y, x});
        ASSERT_TRUE(c.y >= 0 && c.y < 5 && c.x >= 0 && c.x < 5);
        seen.insert({c.y, c.x});
        Cell back = transform_cell(inverse(s), 5, 5, c);
        EXPECT_EQ(back.y, y);
        EXPECT_EQ(back.x, x);
      }
    }
    EXPECT_EQ(seen.size(), 25u) << symmetry_name(s);
  }
}

TEST(Symmetry, RotationsCompose) {
  // Two quarter turns make a half turn; four make the identity.
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) {
      Cell once = transform_cell(Symmetry::kRotate90, 4, 4, {y, x});
      Cell twice = transform_cell(Symmetry::kRotate90, 4, 4, once);
      Cell half = transform_cell(Symmetry::kRotate180, 4, 4, {y, x});
      EXPECT_EQ(twice.y, half.y);
      EXPECT_EQ(twice.x, half.x);
      Cell three = transform_cell(Symmetry::kRotate90, 4, 4, twice);
      Cell r270 = transform_cell(Symmetry::kRotate270, 4, 4, {y, x});
      EXPECT_EQ(three.y, r270.y);
      EXPECT_EQ(three.x, r270.x);
    }
  }
  // Clockwise: the top-left corner goes to the top-right.
  Cell c = transform_cell(Symmetry::kRotate90, 3, 3, {0, 0});
  EXPECT_EQ(c.y, 0);
  EXPECT_EQ(c.x, 2);
}

TEST(Symmetry, RectanglesKeepOnlyFourSymmetries) {
  int fits = 0;
  for (Symmetry s : kAll) fits += symmetry_fits(s, 6, 7);
  EXPECT_EQ(fits, 4);
  Cell c = transform_cell(Symmetry::kMirror, 6, 7, {1, 0});
  EXPECT_EQ(c.y, 1);
  EXPECT_EQ(c.x, 6);
}

}  // namespace
}  // namespace pz::games
