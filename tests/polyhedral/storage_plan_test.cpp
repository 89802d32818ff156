// Storage planning (storage_plan.h): live ranges read off the programs' accesses, regions
// shared only between dead arrays of the same storage layout, and clear errors.
#include <gtest/gtest.h>

#include <stdexcept>

#include "polyhedral/frontend/builder.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/transform/storage_plan.h"

namespace pz::poly {
namespace {

// dst[n][i] = f(src[n][i]) (+ extra[n][i]) over `size` elements per row.
Scop elementwise(isl::ctx ctx, const std::string& dst, const std::string& src, int size, const std::string& extra = "") {
  ScopBuilder b(ctx);
  b.param("N");
  b.for_("n", "0", "N").for_("i", "0", std::to_string(size));
  b.stmt(dst + "[n][i] = " + src + "[n][i] * 2.0f" + (extra.empty() ? "" : " + " + extra + "[n][i]")).end().end();
  return b.build();
}

std::map<std::string, ArrayLayout> row_layouts(const std::vector<const Scop*>& programs,
                                               const std::map<std::string, int>& sizes) {
  std::map<std::string, ArrayShape> shapes;
  for (const auto& [name, size] : sizes) shapes[name] = {{-1, size}};
  return choose_layouts(programs, shapes);
}

TEST(StoragePlanTest, DeadArraysOfTheSameLayoutShareARegion) {
  // in -> a -> b -> c -> out, and a residual: c also reads a.
  IslContext ctx;
  const Scop p0 = elementwise(ctx.ctx(), "a", "in", 32), p1 = elementwise(ctx.ctx(), "b", "a", 32),
             p2 = elementwise(ctx.ctx(), "c", "b", 32, "a"), p3 = elementwise(ctx.ctx(), "d", "c", 32),
             p4 = elementwise(ctx.ctx(), "out", "d", 32);
  const std::vector<const Scop*> programs{&p0, &p1, &p2, &p3, &p4};
  const auto layouts = row_layouts(programs, {{"in", 32}, {"a", 32}, {"b", 32}, {"c", 32}, {"d", 32}, {"out", 32}});
  const StoragePlan plan = plan_storage(programs, layouts, {"a", "b", "c", "d"}, {.parameter_rows = 4, .alignment = 16});
  EXPECT_EQ(plan.at("a").first, 0);
  EXPECT_EQ(plan.at("a").last, 2) << "the residual keeps a alive until program 2";
  EXPECT_EQ(plan.at("b").elements, 4u * 32u);
  // b dies at 2, so d (written at 3) takes b's region; a dies at 2 too, but only one is needed.
  EXPECT_NE(plan.at("a").offset, plan.at("b").offset);
  EXPECT_NE(plan.at("c").offset, plan.at("a").offset);
  EXPECT_NE(plan.at("c").offset, plan.at("b").offset);
  EXPECT_TRUE(plan.at("d").offset == plan.at("a").offset || plan.at("d").offset == plan.at("b").offset);
  EXPECT_EQ(plan.elements, 3u * 128u);
  EXPECT_EQ(plan.unshared_elements, 4u * 128u);
}

TEST(StoragePlanTest, PaddedArraysShareOnlyWithTheirOwnLayout) {
  // The arena serves every run of the sequence: a region that holds a padded array must
  // never hold another layout, or the next run would read the other array's data as border.
  IslContext ctx;
  ScopBuilder shifted(ctx.ctx());  // reads a one past its box: a gets one element of padding
  shifted.param("N").for_("n", "0", "N").for_("i", "0", "32").stmt("b[n][i] = a[n][i + 1]").end().end();
  const Scop p0 = elementwise(ctx.ctx(), "a", "in", 32), p1 = shifted.build(), p2 = elementwise(ctx.ctx(), "c", "b", 32),
             p3 = elementwise(ctx.ctx(), "d", "c", 16), p4 = elementwise(ctx.ctx(), "out", "d", 16);
  const std::vector<const Scop*> programs{&p0, &p1, &p2, &p3, &p4};
  const auto layouts = row_layouts(programs, {{"in", 32}, {"a", 32}, {"b", 32}, {"c", 32}, {"d", 16}, {"out", 16}});
  ASSERT_EQ(layouts.at("a").after, (std::vector<long long>{0, 1}));
  const StoragePlan plan = plan_storage(programs, layouts, {"a", "b", "c", "d"}, {.parameter_rows = 1, .alignment = 16});
  EXPECT_EQ(plan.at("a").elements, 33u);
  EXPECT_NE(plan.at("c").offset, plan.at("a").offset) << "a is dead, but its region keeps a's border";
  EXPECT_EQ(plan.at("d").offset, plan.at("b").offset) << "without padding: any dead unpadded region that holds it";
  EXPECT_EQ(plan.elements, 48u + 32u + 32u);
}

TEST(StoragePlanTest, UnknownOrUnwrittenTemporariesAreErrors) {
  IslContext ctx;
  const Scop p0 = elementwise(ctx.ctx(), "a", "in", 8);
  const std::vector<const Scop*> programs{&p0};
  const auto layouts = row_layouts(programs, {{"in", 8}, {"a", 8}});
  EXPECT_THROW(plan_storage(programs, layouts, {"in"}), std::invalid_argument);   // only read
  EXPECT_THROW(plan_storage(programs, layouts, {"zz"}), std::invalid_argument);   // no layout
  EXPECT_NO_THROW(plan_storage(programs, layouts, {"a"}));
}

}  // namespace
}  // namespace pz::poly
