// Footprints and data movement (footprint.h) on small kernels whose numbers are derived by
// hand in the comments, and the report (text and JSON) that shows them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "polyhedral/analysis/dependences.h"
#include "polyhedral/analysis/footprint.h"
#include "polyhedral/frontend/builder.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/polyc.h"
#include "polyhedral/report.h"

namespace pz::poly {
namespace {

const ArrayMovement& array_of(const std::vector<ArrayMovement>& v, const std::string& name) {
  for (const auto& a : v)
    if (a.array == name) return a;
  throw std::runtime_error("no array " + name);
}

const TileArrayFootprint& array_of(const TilingMovement& t, const std::string& name) {
  for (const auto& a : t.arrays)
    if (a.array == name) return a;
  throw std::runtime_error("no array " + name);
}

// The band directly under the root of the source-order schedule (a single loop nest gives
// one band per loop; the outermost is taken, with the loops below it inside every tile).
isl::schedule_node first_band(const isl::schedule& s) { return s.get_root().child(0); }

// for (i = 0; i < 8; i++) <stmt>, over double arrays A and B.
Scop one_loop(IslContext& ctx, const char* stmt) {
  ScopBuilder b(ctx.ctx());
  b.param("N", 8).array("A", "double").array("B", "double");
  b.for_("i", "0", "N").stmt(stmt).end();
  return b.build();
}

// Footprints and sums over the tiles of `band` tiled by `sizes`.
TilingMovement tiled(const Scop& s, const isl::schedule_node& band, const std::vector<long>& sizes) {
  TilingMovement t = tiling_movement(s, band, sizes);
  add_tile_sums(s, band, t);
  return t;
}

// One band (i, j, k) over a builder-made GEMM, as tiling sees it.
isl::schedule_node gemm_band(IslContext& ctx, const Scop& s, isl::schedule& keep) {
  keep = isl::manage(isl_schedule_insert_partial_schedule(
      isl_schedule_from_domain(s.domain().release()),
      isl_multi_union_pw_aff_from_union_map(isl_union_map_read_from_str(ctx.raw(), "[N] -> { S0[i, j, k] -> [i, j, k] }"))));
  return keep.get_root().child(0);
}

TEST(Count, ExactOnlyWithFixedParameters) {
  IslContext ctx;
  EXPECT_EQ(count_points(isl::set(ctx.ctx(), "[N] -> { [i] : 0 <= i < N and N = 5 }")), 5);
  EXPECT_EQ(count_points(isl::set(ctx.ctx(), "{ [i, j] : 0 <= i < 4 and 0 <= j <= i }")), 10);
  EXPECT_EQ(count_points(isl::set(ctx.ctx(), "[N] -> { [i] : 0 <= i < 7 }")), 7);  // N not involved
  EXPECT_FALSE(count_points(isl::set(ctx.ctx(), "[N] -> { [i] : 0 <= i < N }")));  // symbolic
  EXPECT_FALSE(count_points(isl::set(ctx.ctx(), "{ [i] : i >= 0 }")));              // unbounded
  EXPECT_EQ(count_points(isl::union_set(ctx.ctx(), "{ A[i] : 0 <= i < 3; B[i, j] : 0 <= i, j < 2 }")), 7);
}

TEST(Count, BoxAfterStrideRemoval) {
  IslContext ctx;
  // A[2i] for i in one tile of 4: the box hull spans 7 elements (2*4t .. 2*4t+6), of which
  // every second is touched: 4 after stride removal.
  EXPECT_EQ(box_volume_without_strides(isl::map(ctx.ctx(), "{ [t] -> A[x] : exists i : x = 2i and 4t <= i < 4t + 4 }")), 4);
  // 2-D: rows stride 3 (3 rows touched of a 7-row hull), columns dense (5).
  EXPECT_EQ(box_volume_without_strides(isl::map(
                ctx.ctx(), "{ [t] -> A[x, y] : exists i : x = 3i and t <= i < t + 3 and t <= y < t + 5 }")),
            15);
  EXPECT_FALSE(box_volume_without_strides(isl::map(ctx.ctx(), "[N] -> { [t] -> A[x] : t <= x < t + N }")));
}

// 4x4x4 single-precision matmul C[i][j] += A[i][k] * B[k][j], tiles 2x2x2.
//  kernel: every element of A, B, C is read before any write (C by +=): moved in 3 x 16 = 48
//    elements = 192 B; C's 16 final values move out: 16 elements = 64 B; accessed 48.
//  tiling: (4/2)^3 = 8 tiles; one tile touches a 2x2 block of each array: box = first tile
//    = 4 per array, 12 elements = 48 B. Over the 8 tiles each array is loaded 8 x 4 = 32
//    times, 96 elements = 384 B; C is written by every tile: written back 8 x 4 = 32
//    elements = 128 B.
//  caches (sizes set for the test): L1 32 B < 48 B of a tile: not modelled; L2 64 B holds a
//    tile but not the 192 B of data: per-tile, 96 loaded / 32 written back; L3 256 B holds
//    everything: compulsory, 48 elements (192 B) loaded, 16 (64 B) written back.
TEST(DataMovement, Matmul4x4Tiles2x2x2ByHand) {
  IslContext ctx;
  ScopBuilder b(ctx.ctx());
  b.param("N", 4).array("A", "float").array("B", "float").array("C", "float");
  b.for_("i", "0", "N").for_("j", "0", "N").for_("k", "0", "N").stmt("C[i][j] += A[i][k] * B[k][j]").end().end().end();
  Scop s = b.build();
  std::vector<ArrayMovement> k = kernel_movement(s, compute_dependences(s));
  ASSERT_EQ(k.size(), 3u);
  for (const char* name : {"A", "B"}) {
    const auto& a = array_of(k, name);
    EXPECT_EQ(a.accessed, 16);
    EXPECT_EQ(a.written, 0);
    EXPECT_EQ(a.moved_in, 16);
    EXPECT_EQ(a.moved_out, 0);
    EXPECT_EQ(a.element_bytes, 4);
  }
  EXPECT_EQ(array_of(k, "C").moved_in, 16);
  EXPECT_EQ(array_of(k, "C").moved_out, 16);
  Totals in = sum_arrays(k, &ArrayMovement::moved_in), out = sum_arrays(k, &ArrayMovement::moved_out);
  EXPECT_EQ(in.elements, 48);
  EXPECT_EQ(in.bytes, 192);
  EXPECT_EQ(out.elements, 16);
  EXPECT_EQ(out.bytes, 64);

  isl::schedule keep;
  isl::schedule_node band = gemm_band(ctx, s, keep);
  TilingMovement t = tiled(s, band, {2, 2, 2});
  EXPECT_EQ(t.tiles, 8);
  for (const char* name : {"A", "B", "C"}) {
    const auto& a = array_of(t, name);
    EXPECT_EQ(a.box, 4) << name;
    EXPECT_EQ(a.first_tile, 4) << name;
    EXPECT_EQ(a.loaded, 32) << name;
    EXPECT_EQ(a.written_back, std::string(name) == "C" ? 32 : 0) << name;
  }
  EXPECT_EQ(sum_arrays(t.arrays, &TileArrayFootprint::box).bytes, 48);
  EXPECT_EQ(sum_arrays(t.arrays, &TileArrayFootprint::loaded).elements, 96);
  EXPECT_EQ(sum_arrays(t.arrays, &TileArrayFootprint::loaded).bytes, 384);
  EXPECT_EQ(sum_arrays(t.arrays, &TileArrayFootprint::written_back).bytes, 128);

  CacheInfo cache;
  cache.l1 = 32;
  cache.l2 = 64;
  cache.l3 = 256;
  auto levels = cache_movement(k, t, cache);
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].model, "not modelled");
  EXPECT_FALSE(levels[0].loaded);
  EXPECT_EQ(levels[1].model, "per-tile");
  EXPECT_EQ(levels[1].loaded, 96);
  EXPECT_EQ(levels[1].loaded_bytes, 384);
  EXPECT_EQ(levels[1].written_back_bytes, 128);
  EXPECT_EQ(levels[2].model, "compulsory");
  EXPECT_EQ(levels[2].loaded, 48);
  EXPECT_EQ(levels[2].loaded_bytes, 192);
  EXPECT_EQ(levels[2].written_back, 16);
  EXPECT_EQ(levels[2].written_back_bytes, 64);
}

// 1-D stencil B[i] = A[i] + A[i+1] + A[i+2], i in [0, 8), doubles, tiles of 4 iterations.
//  kernel: A[0..9] read, never written: moved in 10 (80 B); B[0..7] written, never read:
//    moved out 8 (64 B).
//  tiling: 2 tiles; tile 0 reads A[0..5] (6) and writes B[0..3] (4), tile 1 A[4..9], B[4..7].
//    A: box 6, first tile 6, loaded 6 + 6 = 12 (A[4], A[5] twice: the halo); B: box 4,
//    loaded 8, written back 8. Total loaded 20 elements = 160 B, written back 8 = 64 B.
TEST(DataMovement, Stencil1DHaloByHand) {
  IslContext ctx;
  Scop s = one_loop(ctx, "B[i] = A[i] + A[i + 1] + A[i + 2]");
  auto k = kernel_movement(s, compute_dependences(s));
  EXPECT_EQ(array_of(k, "A").moved_in, 10);
  EXPECT_EQ(array_of(k, "A").moved_out, 0);
  EXPECT_EQ(array_of(k, "B").moved_in, 0);
  EXPECT_EQ(array_of(k, "B").moved_out, 8);
  EXPECT_EQ(sum_arrays(k, &ArrayMovement::moved_in).bytes, 80);
  EXPECT_EQ(sum_arrays(k, &ArrayMovement::moved_out).bytes, 64);
  isl::schedule_node band = first_band(s.schedule);
  TilingMovement t = tiled(s, band, {4});
  EXPECT_EQ(t.tiles, 2);
  EXPECT_EQ(array_of(t, "A").box, 6);
  EXPECT_EQ(array_of(t, "A").first_tile, 6);
  EXPECT_EQ(array_of(t, "A").loaded, 12);
  EXPECT_EQ(array_of(t, "A").written_back, 0);
  EXPECT_EQ(array_of(t, "B").box, 4);
  EXPECT_EQ(array_of(t, "B").loaded, 8);
  EXPECT_EQ(array_of(t, "B").written_back, 8);
  EXPECT_EQ(sum_arrays(t.arrays, &TileArrayFootprint::loaded).bytes, 160);
  EXPECT_EQ(sum_arrays(t.arrays, &TileArrayFootprint::written_back).bytes, 64);
}

// B[i] = A[2i], i in [0, 8), tiles of 4: A's box hull per tile spans 7 elements, 4 after
// stride removal, and exactly 4 are touched; 2 tiles load 8 elements of A, accessed 8.
TEST(DataMovement, StridedAccessBoxIsExactAfterStrideRemoval) {
  IslContext ctx;
  Scop s = one_loop(ctx, "B[i] = A[2 * i]");
  isl::schedule_node band = first_band(s.schedule);
  TilingMovement t = tiled(s, band, {4});
  EXPECT_EQ(array_of(t, "A").box, 4);
  EXPECT_EQ(array_of(t, "A").first_tile, 4);
  EXPECT_EQ(array_of(t, "A").loaded, 8);
  EXPECT_EQ(array_of(kernel_movement(s, compute_dependences(s)), "A").accessed, 8);
  auto fp = tile_footprint(s, band, {4});
  ASSERT_TRUE(fp);
  EXPECT_EQ(fp->elements.at("A"), 4);
}

// Transpose B[j][i] = A[i][j], 4x4 doubles, through polyc with --tile 2:
//  kernel: moved in A, 16 elements = 128 B; moved out B, 16 elements = 128 B.
//  tiling 2x2: 4 tiles, each reads a 2x2 block of A and writes a 2x2 block of B:
//    box = first tile = 4 per array; loaded 4 x 4 = 16 per array (no overlap: equal to
//    the compulsory traffic), B written back 16 = 128 B; total loaded 32 elements = 256 B.
const char* kTranspose =
    "#define N 4\n"
    "double A[N][N], B[N][N];\n"
    "void t(void) {\n"
    "  int i, j;\n"
    "#pragma scop\n"
    "  for (i = 0; i < N; i++)\n"
    "    for (j = 0; j < N; j++)\n"
    "      B[j][i] = A[i][j];\n"
    "#pragma endscop\n"
    "}\n";

PolycOptions tile2() {
  PolycOptions o;
  o.tile.mode = TileOptions::Mode::kFixed;
  o.tile.sizes = {2};
  return o;
}

TEST(Report, TransposeDataMovementInTextAndJson) {
  PolycResult r = polyc(kTranspose, tile2());
  ASSERT_EQ(r.scops.size(), 1u);
  std::string text = format_report_text(r.scops);
  for (const char* want : {
           "A (double, 8 B): accessed 16, written 0, moved in 16 elements (128 B), moved out 0 elements (0 B)",
           "B (double, 8 B): accessed 16, written 16, moved in 0 elements (0 B), moved out 16 elements (128 B)",
           "total: moved in 16 elements (128 B), moved out 16 elements (128 B), accessed 32 elements (256 B)",
           "tiles 2x2, 4 tiles",
           "A: box 4 (after stride removal), first tile 4 exact, loaded over all tiles 16 elements (128 B), "
           "written back 0 elements (0 B)",
           "B: box 4 (after stride removal), first tile 4 exact, loaded over all tiles 16 elements (128 B), "
           "written back 16 elements (128 B)",
           "one tile: box 8 elements (64 B), first tile 8 elements (64 B)",
           "writes back those it writes): loaded 32 elements (256 B), written back 16 elements (128 B)",
       })
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  auto j = nlohmann::json::parse(format_report_json(r.scops));
  const auto& d = j["scops"][0]["data_movement"];
  EXPECT_EQ(d["moved_in"]["elements"], 16);
  EXPECT_EQ(d["moved_in"]["bytes"], 128);
  EXPECT_EQ(d["moved_out"]["bytes"], 128);
  ASSERT_EQ(d["tilings"].size(), 1u);
  EXPECT_EQ(d["tilings"][0]["tiles"], 4);
  EXPECT_EQ(d["tilings"][0]["loaded"]["elements"], 32);
  EXPECT_EQ(d["tilings"][0]["loaded"]["bytes"], 256);
  EXPECT_EQ(d["tilings"][0]["written_back"]["bytes"], 128);
  EXPECT_EQ(d["tilings"][0]["cache_levels"][0]["model"], "compulsory");  // 256 B fit any L1
}

TEST(Report, SymbolicSizesGiveNoCountsButSayWhy) {
  PolycResult r = polyc("#pragma scop\nfor (i = 0; i < N; i++) a[i] = b[i];\n#pragma endscop\n", PolycOptions{});
  const auto& d = r.scops.at(0).data_movement;
  EXPECT_NE(d.note.find("size N is symbolic"), std::string::npos) << d.note;
  EXPECT_FALSE(array_of(d.kernel, "a").moved_out);
  EXPECT_NE(format_report_text(r.scops).find("moved out n/a elements (n/a B)"), std::string::npos);
}

TEST(Report, DataMovementCanBeTurnedOff) {
  PolycOptions o = tile2();
  o.data_movement = false;
  PolycResult r = polyc(kTranspose, o);
  EXPECT_FALSE(r.scops.at(0).data_movement.computed);
  EXPECT_TRUE(r.scops.at(0).data_movement.tilings.empty());
}

}  // namespace
}  // namespace pz::poly
