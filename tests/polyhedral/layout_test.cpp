// Data layout selection (layout.h): the orders and padding it chooses for programs written
// against logical arrays, the errors it gives, and that applying a layout rewrites bodies,
// relations and element offsets consistently.
#include <gtest/gtest.h>

#include <stdexcept>

#include "polyhedral/frontend/builder.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/transform/layout.h"

namespace pz::poly {
namespace {

// A zero-padded 3×3 convolution over logical NCHW tensors and torch's [out][in][kh][kw]
// weights, as a network layer is described before its layout is chosen.
Scop conv_scop(isl::ctx ctx, int h, int w, int ci, int co) {
  const std::string H = std::to_string(h), W = std::to_string(w), CI = std::to_string(ci), CO = std::to_string(co);
  ScopBuilder b(ctx);
  b.param("N");
  b.for_("n", "0", "N").for_("y", "0", H).for_("x", "0", W).for_("o", "0", CO);
  b.stmt("Y[n][o][y][x] = B[o]");
  b.for_("p", "0", "3").for_("q", "0", "3").for_("i", "0", CI);
  b.stmt("Y[n][o][y][x] += X[n][i][y + p - 1][x + q - 1] * K[o][i][p][q]").end().end().end();
  b.end().end().end().end();
  return b.build();
}

std::map<std::string, ArrayShape> conv_shapes(int h, int w, int ci, int co) {
  return {{"X", {{-1, ci, h, w}, {"n", "c", "h", "w"}}},
          {"Y", {{-1, co, h, w}, {"n", "c", "h", "w"}}},
          {"K", {{co, ci, 3, 3}, {"out", "in", "kh", "kw"}}},
          {"B", {{co}, {"out"}}}};
}

TEST(LayoutTest, ConvolutionGetsChannelLastActivationsAndABorder) {
  IslContext ctx;
  const Scop conv = conv_scop(ctx.ctx(), 6, 7, 24, 32);
  const auto layouts = choose_layouts({&conv}, conv_shapes(6, 7, 24, 32));
  const ArrayLayout& x = layouts.at("X");
  EXPECT_EQ(x.order, (std::vector<int>{0, 2, 3, 1}));
  EXPECT_EQ(x.before, (std::vector<long long>{0, 0, 1, 1}));
  EXPECT_EQ(x.after, (std::vector<long long>{0, 0, 1, 1}));
  EXPECT_EQ(x.c_row_dims(), "[8][9][24]");
  EXPECT_EQ(x.describe(), "[n][c][h][w] 24x6x7 stored as [n][h+2][w+2][c]");
  const ArrayLayout& y = layouts.at("Y");
  EXPECT_EQ(y.order, (std::vector<int>{0, 2, 3, 1}));
  EXPECT_EQ(y.before, (std::vector<long long>{0, 0, 0, 0})) << "Y is only read inside its box";
  EXPECT_EQ(layouts.at("K").order, (std::vector<int>{2, 3, 1, 0})) << layouts.at("K").describe();
  EXPECT_NE(layouts.at("K").reason.find("vector loop o"), std::string::npos) << layouts.at("K").reason;
  EXPECT_EQ(layouts.at("K").elements(), 32u * 24u * 9u);
}

TEST(LayoutTest, OffsetsFollowTheStorageOrderAndPadding) {
  IslContext ctx;
  const Scop conv = conv_scop(ctx.ctx(), 6, 7, 24, 32);
  const auto layouts = choose_layouts({&conv}, conv_shapes(6, 7, 24, 32));
  const ArrayLayout& x = layouts.at("X");
  EXPECT_EQ(x.row_elements(), 8u * 9u * 24u);
  // Logical (n, c, h, w) = (1, 5, 2, 3) is stored at [1][3][4][5].
  EXPECT_EQ(x.offset({1, 5, 2, 3}), ((1u * 8 + 3) * 9 + 4) * 24 + 5);
  // A border element (h = −1) is addressable.
  EXPECT_EQ(x.offset({0, 0, -1, -1}), 0u);
  EXPECT_EQ(layouts.at("K").offset({1, 2, 0, 1}), ((0u * 3 + 1) * 24 + 2) * 32 + 1);
}

TEST(LayoutTest, ApplyingRewritesBodiesAndRelations) {
  IslContext ctx;
  Scop conv = conv_scop(ctx.ctx(), 6, 7, 24, 32);
  const auto layouts = choose_layouts({&conv}, conv_shapes(6, 7, 24, 32));
  apply_layouts(conv, layouts);
  const Statement& update = conv.statements.at(1);
  EXPECT_EQ(update.to_c(), "Y[n][y][x][o] += X[n][y + p - 1 + 1][x + q - 1 + 1][i] * K[p][q][i][o]");
  for (const Access& a : update.accesses) {
    if (a.array != "X") continue;
    // Every element read lies in the padded storage box [0, 8) x [0, 9) x [0, 24).
    isl::set box(ctx.ctx(), "[N] -> { X[n, a, b, c] : 0 <= a < 8 and 0 <= b < 9 and 0 <= c < 24 }");
    EXPECT_TRUE(a.relation.range().is_subset(box));
    EXPECT_TRUE(a.relation.range().dim_min_val(1).is_zero());
  }
}

TEST(LayoutTest, MatrixVectorStoresTheMatrixTransposed) {
  // y[i] += A[i][j] x[j]: i is the only loop that indexes the written element, so it is
  // the vector loop, and A is stored with i innermost.
  IslContext ctx;
  ScopBuilder b(ctx.ctx());
  b.for_("i", "0", "64").stmt("y[i] = 0").for_("j", "0", "48").stmt("y[i] += A[i][j] * x[j]").end().end();
  Scop mv = b.build();
  const auto layouts =
      choose_layouts({&mv}, {{"A", {{64, 48}, {"i", "j"}}}, {"x", {{48}}}, {"y", {{64}}}});
  EXPECT_EQ(layouts.at("A").order, (std::vector<int>{1, 0}));
  apply_layouts(mv, layouts);
  EXPECT_EQ(mv.statements.at(1).to_c(), "y[i] += A[j][i] * x[j]");
}

TEST(LayoutTest, FixedArraysKeepTheirLayoutAndTheHeaviestStatementDecides) {
  // The input is the caller's (fixed NCHW); the convolution's heavy update decides the
  // layout of the packed copy it reads, whatever order the light copy prefers.
  IslContext ctx;
  ScopBuilder pack(ctx.ctx());
  pack.param("N").for_("n", "0", "N").for_("c", "0", "24").for_("y", "0", "6").for_("x", "0", "7");
  pack.stmt("X[n][c][y][x] = In[n][c][y][x]").end().end().end().end();
  const Scop copy = pack.build();
  const Scop conv = conv_scop(ctx.ctx(), 6, 7, 24, 32);
  auto shapes = conv_shapes(6, 7, 24, 32);
  shapes["In"] = {{-1, 24, 6, 7}, {"n", "c", "h", "w"}, true};
  const auto layouts = choose_layouts({&copy, &conv}, shapes);
  EXPECT_EQ(layouts.at("In").order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(layouts.at("In").reason, "fixed: the caller's buffer");
  EXPECT_EQ(layouts.at("X").order, (std::vector<int>{0, 2, 3, 1}));
  EXPECT_NE(layouts.at("X").reason.find("program 1"), std::string::npos) << layouts.at("X").reason;
}

TEST(LayoutTest, AccessOutsideAFixedArrayIsAnError) {
  IslContext ctx;
  const Scop conv = conv_scop(ctx.ctx(), 6, 7, 24, 32);
  auto shapes = conv_shapes(6, 7, 24, 32);
  shapes["X"].fixed = true;
  try {
    choose_layouts({&conv}, shapes);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("outside X"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("along h"), std::string::npos) << e.what();
  }
}

TEST(LayoutTest, MalformedShapesAreErrors) {
  IslContext ctx;
  const Scop conv = conv_scop(ctx.ctx(), 6, 7, 24, 32);
  auto shapes = conv_shapes(6, 7, 24, 32);
  shapes["K"].extent = {32, -1, 3, 3};
  EXPECT_THROW(choose_layouts({&conv}, shapes), std::invalid_argument);
  shapes = conv_shapes(6, 7, 24, 32);
  shapes["K"].extent = {32, 24, 9};
  EXPECT_THROW(choose_layouts({&conv}, shapes), std::invalid_argument);
}

}  // namespace
}  // namespace pz::poly
