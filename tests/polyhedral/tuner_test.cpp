// polyc --tune (tuner.h): sizes inferred from declarations, the harness's arrays, the
// choice among timed candidates (a much slower one loses, a wrong or crashing one is never
// chosen), the cache, and the whole path through polyc().
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "polyhedral/analysis/in_bounds_sizes.h"
#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/polyc.h"
#include "polyhedral/runtime/tuner.h"
#include "tests/polyhedral/compile_run.h"

namespace pz::poly {
namespace {

using test_support::Workdir;

Scop lower_first_region(IslContext& ctx, const std::string& source) {
  auto regions = parse_c_regions(source);
  return lower(ctx.ctx(), *regions.at(0).tree, regions.at(0).options);
}

const char* kGemm = R"(void kernel(int ni, int nj, int nk, double alpha, double C[60][70], double A[60 + 0][80], double B[80][70]) {
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      for (k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
#pragma endscop
}
)";

const char* kStencil = R"(void kernel(int tsteps, int n, double *a, double b[500]) {
  int t, i;
#pragma scop
  for (t = 0; t < tsteps; t++)
    for (i = 1; i < n - 1; i++)
      a[i] = 0.33 * (b[i - 1] + b[i] + b[i + 1]);
#pragma endscop
}
)";

TEST(TuneSizes, TheLargestSizesTheDeclaredExtentsAllow) {
  IslContext ctx;
  Scop scop = lower_first_region(ctx, kGemm);
  std::vector<std::string> unresolved;
  const auto sizes = in_bounds_sizes(scop, {}, unresolved);
  EXPECT_TRUE(unresolved.empty());
  EXPECT_EQ(sizes.at("ni"), 60);
  EXPECT_EQ(sizes.at("nj"), 70);
  EXPECT_EQ(sizes.at("nk"), 80);
}

TEST(TuneSizes, GivenSizesComeFirstAndUnboundedOnesAreNamed) {
  IslContext ctx;
  Scop scop = lower_first_region(ctx, kStencil);
  std::vector<std::string> unresolved;
  auto sizes = in_bounds_sizes(scop, {}, unresolved);
  EXPECT_EQ(unresolved, std::vector<std::string>{"tsteps"});
  EXPECT_EQ(sizes.at("n"), 500);  // b[i + 1] with i < n - 1

  unresolved.clear();
  sizes = in_bounds_sizes(scop, {{"tsteps", 7}, {"n", 100}, {"other", 3}}, unresolved);
  EXPECT_TRUE(unresolved.empty());
  EXPECT_EQ(sizes.at("tsteps"), 7);
  EXPECT_EQ(sizes.at("n"), 100);
  EXPECT_EQ(sizes.count("other"), 0u);
}

TEST(TuneExtents, DeclaredWhereTheyCoverTheAccessesElseTheAccessedBox) {
  IslContext ctx;
  Scop gemm = lower_first_region(ctx, kGemm);
  auto extents = tune_extents(gemm, {{"ni", 10}, {"nj", 20}, {"nk", 30}});
  EXPECT_EQ(extents.at("C"), (std::vector<long long>{60, 70}));
  EXPECT_EQ(extents.at("A"), (std::vector<long long>{60, 80}));  // "60 + 0" evaluated
  EXPECT_EQ(extents.count("alpha"), 0u);

  Scop stencil = lower_first_region(ctx, kStencil);
  extents = tune_extents(stencil, {{"tsteps", 2}, {"n", 900}});
  EXPECT_EQ(extents.at("a"), (std::vector<long long>{899}));  // a pointer: a[1 .. n-2]
  EXPECT_EQ(extents.at("b"), (std::vector<long long>{900}));  // declared 500 < 900 accessed
}

// A region of one loop over x; the candidates' codes are written by hand.
struct HandRegion {
  IslContext ctx;
  Scop scop = lower_first_region(ctx, R"(void f(int n, double x[4000], double y[4000]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    y[i] = 2.0 * x[i] + 1.0;
#pragma endscop
}
)");
  const std::string plain = "  for (i = 0; i < n; i++) y[i] = 2.0 * x[i] + 1.0;\n";
  // The same results, 300 times the work.
  const std::string slow =
      "  for (int r = 0; r < 300; r++) for (i = 0; i < n; i++) y[i] = 2.0 * x[i] + 1.0 + 0.0 * y[(i + r) % n];\n";
};

// Short runs on one thread, the choices cached in `dir`.
TuneOptions quick_options(const Workdir& dir) {
  TuneOptions o;
  o.cache_dir = dir.path().string();
  o.seconds = 2;
  o.threads = 1;
  return o;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

TEST(TuneRegion, AMuchSlowerModelLosesAndTheChoiceIsCached) {
  Workdir dir("tune_choice");
  HandRegion r;
  const TuneOptions o = quick_options(dir);
  const std::vector<TuneCandidate> candidates{{"model", r.slow}, {"source", r.plain}};
  const TuneResult first = tune_region(r.scop, {{"n", 4000}}, candidates, o);
  const std::string log = joined(first.log);
  EXPECT_EQ(first.chosen, 1) << log;
  EXPECT_FALSE(first.cached);
  EXPECT_NE(log.find("tune: chose source at n=4000"), std::string::npos) << log;

  const TuneResult again = tune_region(r.scop, {{"n", 4000}}, candidates, o);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.chosen, 1);
  // Other sizes are other timings.
  EXPECT_FALSE(tune_region(r.scop, {{"n", 3000}}, candidates, o).cached);
}

TEST(TuneRegion, WrongResultsAndCrashesAreNeverChosen) {
  Workdir dir("tune_losers");
  HandRegion r;
  const std::vector<TuneCandidate> candidates{
      {"model", r.slow},
      {"source", r.plain},
      {"wrong", "  for (i = 0; i < n; i++) y[i] = 3.0 * x[i];\n"},
      {"crash", "  __builtin_trap();\n"},
      {"broken", "  this is not C;\n"},
  };
  const TuneResult result = tune_region(r.scop, {{"n", 4000}}, candidates, quick_options(dir));
  const std::string log = joined(result.log);
  EXPECT_EQ(result.chosen, 1) << log;
  EXPECT_NE(log.find("tune: wrong: results differ from the source's"), std::string::npos) << log;
  EXPECT_NE(log.find("tune: crash: the harness was killed by signal"), std::string::npos) << log;
  EXPECT_NE(log.find("tune: broken: does not compile"), std::string::npos) << log;
}

TEST(TuneRegion, PolycTunesARegionAndItsOutputCompiles) {
  Workdir dir("tune_polyc");
  PolycOptions o;
  o.parallel = o.vectorize = true;
  o.tune.enabled = true;
  o.tune.cache_dir = dir.path().string();
  o.tune.seconds = 2;
  o.tune.threads = 1;
  const PolycResult r = polyc(kGemm, o);
  ASSERT_EQ(r.scops.size(), 1u);
  const std::string log = joined(r.scops[0].passes);
  EXPECT_NE(log.find("tune: model: "), std::string::npos) << log;
  EXPECT_NE(log.find("tune: source: "), std::string::npos) << log;
  EXPECT_NE(log.find("tune: chose "), std::string::npos) << log;
  EXPECT_EQ(log.find("results differ"), std::string::npos) << log;
  EXPECT_EQ(log.find("does not compile"), std::string::npos) << log;
  const auto run = test_support::compile_and_run(dir.path(), "tuned", r.output + "int main(void) { return 0; }\n", "-O2 -fopenmp");
  EXPECT_TRUE(run.ok) << run.error;

  // Without a value for the time steps the region keeps the model's choice, and says why.
  const PolycResult stencil = polyc(kStencil, o);
  ASSERT_EQ(stencil.warnings.size(), 1u);
  EXPECT_NE(stencil.warnings[0].find("--tune needs a value for tsteps"), std::string::npos) << stencil.warnings[0];
  o.tune.sizes = {{"tsteps", 3}};
  EXPECT_TRUE(polyc(kStencil, o).warnings.empty());
}

}  // namespace
}  // namespace pz::poly
