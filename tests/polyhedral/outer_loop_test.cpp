// Top-level parts and peeled outer loops (outer_loop.h): which statements form each part of
// the source schedule, and the body of the loop around a part, with its iterator a parameter.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "polyhedral/frontend/builder.h"
#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/transform/outer_loop.h"
#include "tests/polyhedral/scop_of.h"

#include <isl/union_map.h>

#include <algorithm>

namespace pz::poly {
namespace {

using test_support::scop_of;

const char* kTwoParts =
    "for (r = 1; r < n; r++) {\n"
    "  for (i = 0; i < m; i++) X[i] = A[r][i] + A[r - 1][i];\n"
    "  Y[r] = X[0];\n"
    "}\n"
    "for (j = 0; j < m; j++) Z[j] = X[j];\n";

TEST(OuterLoop, TopLevelPartsFollowTheSourceSequence) {
  IslContext ctx;
  const Scop scop = scop_of(ctx, kTwoParts);
  const std::vector<std::vector<std::string>> parts = top_level_parts(scop);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0], (std::vector<std::string>{"S0", "S1"}));
  EXPECT_EQ(parts[1], (std::vector<std::string>{"S2"}));
  const Scop one = scop_of(ctx, "for (i = 0; i < m; i++) X[i] = 0;");
  EXPECT_EQ(top_level_parts(one), (std::vector<std::vector<std::string>>{{"S0"}}));
}

TEST(OuterLoop, ThePeeledBodyHasTheIteratorAsAParameter) {
  IslContext ctx;
  const Scop scop = scop_of(ctx, kTwoParts);
  const std::optional<PeeledLoop> peeled = peel_outer_loop(restrict_scop(scop, {"S0", "S1"}));
  ASSERT_TRUE(peeled);
  EXPECT_EQ(peeled->iterator, "r");
  EXPECT_EQ(peeled->lower, "(1)");
  EXPECT_EQ(peeled->upper, "(n - 1)");
  const Scop& body = peeled->body;
  EXPECT_NE(std::find(body.params.begin(), body.params.end(), "r"), body.params.end());
  const Statement& inner = *body.statement("S0");
  EXPECT_EQ(inner.iterators, (std::vector<std::string>{"i"}));
  EXPECT_TRUE(inner.domain.is_equal(isl::set(ctx.ctx(), "[n, m, r] -> { S0[i] : 1 <= r < n and 0 <= i < m }")));
  EXPECT_TRUE(inner.accesses.at(1).relation.is_equal(
      isl::map(ctx.ctx(), "[n, m, r] -> { S0[i] -> A[r, i] : 1 <= r < n and 0 <= i < m }")));
  EXPECT_TRUE(body.statement("S1")->iterators.empty());
  // The body's schedule keeps the source order: S0's loop, then S1.
  const isl::union_map order = body.schedule.get_map();
  const isl::union_map later = isl::manage(isl_union_map_lex_lt_union_map(order.copy(), order.copy()));
  EXPECT_FALSE(later.intersect_domain(isl::union_set(body.statement("S0")->domain))
                   .intersect_range(isl::union_set(body.statement("S1")->domain))
                   .is_empty());
}

TEST(OuterLoop, NothingIsPeeledWithoutOneLoopAroundEveryStatement) {
  IslContext ctx;
  EXPECT_FALSE(peel_outer_loop(scop_of(ctx, kTwoParts)));
  // A decreasing loop's band runs -r: not the iterator itself.
  EXPECT_FALSE(peel_outer_loop(scop_of(ctx, "for (r = n - 1; r >= 0; r--) for (i = 0; i < m; i++) X[r][i] = 0;")));
}

}  // namespace
}  // namespace pz::poly
