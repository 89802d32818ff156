// Scheduler behaviour beyond the PyTorch reference numbers: edge cases, warmup conventions,
// composition rules, state handling.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "optim/composite.h"
#include "optim/one_cycle.h"
#include "optim/reduce_on_plateau.h"
#include "optim/scheduler_factory.h"
#include "optim/warmup.h"
#include "util/error.h"

namespace pz::optim {
namespace {

using nlohmann::json;

std::shared_ptr<VectorParamGroups> one_group(double lr = 0.1) {
  return std::make_shared<VectorParamGroups>(std::vector<double>{lr}, MomentumKind::kMomentum, std::vector<double>{0.9});
}

std::vector<double> curve(const json& config, std::int64_t steps, double base = 0.1) {
  std::vector<double> out;
  for (const auto& row : lr_table(config, {base}, steps)) out.push_back(row[0]);
  return out;
}

// Building {"type": alias} must do exactly what {"type": name} does: the same schedule, or
// the same complaint about a missing field.
std::string outcome(const json& config) {
  try {
    return json(lr_table(config, {0.1}, 4)).dump();
  } catch (const util::UsageError& e) {
    return e.what();
  }
}

TEST(Registry, EveryTypeIsReachableByItsNameAndItsPyTorchName) {
  std::set<std::string> names;
  for (const auto& e : scheduler_registry()) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    EXPECT_TRUE(names.insert(e.pytorch).second) << e.pytorch;
    EXPECT_NE(std::string(e.fields), "");
    EXPECT_EQ(outcome({{"type", e.pytorch}}), outcome({{"type", e.name}})) << e.name;
  }
  EXPECT_EQ(scheduler_types().size(), scheduler_registry().size());
  EXPECT_EQ(outcome({{"type", "poly"}}), outcome({{"type", "PolynomialLR"}}));
  EXPECT_NE(outcome({{"type", "poly"}}).find("[[0.1],"), std::string::npos);
}

TEST(Semantics, ConstructionAppliesLrZeroAndStepMovesToLrT) {
  auto g = one_group(0.3);
  auto s = build_scheduler(json{{"type", "linear"}, {"start_factor", 0.5}, {"total_iters", 2}}, g);
  EXPECT_EQ(s->last_epoch(), 0);
  EXPECT_DOUBLE_EQ(g->lr(0), 0.15);
  s->step();
  EXPECT_EQ(s->last_epoch(), 1);
  EXPECT_DOUBLE_EQ(g->lr(0), 0.225);
  EXPECT_EQ(s->base_lrs(), std::vector<double>{0.3});
}

TEST(Semantics, EachGroupUsesItsOwnBaseLr) {
  const auto table = lr_table(json{{"type", "step"}, {"step_size", 1}, {"gamma", 0.5}}, {1.0, 0.01, 4.0}, 3);
  EXPECT_EQ(table[2], (std::vector<double>{0.25, 0.0025, 1.0}));
}

TEST(Poly, PastTheEndStaysAtTheEndLr) {
  const auto lr = curve(json{{"type", "poly"}, {"total_iters", 4}, {"power", 2.0}, {"eta_min", 0.01}}, 12);
  EXPECT_EQ(lr[4], 0.01);
  for (std::size_t t = 4; t < lr.size(); ++t) EXPECT_EQ(lr[t], 0.01) << t;
  const auto plain = curve(json{{"type", "poly"}, {"total_iters", 4}}, 9);
  for (std::size_t t = 4; t < plain.size(); ++t) EXPECT_EQ(plain[t], 0.0) << t;
}

TEST(Poly, PowerZeroIsConstantEvenAtTheEnd) {
  for (double v : curve(json{{"type", "poly"}, {"total_iters", 3}, {"power", 0}}, 8)) EXPECT_EQ(v, 0.1);
}

TEST(Poly, TotalStepsIsAcceptedForTotalIters) {
  EXPECT_EQ(curve(json{{"type", "poly"}, {"total_steps", 5}}, 8), curve(json{{"type", "poly"}, {"total_iters", 5}}, 8));
  EXPECT_EQ(curve(json{{"type", "PolynomialLR"}, {"total_iters", 5}}, 8), curve(json{{"type", "poly"}, {"total_iters", 5}}, 8));
}

TEST(InversePoly, NeverReachesZeroAndHalvesAtTheScaleForPowerOne) {
  const auto lr = curve(json{{"type", "inverse_poly"}, {"decay_steps", 10}, {"power", 1.0}}, 31);
  EXPECT_DOUBLE_EQ(lr[10], 0.05);
  EXPECT_DOUBLE_EQ(lr[30], 0.025);
  const auto sqrt_decay = curve(json{{"type", "inverse_poly"}, {"decay_steps", 100}, {"power", 0.5}}, 101);
  EXPECT_NEAR(sqrt_decay[100], 0.1 / std::sqrt(2.0), 1e-15);
}

TEST(Cosine, IsNotClampedPastTMax) {
  const auto lr = curve(json{{"type", "cosine"}, {"T_max", 4}}, 9);
  EXPECT_NEAR(lr[4], 0.0, 1e-18);
  EXPECT_NEAR(lr[8], 0.1, 1e-15);  // a full period later it is back at the base lr
}

TEST(CosineWarmRestarts, PeriodsGrowByTMult) {
  auto g = one_group();
  CosineAnnealingWarmRestarts s(g, {2, 3, 0.0});
  // periods 2, 6, 18: restarts at t = 2 and 8
  EXPECT_EQ(s.cycle_position(0), (std::pair<std::int64_t, std::int64_t>{0, 2}));
  EXPECT_EQ(s.cycle_position(2), (std::pair<std::int64_t, std::int64_t>{0, 6}));
  EXPECT_EQ(s.cycle_position(7), (std::pair<std::int64_t, std::int64_t>{5, 6}));
  EXPECT_EQ(s.cycle_position(8), (std::pair<std::int64_t, std::int64_t>{0, 18}));
}

TEST(CosineWarmRestarts, PeriodsPastInt64DoNotWrap) {
  // T_0 = 3, T_mult = 2^62: the second period, 3·2^62, is past 2^63 - 1; it wrapped to a
  // negative period and `lr --steps 5` never returned (found by tests/fuzz).
  auto g = one_group();
  CosineAnnealingWarmRestarts s(g, {3, std::int64_t{1} << 62, 0.0});
  constexpr std::int64_t kLongest = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(s.cycle_position(2), (std::pair<std::int64_t, std::int64_t>{2, 3}));
  EXPECT_EQ(s.cycle_position(4), (std::pair<std::int64_t, std::int64_t>{1, kLongest}));
  EXPECT_EQ(s.cycle_position(kLongest), (std::pair<std::int64_t, std::int64_t>{kLongest - 3, kLongest}));
  const auto lr = curve(json{{"type", "cosine_warm_restarts"}, {"T_0", 3}, {"T_mult", std::int64_t{1} << 62}}, 6);
  EXPECT_DOUBLE_EQ(lr[3], 0.1);  // the restart
  EXPECT_NEAR(lr[5], 0.1, 1e-15);  // the endless second period has barely begun
}

TEST(OneCycle, LastStepOvershootsAndTheNextIsAnErrorThatChangesNothing) {
  auto g = one_group();
  auto s = build_scheduler(json{{"type", "one_cycle"}, {"max_lr", 1.0}, {"total_steps", 10}}, g);
  for (int t = 1; t <= 9; ++t) s->step();
  const double at_end = g->lr(0);  // t = N-1: min_lr = 1/25/1e4
  EXPECT_NEAR(at_end, 4e-6, 1e-18);
  s->step();  // t = N is still allowed; pct > 1 brings the cosine back up
  EXPECT_GT(g->lr(0), at_end);
  const double at_n = g->lr(0);
  try {
    s->step();
    FAIL() << "expected an error past total_steps";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("past the end of the cycle: total_steps is 10"), std::string::npos) << e.what();
  }
  EXPECT_EQ(s->last_epoch(), 10);
  EXPECT_EQ(g->lr(0), at_n);
}

TEST(OneCycle, StepsFromEpochsTimesStepsPerEpoch) {
  const json a{{"type", "one_cycle"}, {"max_lr", 0.4}, {"epochs", 3}, {"steps_per_epoch", 7}};
  const json b{{"type", "one_cycle"}, {"max_lr", 0.4}, {"total_steps", 21}};
  EXPECT_EQ(curve(a, 22), curve(b, 22));
}

TEST(OneCycle, MomentumCyclesInverselyToTheLr) {
  auto g = one_group();
  auto s = build_scheduler(json{{"type", "one_cycle"}, {"max_lr", 1.0}, {"total_steps", 10}, {"pct_start", 0.5}}, g);
  EXPECT_DOUBLE_EQ(g->momentum(0), 0.95);
  for (int t = 1; t <= 4; ++t) s->step();  // the peak: pct_start*N - 1 = 4
  EXPECT_DOUBLE_EQ(g->lr(0), 1.0);
  EXPECT_DOUBLE_EQ(g->momentum(0), 0.85);
  for (int t = 5; t <= 9; ++t) s->step();
  EXPECT_DOUBLE_EQ(g->momentum(0), 0.95);
}

TEST(OneCycle, WithoutMomentumCyclingAnyOptimiserWorks) {
  auto g = std::make_shared<VectorParamGroups>(std::vector<double>{0.1});
  EXPECT_NO_THROW(build_scheduler(json{{"type", "one_cycle"}, {"max_lr", 1.0}, {"total_steps", 10}, {"cycle_momentum", false}}, g));
}

TEST(Plateau, StepWithoutMetricIsALogicError) {
  auto g = one_group();
  auto s = build_scheduler(json{{"type", "reduce_on_plateau"}}, g);
  EXPECT_TRUE(s->needs_metric());
  EXPECT_THROW(s->step(), std::logic_error);
  s->step(1.0);
  EXPECT_EQ(s->last_epoch(), 1);
}

TEST(Plateau, NanIsNeverAnImprovement) {
  auto g = one_group();
  ReduceLROnPlateau s(g, {"min", 0.5, 0, 1e-4, "rel", 0, {0.0}, 1e-8});
  s.step(1.0);
  EXPECT_EQ(g->lr(0), 0.1);
  s.step(std::nan(""));
  EXPECT_EQ(g->lr(0), 0.05);
  EXPECT_EQ(s.best(), 1.0);
}

TEST(Plateau, MinLrAndEpsStopTheDecay) {
  auto g = one_group();
  ReduceLROnPlateau s(g, {"min", 0.5, 0, 0, "abs", 0, {0.03}, 1e-8});
  s.step(1);
  for (int i = 0; i < 5; ++i) s.step(1);
  EXPECT_EQ(g->lr(0), 0.03);
}

TEST(Warmup, PrefixShiftsTheMainSchedule) {
  const json poly{{"type", "poly"}, {"total_iters", 10}, {"power", 0.9}};
  json warm = poly;
  warm["warmup"] = {{"type", "linear"}, {"steps", 5}, {"start_factor", 0.2}};
  const auto main = curve(poly, 20);
  const auto lr = curve(warm, 25);
  for (int t = 0; t < 5; ++t) EXPECT_NEAR(lr[t], 0.1 * (0.2 + 0.8 * t / 5.0), 1e-17) << t;
  for (int t = 5; t < 25; ++t) EXPECT_NEAR(lr[t], main[t - 5], 1e-17) << t;
}

TEST(Warmup, EqualToTheScheduleLength) {
  json c{{"type", "poly"}, {"total_iters", 8}, {"power", 1.0}, {"warmup", {{"type", "linear"}, {"steps", 8}, {"start_factor", 0.5}}}};
  const auto lr = curve(c, 20);
  EXPECT_DOUBLE_EQ(lr[7], 0.1 * (0.5 + 0.5 * 7 / 8.0));
  EXPECT_EQ(lr[8], 0.1);
  EXPECT_EQ(lr[16], 0.0);
  EXPECT_EQ(lr[19], 0.0);
  // Overlap convention: the schedule has already ended when the warmup does.
  c["warmup"]["prefix"] = false;
  const auto overlap = curve(c, 12);
  EXPECT_DOUBLE_EQ(overlap[7], 0.1 * (0.5 + 0.5 * 7 / 8.0));
  EXPECT_EQ(overlap[8], 0.0);
}

TEST(Warmup, OverlapRunsTheMainScheduleOnTheAbsoluteStep) {
  const json cosine{{"type", "cosine"}, {"T_max", 20}};
  json warm = cosine;
  warm["warmup"] = {{"type", "exponential"}, {"steps", 4}, {"start_factor", 0.01}, {"prefix", false}};
  const auto main = curve(cosine, 20);
  const auto lr = curve(warm, 20);
  for (int t = 0; t < 4; ++t) EXPECT_DOUBLE_EQ(lr[t], 0.1 * std::pow(0.01, 1.0 - t / 4.0)) << t;
  for (int t = 4; t < 20; ++t) EXPECT_EQ(lr[t], main[t]) << t;
}

TEST(Warmup, ConstantWarmupThenTheMainSchedule) {
  const auto lr = curve(json{{"type", "exponential"}, {"gamma", 0.5}, {"warmup", {{"type", "constant"}, {"steps", 2}, {"factor", 0.1}}}}, 5);
  EXPECT_DOUBLE_EQ(lr[0], 0.01);
  EXPECT_DOUBLE_EQ(lr[1], 0.01);
  EXPECT_DOUBLE_EQ(lr[2], 0.1);
  EXPECT_DOUBLE_EQ(lr[3], 0.05);
}

TEST(Warmup, InFrontOfAPlateauSchedulerPassesMetricsAfterTheWarmup) {
  auto g = one_group();
  auto s = build_scheduler(json{{"type", "reduce_on_plateau"}, {"patience", 0}, {"factor", 0.5},
                                {"warmup", {{"type", "linear"}, {"steps", 2}, {"start_factor", 0.5}}}},
                           g);
  EXPECT_TRUE(s->needs_metric());
  EXPECT_DOUBLE_EQ(g->lr(0), 0.05);
  s->step(9.0);  // t=1: still warming up, metric ignored
  EXPECT_DOUBLE_EQ(g->lr(0), 0.075);
  s->step(9.0);  // t=2: plateau starts from the base lr
  EXPECT_DOUBLE_EQ(g->lr(0), 0.1);
  s->step(1.0);  // first metric: best
  EXPECT_DOUBLE_EQ(g->lr(0), 0.1);
  s->step(2.0);  // worse, patience 0 → halve
  EXPECT_DOUBLE_EQ(g->lr(0), 0.05);
}

TEST(Sequential, RestartsTheNextSchedulerFromTheBaseLr) {
  const auto lr = curve(json{{"type", "sequential"}, {"milestones", {3}},
                             {"schedulers", {{{"type", "exponential"}, {"gamma", 0.5}}, {{"type", "exponential"}, {"gamma", 0.5}}}}},
                        6);
  EXPECT_EQ(lr, (std::vector<double>{0.1, 0.05, 0.025, 0.1, 0.05, 0.025}));
}

TEST(Sequential, NestedCompositeRestartsAsAWhole) {
  const json inner{{"type", "sequential"}, {"milestones", {2}},
                   {"schedulers", {{{"type", "constant"}, {"factor", 0.5}, {"total_iters", 2}}, {{"type", "step"}, {"step_size", 1}, {"gamma", 0.5}}}}};
  const auto lr = curve(json{{"type", "sequential"}, {"milestones", {4}}, {"schedulers", {inner, inner}}}, 8);
  EXPECT_EQ(lr, (std::vector<double>{0.05, 0.05, 0.1, 0.05, 0.05, 0.05, 0.1, 0.05}));
}

TEST(Chained, LrZeroIsEverySchedulersInitialStepInOrder) {
  const auto lr = curve(json{{"type", "chained"}, {"schedulers", {{{"type", "constant"}, {"factor", 0.5}, {"total_iters", 2}},
                                                                   {{"type", "linear"}, {"start_factor", 0.5}, {"total_iters", 2}}}}},
                        4);
  EXPECT_DOUBLE_EQ(lr[0], 0.025);
  EXPECT_DOUBLE_EQ(lr[1], 0.0375);
  EXPECT_DOUBLE_EQ(lr[2], 0.1);
  EXPECT_DOUBLE_EQ(lr[3], 0.1);
}

TEST(State, LoadingIntoADifferentlyConfiguredSchedulerIsRefused) {
  auto g = one_group();
  auto a = build_scheduler(json{{"type", "poly"}, {"total_iters", 10}}, g);
  a->step();
  auto b = build_scheduler(json{{"type", "poly"}, {"total_iters", 20}}, one_group());
  try {
    b->load_state_dict(a->state_dict());
    FAIL();
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("differs from this scheduler's"), std::string::npos) << e.what();
  }
  auto c = build_scheduler(json{{"type", "poly"}, {"total_iters", 10}}, one_group());
  c->load_state_dict(a->state_dict());
  EXPECT_EQ(c->last_epoch(), 1);
}

TEST(State, PlateauCountersAndInfiniteBestSurviveJson) {
  auto g = one_group();
  auto s = build_scheduler(json{{"type", "reduce_on_plateau"}, {"mode", "max"}}, g);
  const json state = json::parse(s->state_dict().dump());
  EXPECT_EQ(state["best"], "-inf");
  auto r = restore_scheduler(state, one_group());
  EXPECT_EQ(dynamic_cast<ReduceLROnPlateau&>(*r).best(), -INFINITY);
}

TEST(State, StateNamesEverythingNeededToResume) {
  auto s = build_scheduler(json{{"type", "sequential"}, {"milestones", {2}},
                                {"schedulers", {{{"type", "linear"}}, {{"type", "reduce_on_plateau"}}}}},
                           one_group());
  const json st = s->state_dict();
  for (const char* key : {"type", "config", "last_epoch", "base_lrs", "last_lr", "schedulers"}) EXPECT_TRUE(st.contains(key)) << key;
  EXPECT_EQ(st["schedulers"][1]["num_bad_epochs"], 0);
}

TEST(LrTable, MetricDrivenScheduleNeedsOneMetricPerStep) {
  try {
    lr_table(json{{"type", "reduce_on_plateau"}}, {0.1}, 5, {1.0, 2.0});
    FAIL();
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("need 4 metric values"), std::string::npos) << e.what();
  }
  EXPECT_EQ(lr_table(json{{"type", "reduce_on_plateau"}, {"patience", 0}}, {0.1}, 3, {1.0, 2.0}).back()[0], 0.1 * 0.1);
}

TEST(LrTable, ValuesPastTheRangeOfADoubleAreUsageErrors) {
  // `lr --json` printed them as null (found by tests/fuzz).
  try {
    lr_table(json{{"type", "exponential"}, {"gamma", 1e308}}, {1.0}, 5);
    FAIL();
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("lr(2) is inf: the 'exponential' schedule leaves the range of a double"),
              std::string::npos)
        << e.what();
  }
  try {
    lr_table(json{{"type", "one_cycle"}, {"max_lr", json::array({1.0, 1e308})}, {"total_steps", 10}, {"div_factor", 1e-308}},
             {1.0, 1.0}, 3);
    FAIL();
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("lr(0) of group 1 is inf"), std::string::npos) << e.what();
  }
  EXPECT_EQ(lr_table(json{{"type", "exponential"}, {"gamma", 1e-300}}, {1.0}, 4).back()[0], 0.0);  // underflow is fine
}

TEST(Groups, SchedulerNoticesParamGroupsAddedLater) {
  struct Growing : ParamGroups {
    std::vector<double> lrs{0.1};
    std::size_t size() const override { return lrs.size(); }
    double lr(std::size_t g) const override { return lrs.at(g); }
    void set_lr(std::size_t g, double v) override { lrs.at(g) = v; }
  };
  auto g = std::make_shared<Growing>();
  auto s = build_scheduler(json{{"type", "exponential"}, {"gamma", 0.5}}, g);
  g->lrs.push_back(0.2);
  EXPECT_THROW(s->step(), util::UsageError);
}

}  // namespace
}  // namespace pz::optim
