// Time tiling with wavefront parallelism (time_tiling.h): which scops it takes, that the
// skewed tiled schedule respects every dependence, and that only the tile loop inside the
// wavefront (never the wavefront loop itself) is marked parallel. Outputs of time-tiled
// kernels are compared with the originals in differential_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "polyhedral/analysis/dependences.h"
#include "polyhedral/analysis/legality.h"
#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/polyc.h"
#include "polyhedral/transform/parallel_marks.h"
#include "polyhedral/transform/time_tiling.h"
#include "tests/polyhedral/scop_of.h"

namespace pz::poly {
namespace {

using test_support::scop_of;

const char* kJacobi2d =
    "for (t = 0; t < 20; t++) {\n"
    "  for (i = 1; i < 39; i++) for (j = 1; j < 39; j++)\n"
    "    B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);\n"
    "  for (i = 1; i < 39; i++) for (j = 1; j < 39; j++)\n"
    "    A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);\n"
    "}";

bool logged(const std::vector<std::string>& log, const std::string& what) {
  for (const auto& l : log)
    if (l.find(what) != std::string::npos) return true;
  return false;
}

TEST(TimeTiling, Jacobi2dWavefrontRespectsEveryDependence) {
  IslContext ctx;
  Scop s = scop_of(ctx, kJacobi2d);
  Dependences d = compute_dependences(s);
  std::vector<std::string> log;
  TimeTileOptions o;
  o.sizes = {4, 8, 16};
  auto t = time_tile(ctx, s, d, ScheduleOptions{}, o, log);
  ASSERT_TRUE(t) << (log.empty() ? "" : log.back());
  EXPECT_FALSE(find_violation(*t, d.validity()));
  EXPECT_TRUE(logged(log, "tiled 4x8x16")) << log.back();
  EXPECT_TRUE(logged(log, "statements one after the other")) << log.back();
  // Outermost: the wavefront (T0 + T1), then the tile band (T1, T2), then the points.
  isl::schedule_node wave = t->get_root().child(0);
  ASSERT_EQ(isl_schedule_node_get_type(wave.get()), isl_schedule_node_band);
  EXPECT_EQ(isl_schedule_node_band_n_member(wave.get()), 1);
  EXPECT_FALSE(band_member_is_parallel(wave, 0, d.validity()));  // the wavefront loop is sequential
  isl::schedule_node tiles = wave.child(0);
  ASSERT_EQ(isl_schedule_node_get_type(tiles.get()), isl_schedule_node_band);
  EXPECT_EQ(isl_schedule_node_band_n_member(tiles.get()), 2);
  EXPECT_TRUE(band_member_is_parallel(tiles, 0, d.validity()));  // tiles of one wavefront are independent
  EXPECT_FALSE(band_member_is_parallel(tiles, 1, d.validity()));
}

TEST(TimeTiling, OnlyTheTileLoopInsideTheWavefrontIsMarkedParallel) {
  PolycOptions o;
  o.parallel = true;
  o.min_parallel_work = 0;
  o.cost_model = false;  // its arrays fit in L2, where the cost model would not time-tile
  o.time_tile.sizes = {4, 8, 16};
  PolycResult r = polyc(std::string("#pragma scop\n") + kJacobi2d + "\n#pragma endscop\n", o);
  ASSERT_EQ(r.scops.size(), 1u);
  EXPECT_TRUE(logged(r.scops[0].passes, "time tiling: legal")) << r.output;
  const std::string& c = r.output;
  EXPECT_EQ(c.find("omp parallel for\n  for (int c0"), std::string::npos) << c;
  size_t mark = c.find("#pragma omp parallel for");
  ASSERT_NE(mark, std::string::npos) << c;
  EXPECT_EQ(c.find("for (int c1", mark), c.find("for (", mark)) << c;  // on the T1 loop
  EXPECT_EQ(c.find("#pragma omp parallel for", mark + 1), std::string::npos) << c;  // and nothing else
}

TEST(TimeTiling, InnermostMemberUntiledByDefault) {
  IslContext ctx;
  Scop s = scop_of(ctx, kJacobi2d);
  Dependences d = compute_dependences(s);
  std::vector<std::string> log;
  auto t = time_tile(ctx, s, d, ScheduleOptions{}, TimeTileOptions{}, log);
  ASSERT_TRUE(t);
  // extents of the band (t, 2t+i, 2t+j) and (t, 1+2t+i, 1+2t+j): 20, 77, 77; the 20 time
  // steps in two tiles of 10, never one (a wavefront holds one tile per time tile); T1
  // tiles halved to 16 for >= 4 parallel tiles; the innermost member untiled (one of 77).
  EXPECT_TRUE(logged(log, "tiled 10x16x77")) << (log.empty() ? "" : log.back());
  EXPECT_FALSE(find_violation(*t, d.validity()));
}

TEST(TimeTiling, LeavesNonStencilsAlone) {
  IslContext ctx;
  struct Case {
    const char* body;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {"for (k = 0; k < 30; k++) for (i = k + 1; i < 30; i++) for (j = k + 1; j < 30; j++)\n"
       "  A[i][j] -= A[i][k] * A[k][j];",
       "negative or longer than"},
      {"for (t = 0; t < 20; t++) { for (i = 1; i < 99; i++) B[i] = A[i - 1] + A[i] + A[i + 1];\n"
       "  for (i = 1; i < 99; i++) A[i] = B[i - 1] + B[i] + B[i + 1]; }",
       "fewer than 3 members"},
      {"for (i = 0; i < 30; i++) for (j = 0; j < 30; j++) for (k = 0; k < 30; k++) C[i][j] += A[i][k] * B[k][j];",
       "carries no dependence"},
  };
  for (const auto& c : cases) {
    Scop s = scop_of(ctx, c.body);
    Dependences d = compute_dependences(s);
    std::vector<std::string> log;
    EXPECT_FALSE(time_tile(ctx, s, d, ScheduleOptions{}, TimeTileOptions{}, log)) << c.body;
    EXPECT_TRUE(logged(log, c.reason)) << c.body << "\n" << (log.empty() ? "" : log.back());
  }
}

TEST(TimeTiling, OffWithTilingOff) {
  PolycOptions o;
  o.tile.mode = TileOptions::Mode::kOff;
  PolycResult r = polyc(std::string("#pragma scop\n") + kJacobi2d + "\n#pragma endscop\n", o);
  EXPECT_FALSE(logged(r.scops[0].passes, "time tiling"));
}

}  // namespace
}  // namespace pz::poly
