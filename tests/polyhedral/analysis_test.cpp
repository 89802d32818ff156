// Dependences, legality checks and the scheduling passes on small hand-checked programs.
#include <gtest/gtest.h>


#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "polyhedral/analysis/cache_info.h"
#include "polyhedral/analysis/dependences.h"
#include "polyhedral/analysis/footprint.h"
#include "polyhedral/analysis/legality.h"
#include "polyhedral/frontend/builder.h"
#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/polyc.h"
#include "polyhedral/transform/loop_order.h"
#include "polyhedral/transform/parallel_marks.h"
#include "polyhedral/transform/scheduler.h"
#include "polyhedral/transform/tiling.h"
#include "tests/polyhedral/scop_of.h"

namespace pz::poly {
namespace {

using test_support::scop_of;

isl::union_map umap(IslContext& ctx, const char* text) { return isl::union_map(ctx.ctx(), text); }

TEST(Dependences, ValueBasedFlowLiveInLiveOut) {
  IslContext ctx;
  Scop s = scop_of(ctx, "for (i = 0; i < 10; i++) a[i] = b[i];\n"
                        "for (i = 0; i < 10; i++) a[i] = a[i] + 1;\n"
                        "for (i = 1; i < 10; i++) c[i] = a[i - 1];");
  Dependences d = compute_dependences(s);
  // S2 reads the value S1 wrote, not S0's (value-based: S1 overwrote it).
  EXPECT_TRUE(d.raw.is_equal(umap(ctx, "{ S0[i] -> S1[i] : 0 <= i < 10; S1[i] -> S2[i + 1] : 0 <= i < 9 }")))
      << isl_str(d.raw);
  EXPECT_TRUE(d.waw.is_equal(umap(ctx, "{ S0[i] -> S1[i] : 0 <= i < 10 }"))) << isl_str(d.waw);
  EXPECT_TRUE(d.war.is_empty()) << isl_str(d.war);
  EXPECT_TRUE(d.live_in.is_equal(umap(ctx, "{ S0[i] -> b[i] : 0 <= i < 10 }"))) << isl_str(d.live_in);
  EXPECT_TRUE(d.live_out.is_equal(umap(ctx, "{ S1[i] -> a[i] : 0 <= i < 10; S2[i] -> c[i] : 1 <= i < 10 }")))
      << isl_str(d.live_out);
}

TEST(Dependences, WriteAfterRead) {
  IslContext ctx;
  Scop s = scop_of(ctx, "for (i = 0; i < 9; i++) a[i] = a[i + 1];");
  Dependences d = compute_dependences(s);
  EXPECT_TRUE(d.war.is_equal(umap(ctx, "{ S0[i] -> S0[i + 1] : 0 <= i < 8 }"))) << isl_str(d.war);
  EXPECT_TRUE(d.raw.is_empty());
}

TEST(Legality, ReversedLoopViolatesAndParallelism) {
  IslContext ctx;
  Scop s = scop_of(ctx, "for (i = 1; i < 10; i++) for (j = 0; j < 10; j++) a[i][j] = a[i - 1][j] * 2;");
  Dependences d = compute_dependences(s);
  EXPECT_FALSE(find_violation(s.schedule, d.validity()));
  isl::schedule reversed = isl::manage(isl_schedule_insert_partial_schedule(
      isl_schedule_from_domain(s.domain().release()),
      isl_multi_union_pw_aff_from_union_map(isl_union_map_read_from_str(ctx.raw(), "{ S0[i, j] -> [-i, j] }"))));
  auto bad = find_violation(reversed, d.validity());
  ASSERT_TRUE(bad.has_value());
  EXPECT_NE(bad->find("S0"), std::string::npos);
  // i carries the dependence, j does not.
  isl::schedule_node outer = s.schedule.get_root().child(0);
  EXPECT_FALSE(band_member_is_parallel(outer, 0, d.validity()));
  EXPECT_TRUE(band_member_is_parallel(outer.child(0), 0, d.validity()));
}

// One 3-member band (i, j, k) over a GEMM statement, built by hand.
isl::schedule gemm_band(IslContext& ctx, const Scop& s) {
  return isl::manage(isl_schedule_insert_partial_schedule(
      isl_schedule_from_domain(s.domain().release()),
      isl_multi_union_pw_aff_from_union_map(isl_union_map_read_from_str(ctx.raw(), "[N] -> { S0[i, j, k] -> [i, j, k] }"))));
}

TEST(Footprint, GemmTileByHand) {
  IslContext ctx;
  ScopBuilder b(ctx.ctx());
  b.param("N", 64).array("C", "float");
  b.for_("i", "0", "N").for_("j", "0", "N").for_("k", "0", "N").stmt("C[i][j] += A[i][k] * B[k][j]").end().end().end();
  Scop s = b.build();
  isl::schedule sched = gemm_band(ctx, s);
  auto fp = tile_footprint(s, sched.get_root().child(0), {32, 16, 8});
  ASSERT_TRUE(fp.has_value());
  // C: 32x16 floats, A: 32x8 doubles, B: 8x16 doubles
  EXPECT_EQ(fp->elements.at("C"), 512);
  EXPECT_EQ(fp->elements.at("A"), 256);
  EXPECT_EQ(fp->elements.at("B"), 128);
  EXPECT_EQ(fp->bytes, 512 * 4 + 256 * 8 + 128 * 8);
}

TEST(Tiling, L1TilesInsideL2TilesWhenAnL2TileOverflowsL1) {
  IslContext ctx;
  ScopBuilder b(ctx.ctx());
  b.param("N", 512);
  b.for_("i", "0", "N").for_("k", "0", "N").for_("j", "0", "N").stmt("C[i][j] += A[i][k] * B[k][j]").end().end().end();
  Scop s = b.build();
  isl::schedule sched = gemm_band(ctx, s);
  sched = isl::manage(isl_schedule_node_get_schedule(
      isl_schedule_node_band_set_permutable(isl_schedule_node_child(isl_schedule_get_root(sched.get()), 0), 1)));
  TileOptions o;
  o.cache.l1 = 32 * 1024;
  o.cache.l2 = 512 * 1024;
  std::vector<std::string> log;
  std::vector<TiledBand> tiled;
  isl::schedule t = tile_bands(sched, s, o, log, &tiled);
  ASSERT_EQ(tiled.size(), 2u) << ::testing::PrintToString(log);
  const auto& outer = tiled[0].sizes;
  const auto& inner = tiled[1].sizes;
  auto outer_fp = tile_footprint(s, tiled[0].band, outer);
  auto inner_fp = tile_footprint(s, tiled[1].band, inner);
  ASSERT_TRUE(outer_fp && inner_fp);
  EXPECT_LE(outer_fp->bytes, o.cache.l2 / 2);
  EXPECT_GT(outer_fp->bytes, o.cache.l1 / 2);  // else one level would do
  EXPECT_LE(inner_fp->bytes, o.cache.l1 / 2);
  for (size_t m = 0; m < 3; ++m) {
    EXPECT_EQ(outer[m] % inner[m], 0) << m;  // inner tiles never straddle an outer edge
  }
  EXPECT_GE(inner[2], 32);  // the stride-1 strip stays long
  // Outer tile loops, inner tile loops, point loops: three nested 3-member bands.
  isl::schedule_node n = t.get_root().child(0);
  for (int level = 0; level < 3; ++level) {
    ASSERT_EQ(isl_schedule_node_get_type(n.get()), isl_schedule_node_band) << level;
    EXPECT_EQ(isl_schedule_node_band_n_member(n.get()), 3) << level;
    n = n.child(0);
  }
  EXPECT_FALSE(find_violation(t, compute_dependences(s).validity()));

  // An L2 tile that fits L1 already gets no second level; given inner sizes always do.
  o.cache.l1 = 4 * 1024 * 1024;
  tiled.clear();
  tile_bands(sched, s, o, log, &tiled);
  EXPECT_EQ(tiled.size(), 1u);
  TileOptions fixed;
  fixed.mode = TileOptions::Mode::kFixed;
  fixed.sizes = {64, 32, 128};
  fixed.inner_sizes = {8, 100, 16};  // clamped to the outer size: 32
  tiled.clear();
  tile_bands(sched, s, fixed, log, &tiled);
  ASSERT_EQ(tiled.size(), 2u);
  EXPECT_EQ(tiled[1].sizes, (std::vector<long>{8, 32, 16}));
}

TEST(LoopOrder, GemmPutsJInnermost) {
  IslContext ctx;
  Scop s = scop_of(ctx, "for (i = 0; i < N; i++) for (j = 0; j < N; j++) for (k = 0; k < N; k++)\n"
                        "  C[i][j] += A[i][k] * B[k][j];");
  isl::schedule sched = isl::manage(isl_schedule_insert_partial_schedule(
      isl_schedule_from_domain(s.domain().release()),
      isl_multi_union_pw_aff_from_union_map(isl_union_map_read_from_str(ctx.raw(), "[N] -> { S0[i, j, k] -> [i, j, k] }"))));
  sched = isl::manage(isl_schedule_node_get_schedule(
      isl_schedule_node_band_set_permutable(isl_schedule_node_child(isl_schedule_get_root(sched.get()), 0), 1)));
  isl::schedule_node band = sched.get_root().child(0);
  const isl::map& b_access = s.statements[0].accesses[3].relation;  // B[k][j]
  EXPECT_EQ(access_stride(band, 1, b_access), AccessStride::kUnit);
  EXPECT_EQ(access_stride(band, 2, b_access), AccessStride::kOther);
  EXPECT_EQ(access_stride(band, 0, b_access), AccessStride::kInvariant);
  std::vector<std::string> log;
  isl::schedule ordered = order_loops_for_locality(sched, s, log);
  EXPECT_TRUE(ordered.get_map().is_equal(umap(ctx, "[N] -> { S0[i, j, k] -> [i, k, j] }")))
      << isl_str(ordered.get_map());
  Dependences d = compute_dependences(s);
  EXPECT_FALSE(find_violation(ordered, d.validity()));
}

namespace {

// The source order of a two-loop nest as one permutable band.
isl::schedule identity_band(IslContext& ctx, const Scop& s, const char* schedule) {
  isl::schedule sched = isl::manage(isl_schedule_insert_partial_schedule(
      isl_schedule_from_domain(s.domain().release()),
      isl_multi_union_pw_aff_from_union_map(isl_union_map_read_from_str(ctx.raw(), schedule))));
  return isl::manage(isl_schedule_node_get_schedule(
      isl_schedule_node_band_set_permutable(isl_schedule_node_child(isl_schedule_get_root(sched.get()), 0), 1)));
}

}  // namespace

TEST(LoopOrder, TransposeStoresWholeLines) {
  IslContext ctx;
  Scop s = scop_of(ctx, "for (i = 0; i < N; i++) for (j = 0; j < N; j++)\n  wt[j][i] = w[i][j];");
  isl::schedule sched = identity_band(ctx, s, "[N] -> { S0[i, j] -> [i, j] }");
  // Both orders score the same (one stride-1 access, one that jumps rows); the store's
  // stride-1 loop goes innermost.
  std::vector<std::string> log;
  isl::schedule ordered = order_loops_for_locality(sched, s, log);
  EXPECT_TRUE(ordered.get_map().is_equal(umap(ctx, "[N] -> { S0[i, j] -> [j, i] }"))) << isl_str(ordered.get_map());
}

TEST(Tiling, TransposeTiledWhenASweepOverflowsL1) {
  IslContext ctx;
  TileOptions o;
  o.cache.l1 = 48 * 1024;
  o.cache.l2 = 1024 * 1024;
  auto tiles = [&](const std::string& n, std::vector<std::string>& log) {
    Scop s = scop_of(ctx, "for (i = 0; i < " + n + "; i++) for (j = 0; j < " + n + "; j++)\n  wt[j][i] = w[i][j];");
    isl::schedule sched = identity_band(ctx, s, "[N] -> { S0[i, j] -> [i, j] }");
    EXPECT_EQ(crossed_arrays(sched.get_root().child(0), s), 1);
    std::vector<TiledBand> tiled;
    isl::schedule t = tile_bands(sched, s, o, log, &tiled);
    EXPECT_FALSE(find_violation(t, compute_dependences(s).validity()));
    return tiled;
  };
  std::vector<std::string> log;
  // 3328 rows: a sweep of j touches 3328 lines of wt, 208 KiB.
  auto big = tiles("3328", log);
  ASSERT_EQ(big.size(), 1u) << ::testing::PrintToString(log);
  EXPECT_EQ(big[0].sizes, (std::vector<long>{64, 16}));
  // A parameter's extent: no constant bounds the sweep.
  EXPECT_EQ(tiles("N", log).size(), 1u) << ::testing::PrintToString(log);
  // 64 rows: 4 KiB of lines a sweep stay in L1, and a plain element-wise sweep reuses nothing.
  EXPECT_TRUE(tiles("64", log).empty()) << ::testing::PrintToString(log);
  Scop copy = scop_of(ctx, "for (i = 0; i < 3328; i++) for (j = 0; j < 3328; j++)\n  b[i][j] = a[i][j];");
  isl::schedule plain = identity_band(ctx, copy, "{ S0[i, j] -> [i, j] }");
  EXPECT_EQ(crossed_arrays(plain.get_root().child(0), copy), 0);
  std::vector<TiledBand> tiled;
  tile_bands(plain, copy, o, log, &tiled);
  EXPECT_TRUE(tiled.empty());
}

TEST(LoopOrder, InnermostTripCountWithTheOuterLoopsFixed) {
  IslContext ctx;
  Scop s = scop_of(ctx, "for (i = 0; i < 100; i++) for (j = i; j < i + 24; j++)\n  a[i][j] = 0;");
  EXPECT_EQ(innermost_trip_count(identity_band(ctx, s, "{ S0[i, j] -> [i, j] }").get_root().child(0)), 24);
  Scop p = scop_of(ctx, "for (i = 0; i < N; i++) for (j = 0; j < N; j++)\n  a[i][j] = 0;");
  EXPECT_EQ(innermost_trip_count(identity_band(ctx, p, "[N] -> { S0[i, j] -> [i, j] }").get_root().child(0)), -1);
}

TEST(Passes, GemmPipelineMarksParallelAndSimd) {
  IslContext ctx;
  Scop s = scop_of(ctx, "for (i = 0; i < 64; i++) for (j = 0; j < 64; j++) for (k = 0; k < 64; k++)\n"
                        "  C[i][j] += A[i][k] * B[k][j];");
  Dependences d = compute_dependences(s);
  ScheduleResult r = compute_schedule(ctx, s, d, {});
  EXPECT_EQ(r.origin, "isl (fusion=min)");
  std::vector<std::string> log;
  isl::schedule t = order_loops_for_locality(r.schedule, s, log);
  TileOptions to;
  to.mode = TileOptions::Mode::kFixed;
  to.sizes = {16};
  t = tile_bands(t, s, to, log);
  t = mark_parallel_loops(t, d.validity(), log);
  t = mark_simd_loops(t, d.validity(), log);
  EXPECT_FALSE(find_violation(t, d.validity()));
  std::string tree = isl_str(t);
  EXPECT_NE(tree.find(kParallelMark), std::string::npos) << tree;
  EXPECT_NE(tree.find(kSimdMark), std::string::npos) << tree;
}

TEST(Passes, SerialLoopIsNeverMarked) {
  IslContext ctx;
  Scop s = scop_of(ctx, "for (i = 1; i < 100; i++) a[i] = a[i - 1] + 1;");
  Dependences d = compute_dependences(s);
  std::vector<std::string> log;
  isl::schedule t = mark_simd_loops(mark_parallel_loops(s.schedule, d.validity(), log), d.validity(), log);
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(isl_str(t).find("omp"), std::string::npos);
}

TEST(Scheduler, BudgetExhaustionFallsBackToSourceOrder) {
  IslContext ctx;
  Scop s = scop_of(ctx, "for (i = 1; i < N; i++) for (j = 1; j < N; j++) a[i][j] = a[i - 1][j] + a[i][j - 1];");
  Dependences d = compute_dependences(s);
  ScheduleOptions o;
  o.budget = 1;
  ScheduleResult r = compute_schedule(ctx, s, d, o);
  EXPECT_NE(r.origin.find("source order"), std::string::npos) << r.origin;
  EXPECT_TRUE(r.schedule.get_map().is_equal(s.schedule.get_map()));
  // The context is usable afterwards (isl's answer is a skew with no outer parallel loop,
  // whose inner loop walks a's anti-diagonals: rejected unless asked for).
  ScheduleOptions keep_skew;
  keep_skew.reject_useless_skew = false;
  keep_skew.deepen_outer_band = false;
  keep_skew.column_sweep_bytes = 0;
  EXPECT_EQ(compute_schedule(ctx, s, d, keep_skew).origin.rfind("isl", 0), 0u);
  ScheduleOptions plain;
  plain.deepen_outer_band = false;
  EXPECT_NE(compute_schedule(ctx, s, d, plain).origin.find("skews loops but gains no outer parallel loop"), std::string::npos);
}

TEST(Scheduler, DeepensTheOuterBandWhenOuterCoincidenceCutsIt) {
  // lu: asking isl for an outer parallel member ends the outer band at k, and every k
  // sweeps the trailing matrix again; without that request isl finds a 3-deep permutable
  // band, which tiling turns into cache reuse across k.
  const std::string body =
      "for (i = 0; i < 64; i++) {\n"
      "  for (j = 0; j < i; j++) {\n"
      "    for (k = 0; k < j; k++) A[i][j] -= A[i][k] * A[k][j];\n"
      "    A[i][j] /= A[j][j];\n"
      "  }\n"
      "  for (j = i; j < 64; j++) for (k = 0; k < i; k++) A[i][j] -= A[i][k] * A[k][j];\n"
      "}";
  IslContext ctx;
  Scop s = scop_of(ctx, body);
  Dependences d = compute_dependences(s);
  ScheduleOptions plain;
  plain.deepen_outer_band = false;
  ScheduleResult before = compute_schedule(ctx, s, d, plain);
  EXPECT_EQ(before.origin, "isl (fusion=min)");
  EXPECT_LT(outermost_band_members(before.schedule), 3) << isl_str(before.schedule);
  ScheduleResult r = compute_schedule(ctx, s, d, {});
  EXPECT_EQ(r.origin, "isl (fusion=min, outer band deepened without outer coincidence)");
  EXPECT_EQ(outermost_band_members(r.schedule), 3) << isl_str(r.schedule);
  EXPECT_FALSE(skews(r.schedule));
  EXPECT_FALSE(find_violation(r.schedule, d.validity()));
  // gemm's outer band is already 3 deep and parallel: nothing to deepen, isl's first answer stays.
  Scop g = scop_of(ctx, "for (i = 0; i < 64; i++) for (j = 0; j < 64; j++) for (k = 0; k < 64; k++)\n"
                        "  C[i][j] += A[i][k] * B[k][j];");
  EXPECT_EQ(compute_schedule(ctx, g, compute_dependences(g), {}).origin, "isl (fusion=min)");
}

TEST(CacheInfo, ReadsSysfsLayout) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("pz_poly_cache_" + std::to_string(::getpid()));
  auto put = [&](int i, const char* level, const char* type, const char* size) {
    fs::create_directories(dir / ("index" + std::to_string(i)));
    std::ofstream(dir / ("index" + std::to_string(i)) / "level") << level << "\n";
    std::ofstream(dir / ("index" + std::to_string(i)) / "type") << type << "\n";
    std::ofstream(dir / ("index" + std::to_string(i)) / "size") << size << "\n";
  };
  put(0, "1", "Data", "48K");
  put(1, "1", "Instruction", "32K");
  put(2, "2", "Unified", "2048K");
  put(3, "3", "Unified", "480M");
  CacheInfo c = CacheInfo::detect(dir.string());
  fs::remove_all(dir);
  EXPECT_EQ(c.l1, 48 * 1024);
  EXPECT_EQ(c.l2, 2048 * 1024);
  EXPECT_EQ(c.l3, 480L * 1024 * 1024);
  EXPECT_EQ(c.source, "sysfs");
  EXPECT_EQ(CacheInfo::detect("/nonexistent").source, "defaults");
}

TEST(Report, TextAndJsonNameStatementsAndDependences) {
  PolycOptions o;
  o.parallel = true;
  o.min_parallel_work = 0;
  PolycResult r = polyc("#pragma scop\nfor (i = 0; i < 10; i++) a[i] = b[i];\n#pragma endscop\n", o);
  std::string text = format_report_text(r.scops), json = format_report_json(r.scops);
  EXPECT_NE(text.find("S0 (line 2): a[i] = b[i]"), std::string::npos) << text;
  EXPECT_NE(text.find("live-in:  { S0[i] -> b[i]"), std::string::npos) << text;
  EXPECT_NE(text.find("omp parallel for"), std::string::npos) << text;
  EXPECT_NE(json.find("\"raw\""), std::string::npos) << json;
}

}  // namespace
}  // namespace pz::poly

namespace pz::poly {
namespace {

// Regression: a 64-wide tile over 23 iterations leaves one tile, so isl drops the (parallel)
// tile loop; its pragma must not land on the point loop below, which carries a dependence.
TEST(Codegen, PragmaOfADroppedLoopIsDropped) {
  PolycOptions o;
  o.parallel = true;
  o.min_parallel_work = 0;
  o.tile.mode = TileOptions::Mode::kFixed;
  o.tile.sizes = {64};
  PolycResult r = polyc("#pragma scop\nfor (i = 0; i < 23; i++) for (j = 0; j < 31; j++)\n"
                        "  for (k = i + 1; k < 23; k++) B[i][j] += A[k][i] * B[k][j];\n#pragma endscop\n", o);
  std::string out = r.output;
  size_t at = out.find("#pragma omp parallel for");
  ASSERT_NE(at, std::string::npos) << out;
  // The marked loop runs over j (the only parallel dimension), whatever its name.
  std::string loop = out.substr(out.find("for (", at), 40);
  EXPECT_EQ(loop.find("<= 21"), std::string::npos) << out;  // not the i loop (0..21)
}

TEST(Codegen, AOneLoopBandBothParallelAndInnermostGetsOneCombinedPragma) {
  PolycOptions o;
  o.parallel = true;
  o.vectorize = true;
  o.min_parallel_work = 0;
  o.adaptive_team = false;
  o.tile.mode = TileOptions::Mode::kOff;
  PolycResult r = polyc("#pragma scop\nfor (i = 0; i < 100; i++) a[i] = b[i] * 2.0;\n#pragma endscop\n", o);
  EXPECT_NE(r.output.find("#pragma omp parallel for simd\n  for (int c0 = 0; c0 <= 99; c0++)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("#pragma omp simd"), std::string::npos) << r.output;
}

// Tiles of 16 and simd marks: the setting of the register-tiling tests.
PolycOptions tiles_of_16_with_simd() {
  PolycOptions o;
  o.tile.mode = TileOptions::Mode::kFixed;
  o.tile.sizes = {16};
  o.vectorize = true;
  return o;
}

TEST(RegisterTiling, GemmUnrollsTheReductionInsideTheVectorLoop) {
  const std::string src =
      "#define N 64\nstatic double A[N][N], B[N][N], C[N][N];\nvoid f(void) {\n  int i, j, k;\n#pragma scop\n"
      "  for (i = 0; i < N; i++) for (j = 0; j < N; j++) for (k = 0; k < N; k++)\n"
      "    C[i][j] += A[i][k] * B[k][j];\n#pragma endscop\n}\n";
  PolycOptions o = tiles_of_16_with_simd();
  PolycResult r = polyc(src, o);
  ASSERT_EQ(r.scops.size(), 1u);
  bool unrolled = false;
  for (const auto& p : r.scops[0].passes) {
    EXPECT_EQ(p.find("UNDONE"), std::string::npos) << p;
    // k: C[i][j] is invariant along it (read and write), B[k][j] only along i.
    if (p.rfind("unroll-and-jam: member 1 of a band of 3 unrolled by 4", 0) == 0) unrolled = true;
  }
  EXPECT_TRUE(unrolled);
  // Four copies of the statement side by side under one `omp simd` loop, on a scalar that
  // C's element is loaded into once and stored from once.
  size_t simd = r.output.find("#pragma omp simd");
  ASSERT_NE(simd, std::string::npos) << r.output;
  std::string body = r.output.substr(simd);
  auto count = [&](const std::string& what) {
    int n = 0;
    for (size_t at = body.find(what); at != std::string::npos; at = body.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("pz_reg += "), 4) << r.output;
  EXPECT_EQ(count("double pz_reg = C[("), 1) << r.output;
  EXPECT_EQ(count("] = pz_reg;"), 1) << r.output;
  EXPECT_EQ(count("C[("), 2) << r.output;
  o.unroll_jam = 0;
  EXPECT_EQ(polyc(src, o).output.find("+ 3)]"), std::string::npos);
}

TEST(RegisterTiling, WholeStripsPrintWithoutGuards) {
  // n symbolic: the strips of k are whole up to n - 4 and isl prints those apart (the band's
  // isolate option), so the vector loop's copies run unconditionally; the last, partial
  // strip keeps its guards.
  const std::string src =
      "void f(int n, double A[n][n], double B[n][n], double C[n][n]) {\n  int i, j, k;\n#pragma scop\n"
      "  for (i = 0; i < n; i++) for (k = 0; k < n; k++) for (j = 0; j < n; j++)\n"
      "    C[i][j] += A[i][k] * B[k][j];\n#pragma endscop\n}\n";
  PolycOptions o;
  o.tile.mode = TileOptions::Mode::kOff;
  o.vectorize = true;
  o.matmul.enabled = false;
  const std::string out = polyc(src, o).output;
  const size_t whole = out.find("double pz_reg = C[");
  ASSERT_NE(whole, std::string::npos) << out;
  const size_t stored = out.find("] = pz_reg;", whole);
  ASSERT_NE(stored, std::string::npos) << out;
  const std::string copies = out.substr(whole, stored - whole);
  EXPECT_EQ(copies.find("if ("), std::string::npos) << out;
  EXPECT_NE(copies.find("+ 3)]"), std::string::npos) << out;
  EXPECT_NE(out.find("if (", stored), std::string::npos) << out;  // the partial strip
}

TEST(RegisterTiling, CopiesStayInMemoryWhereTheirOperandsReadTheirArray) {
  // C[i][j] += A[i][k] * C[i][N + k]: a store to C[i][j] could, for all the printer checks,
  // change what the next copy reads of C, so the copies update C in memory.
  const std::string src =
      "#define N 64\nstatic double A[N][N], C[N][2 * N];\nvoid f(void) {\n  int i, j, k;\n#pragma scop\n"
      "  for (i = 0; i < N; i++) for (j = 0; j < N; j++) for (k = 0; k < N; k++)\n"
      "    C[i][j] += A[i][k] * C[i][N + k];\n#pragma endscop\n}\n";
  const PolycResult r = polyc(src, tiles_of_16_with_simd());
  bool unrolled = false;
  for (const auto& p : r.scops.at(0).passes) unrolled = unrolled || p.find("unrolled by") != std::string::npos;
  EXPECT_TRUE(unrolled) << r.output;
  EXPECT_EQ(r.output.find("pz_reg"), std::string::npos) << r.output;
}

TEST(RegisterTiling, UntiledTriangleIsNotUnrolled) {
  // symm's update: row k gains the rows i > k. Unrolling i untiled puts a partial strip in
  // every k, its copies' guards inside the vector loop over j; in tiles, only the tiles the
  // diagonal crosses have them.
  const std::string src =
      "#define N 64\nstatic double A[N][N], B[N][N], C[N][N];\nvoid f(void) {\n  int i, j, k;\n#pragma scop\n"
      "  for (k = 0; k < N; k++) for (i = k + 1; i < N; i++) for (j = 0; j < N; j++)\n"
      "    C[k][j] += B[i][j] * A[i][k];\n#pragma endscop\n}\n";
  auto unroll_log = [&](const PolycOptions& o) {
    const PolycResult r = polyc(src, o);
    std::string out;
    for (const auto& p : r.scops.at(0).passes)
      if (p.rfind("unroll-and-jam: member", 0) == 0) out += p + "\n";
    return out;
  };
  PolycOptions o;
  o.vectorize = true;
  o.tile.mode = TileOptions::Mode::kOff;
  EXPECT_NE(unroll_log(o).find("left alone: its bounds depend on the other loops"), std::string::npos) << unroll_log(o);
  o.tile.mode = TileOptions::Mode::kFixed;
  o.tile.sizes = {16};
  EXPECT_NE(unroll_log(o).find("unrolled by 4"), std::string::npos) << unroll_log(o);
}

TEST(Scheduler, KeepsSourceFusionOfAStreamedMatrix) {
  // atax: both statements read A once each; distributing them would read A twice.
  const std::string body =
      "for (i = 0; i < 600; i++) {\n  t[i] = 0;\n  for (j = 0; j < 500; j++) t[i] = t[i] + A[i][j] * x[j];\n"
      "  for (j = 0; j < 500; j++) y[j] = y[j] + A[i][j] * t[i];\n}";
  IslContext ctx;
  Scop s = scop_of(ctx, body);
  Dependences d = compute_dependences(s);
  ScheduleOptions o;
  o.stream_bytes = 1024 * 1024;  // A is 2.4 MB
  ScheduleResult r = compute_schedule(ctx, s, d, o);
  EXPECT_EQ(r.origin.rfind("source order (isl's schedule rejected: S1 and S2 would each stream A", 0), 0u)
      << r.origin << isl_str(r.schedule);
  o.stream_bytes = 4 * 1024 * 1024;  // A fits: isl's distribution costs nothing
  EXPECT_EQ(compute_schedule(ctx, s, d, o).origin, "isl (fusion=min)");
  // gemm reuses C across k: never a streamed array, isl's schedule stays.
  Scop g = scop_of(ctx, "for (i = 0; i < 600; i++) {\n  for (j = 0; j < 600; j++) C[i][j] *= 2.0;\n"
                        "  for (k = 0; k < 600; k++) for (j = 0; j < 600; j++) C[i][j] += A[i][k] * B[k][j];\n}");
  o.stream_bytes = 1024;
  EXPECT_EQ(compute_schedule(ctx, g, compute_dependences(g), o).origin, "isl (fusion=min)");
}

TEST(Scheduler, DeclaredExtentsStandInForSymbolicSizes) {
  // PolyBench's form: loops bounded by the parameters m and n, arrays declared with
  // constant extents. atax's two statements keep inner loops of their own in the source.
  const std::string atax =
      "void kernel(int m, int n, double A[1900][2100], double x[2100], double y[2100], double tmp[1900]) {\n"
      "  int i, j;\n#pragma scop\n  for (i = 0; i < n; i++) y[i] = 0;\n  for (i = 0; i < m; i++) {\n"
      "    tmp[i] = 0.0;\n    for (j = 0; j < n; j++) tmp[i] = tmp[i] + A[i][j] * x[j];\n"
      "    for (j = 0; j < n; j++) y[j] = y[j] + A[i][j] * tmp[i];\n  }\n#pragma endscop\n}\n";
  PolycResult r = polyc(atax, {});
  ASSERT_EQ(r.scops.size(), 1u);
  EXPECT_EQ(r.scops[0].schedule_origin.rfind("source order (isl's schedule rejected: S2 and S3 would each stream A", 0), 0u)
      << r.scops[0].schedule_origin;
  // bicg's share their innermost loop: isl's two sweeps stay.
  const std::string bicg =
      "void kernel(int m, int n, double A[2100][1900], double s[1900], double q[2100], double p[1900], double r[2100]) {\n"
      "  int i, j;\n#pragma scop\n  for (i = 0; i < m; i++) s[i] = 0;\n  for (i = 0; i < n; i++) {\n    q[i] = 0.0;\n"
      "    for (j = 0; j < m; j++) {\n      s[j] = s[j] + r[i] * A[i][j];\n      q[i] = q[i] + A[i][j] * p[j];\n    }\n"
      "  }\n#pragma endscop\n}\n";
  r = polyc(bicg, {});
  ASSERT_EQ(r.scops.size(), 1u);
  EXPECT_EQ(r.scops[0].schedule_origin.rfind("isl", 0), 0u) << r.scops[0].schedule_origin;
}

TEST(Scheduler, SplittingAStreamedMatrixIsFineBesideTheBulkOfTheWork) {
  // covariance's tail: cov[i][j] /= .. and cov[j][i] = cov[i][j] stream cov (M^2/2 instances
  // each) beside an M^2 N/2 contraction; one more pass over cov is not worth the source's
  // column walk in the contraction, so isl's schedule stays.
  const std::string body =
      "for (i = 0; i < 40; i++) for (j = i; j < 40; j++) {\n  cov[i][j] = 0.0;\n"
      "  for (k = 0; k < 50; k++) cov[i][j] += data[k][i] * data[k][j];\n"
      "  cov[i][j] /= 3.0;\n  cov[j][i] = cov[i][j];\n}";
  IslContext ctx;
  Scop s = scop_of(ctx, body);
  ScheduleOptions o;
  o.stream_bytes = 1024;  // cov (12.8 kB) counts as streamed
  EXPECT_EQ(compute_schedule(ctx, s, compute_dependences(s), o).origin, "isl (fusion=min)");
}

TEST(Scheduler, KeepsARowWiseSolveOverAColumnWalk) {
  // trisolv: isl schedules the forward substitution column by column (j outer, a parallel
  // loop down L's column j inside); the source's row-wise dot products walk L's rows.
  const std::string body =
      "for (i = 0; i < 400; i++) {\n  x[i] = b[i];\n  for (j = 0; j < i; j++) x[i] -= L[i][j] * x[j];\n"
      "  x[i] = x[i] / L[i][i];\n}";
  IslContext ctx;
  Scop s = scop_of(ctx, body);
  Dependences d = compute_dependences(s);
  ScheduleOptions o;
  o.column_sweep_bytes = 16 * 1024;  // a sweep down 400 rows touches 25.6 kB of lines
  EXPECT_EQ(compute_schedule(ctx, s, d, o).origin,
            "source order (isl's schedule rejected: S1's innermost loop would walk L down its columns (the source walks "
            "its rows))");
  o.column_sweep_bytes = 32 * 1024;  // the column's lines stay in L1 from one sweep to the next
  EXPECT_EQ(compute_schedule(ctx, s, d, o).origin, "isl (fusion=min)");
  // gemm's isl band is permutable: loop order makes j innermost, no claim.
  Scop g = scop_of(ctx, "for (i = 0; i < 600; i++) for (j = 0; j < 600; j++) for (k = 0; k < 600; k++)\n"
                        "  C[i][j] += A[i][k] * B[k][j];");
  o.column_sweep_bytes = 1024;
  EXPECT_EQ(compute_schedule(ctx, g, compute_dependences(g), o).origin.rfind("isl", 0), 0u);
}

TEST(Passes, LittleWorkPerForkStaysSequential) {
  // lu-like: a parallel loop inside a sequential one, 40*40 instances per entry.
  const std::string src = "#pragma scop\nfor (k = 0; k < 40; k++) for (i = k + 1; i < 40; i++)\n"
                          "  for (j = k + 1; j < 40; j++) A[i][j] -= A[i][k] * A[k][j];\n#pragma endscop\n";
  PolycOptions o;
  o.parallel = true;
  o.schedule.deepen_outer_band = false;  // keep (k) over a parallel (i, j) band
  o.min_parallel_work = 1600;
  PolycResult r = polyc(src, o);
  EXPECT_EQ(r.output.find("omp parallel for"), std::string::npos) << r.output;
  bool logged = false;
  for (const auto& p : r.scops[0].passes) logged = logged || p.find("instances per entry < 1600") != std::string::npos;
  EXPECT_TRUE(logged);
  o.min_parallel_work = 1521;  // the box of the first entry: 39 x 39
  const std::string out = polyc(src, o).output;
  EXPECT_NE(out.find("omp parallel for"), std::string::npos) << out;
}

// Found by the fuzzer: a loop whose every statement instance is excluded by a condition
// made lowering throw (isl cannot build a band from an empty partial schedule).
TEST(Lowering, LoopAroundADeadStatement) {
  const std::string src =
      "#define N 3\nstatic unsigned D[100], B[100];\nvoid f(void) {\n  int i, j;\n#pragma scop\n"
      "  for (i = 1; i < N; i++)\n    for (j = 0; j < N; j++)\n      if (i >= 3)\n        D[46] = B[47 - i - j];\n"
      "  for (i = 0; i < N; i++) B[i] = 1u;\n#pragma endscop\n}\n";
  PolycOptions o;
  o.keep_source_without_gain = false;  // the generated code, not the region as written
  PolycResult r = polyc(src, o);
  EXPECT_EQ(r.output.find("D[46]"), std::string::npos) << r.output;  // never runs: not generated
  EXPECT_NE(r.output.find("B[c0] = 1u;"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace pz::poly
