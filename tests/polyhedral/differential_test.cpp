// Differential tests: every kernel in kernels/ is compiled as written and after polyc with
// several option sets; the transformed programs must compile without warnings
// (-Wall -Wextra -Werror, OpenMP on) and print the original's numbers. Compiled with
// -ffp-contract=off so that a legal schedule (which never reorders a reduction) gives
// bit-identical results; the comparison still allows 1e-12 relative error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "polyhedral/polyc.h"
#include "tests/polyhedral/compile_run.h"

namespace pz::poly {
namespace {

namespace fs = std::filesystem;

using test_support::slurp;

struct Variant {
  std::string name;
  PolycOptions options;
};

std::vector<Variant> variants() {
  std::vector<Variant> out;
  Variant isl_only{"isl", {}};
  isl_only.options.tile.mode = TileOptions::Mode::kOff;
  out.push_back(isl_only);
  Variant full{"auto_parallel_simd", {}};
  full.options.tile.mode = TileOptions::Mode::kAuto;
  full.options.parallel = full.options.vectorize = true;
  out.push_back(full);
  // Small odd tiles: many partial tiles at these sizes.
  Variant small{"tile_5_3_4_parallel", {}};
  small.options.tile.mode = TileOptions::Mode::kFixed;
  small.options.tile.sizes = {5, 3, 4};
  small.options.parallel = true;
  out.push_back(small);
  // Two levels: tiles of 3 inside tiles of 8 (partial inner tiles at every outer edge).
  Variant fused{"fusion_max_tile_8_3_simd", {}};
  fused.options.schedule.fusion = ScheduleOptions::Fusion::kMax;
  fused.options.tile.mode = TileOptions::Mode::kFixed;
  fused.options.tile.sizes = {8};
  fused.options.tile.inner_sizes = {3};
  fused.options.vectorize = true;
  out.push_back(fused);
  // Stencils: small odd time tiles (many partial parallelogram tiles), wavefronts marked.
  Variant time_tiled{"time_tile_3_4_5_parallel_simd", {}};
  time_tiled.options.time_tile.sizes = {3, 4, 5};
  time_tiled.options.parallel = time_tiled.options.vectorize = true;
  time_tiled.options.keep_source_without_gain = false;  // time tiles even where the model sees no gain
  out.push_back(time_tiled);
  // Contractions packed (matmul_packing.h) whatever their size, the rest as above.
  Variant packed{"matmul_packing_parallel_simd", {}};
  packed.options.matmul.enabled = true;
  packed.options.matmul.min_multiply_adds = 0;
  packed.options.parallel = packed.options.vectorize = true;
  out.push_back(packed);
  // The tiny test sizes would leave every loop sequential: these tests check the marks.
  for (auto& v : out) {
    v.options.min_parallel_work = 0;
    v.options.cost_model = false;  // small sizes: every transformation is exercised, none taken back
  }
  return out;
}

// Compiles and runs `source`; returns its stdout, or fails the test with the compiler's
// messages.
std::string build_and_run(const fs::path& dir, const std::string& name, const std::string& source, bool strict) {
  std::string flags = "-O1 -ffp-contract=off -fopenmp";
  if (strict) flags += " -Wall -Wextra -Werror";
  test_support::RunResult r = test_support::compile_and_run(dir, name, source, flags);
  if (!r.ok) ADD_FAILURE() << name << ": " << r.error << "\n--- source ---\n" << source;
  return r.output;
}

void expect_same_numbers(const std::string& expected, const std::string& got, const std::string& what) {
  std::istringstream a(expected), b(got);
  std::string x, y;
  size_t n = 0, bad = 0;
  std::string first;
  while (a >> x) {
    if (!(b >> y)) {
      ADD_FAILURE() << what << ": output ends after " << n << " numbers";
      return;
    }
    ++n;
    double u = std::strtod(x.c_str(), nullptr), v = std::strtod(y.c_str(), nullptr);
    if (x != y && std::fabs(u - v) > 1e-12 * std::max(1.0, std::fabs(u))) {
      if (bad++ == 0) first = "value " + std::to_string(n) + ": expected " + x + ", got " + y;
    }
  }
  EXPECT_FALSE(b >> y) << what << ": extra output";
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << n << " numbers differ; first " << first;
  EXPECT_GT(n, 0u) << what << ": no output";
}

class Differential : public ::testing::TestWithParam<std::string> {};

TEST_P(Differential, TransformedMatchesOriginal) {
  const std::string kernel = GetParam();
  const std::string source = slurp(fs::path(PZ_POLY_KERNELS_DIR) / (kernel + ".c"));
  ASSERT_FALSE(source.empty());
  std::string safe = kernel;
  for (auto& ch : safe)
    if (ch == '-') ch = '_';
  test_support::Workdir dir(safe);
  const std::string expected = build_and_run(dir.path(), "original", source, false);
  ASSERT_FALSE(expected.empty());
  for (const auto& v : variants()) {
    SCOPED_TRACE(kernel + " / " + v.name);
    PolycResult r = polyc(source, v.options);
    for (const auto& s : r.scops)
      for (const auto& p : s.passes) EXPECT_EQ(p.find("UNDONE"), std::string::npos) << p;
    std::string got = build_and_run(dir.path(), v.name, r.output, true);
    expect_same_numbers(expected, got, kernel + " / " + v.name);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Differential,
                         ::testing::Values("gemm", "2mm", "3mm", "syrk", "syr2k", "trmm", "gemver", "atax", "bicg",
                                           "mvt", "lu", "cholesky", "jacobi-1d", "jacobi-2d", "seidel-2d", "fdtd-2d",
                                           "heat-3d",
                                           "floyd-warshall", "covariance", "guarded", "tridiagonal"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (auto& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace pz::poly
