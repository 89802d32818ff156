// Invalid configs: one test per kind of mistake, each checking that the message names the
// field and says what would be accepted.
#include <gtest/gtest.h>

#include "optim/optimizer_config.h"
#include "optim/scheduler_factory.h"
#include "util/error.h"

namespace pz::optim {
namespace {

using nlohmann::json;

std::string scheduler_error(const json& config, std::size_t groups = 1, MomentumKind kind = MomentumKind::kMomentum) {
  auto g = std::make_shared<VectorParamGroups>(std::vector<double>(groups, 0.1), kind);
  SchedulerContext ctx;
  ctx.lambdas["warm"] = [](std::int64_t) { return 1.0; };
  try {
    build_scheduler(config, g, ctx);
  } catch (const util::UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for " << config.dump();
  return "";
}

std::string optimizer_error(const json& config) {
  try {
    parse_optimizer_config(config);
  } catch (const util::UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for " << config.dump();
  return "";
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << "message: " << (text)

TEST(SchedulerConfigErrors, NotAnObject) {
  const auto e = scheduler_error(json::array({1, 2}));
  EXPECT_HAS(e, "scheduler: must be a JSON object");
  EXPECT_HAS(e, "got an array");
}

TEST(SchedulerConfigErrors, MissingType) {
  EXPECT_HAS(scheduler_error(json{{"total_iters", 3}}), "scheduler.type: is required");
}

TEST(SchedulerConfigErrors, UnknownTypeListsTheTypes) {
  const auto e = scheduler_error(json{{"type", "cosin"}});
  EXPECT_HAS(e, "scheduler.type: unknown scheduler \"cosin\"");
  EXPECT_HAS(e, "poly, inverse_poly, linear, constant, step, multistep, exponential, cosine, cosine_warm_restarts");
  EXPECT_HAS(e, "PolynomialLR");
}

TEST(SchedulerConfigErrors, UnknownFieldListsTheAllowedOnes) {
  const auto e = scheduler_error(json{{"type", "poly"}, {"total_iters", 10}, {"powr", 2}});
  EXPECT_HAS(e, "unknown field 'powr' for scheduler 'poly'");
  EXPECT_HAS(e, "allowed fields: type, chainable, warmup, total_iters, total_steps, power, eta_min");
}

TEST(SchedulerConfigErrors, WrongJsonTypeForANumber) {
  const auto e = scheduler_error(json{{"type", "exponential"}, {"gamma", "0.9"}});
  EXPECT_HAS(e, "scheduler.gamma: must be a number >= 0, got a string \"0.9\"");
}

TEST(SchedulerConfigErrors, NumberOutOfRange) {
  EXPECT_HAS(scheduler_error(json{{"type", "poly"}, {"power", -1}}), "scheduler.power: must be a number >= 0, got -1");
  EXPECT_HAS(scheduler_error(json{{"type", "linear"}, {"start_factor", 0}}),
             "scheduler.start_factor: must be a number in (0, 1], got 0");
  EXPECT_HAS(scheduler_error(json{{"type", "reduce_on_plateau"}, {"factor", 1.0}}),
             "scheduler.factor: must be a number in [0, 1), got 1.0");
}

TEST(SchedulerConfigErrors, FractionalInteger) {
  EXPECT_HAS(scheduler_error(json{{"type", "poly"}, {"total_iters", 2.5}}),
             "scheduler.total_iters: must be an integer >= 1, got 2.5");
  EXPECT_HAS(scheduler_error(json{{"type", "poly"}, {"total_iters", 0}}), "must be an integer >= 1, got 0");
}

TEST(SchedulerConfigErrors, MissingRequiredField) {
  EXPECT_HAS(scheduler_error(json{{"type", "step"}}), "scheduler.step_size: is required (an integer >= 1)");
  EXPECT_HAS(scheduler_error(json{{"type", "one_cycle"}, {"total_steps", 10}}), "scheduler.max_lr: is required");
}

TEST(SchedulerConfigErrors, BadChoice) {
  const auto e = scheduler_error(json{{"type", "one_cycle"}, {"max_lr", 1}, {"total_steps", 10}, {"anneal_strategy", "cosine"}});
  EXPECT_HAS(e, "scheduler.anneal_strategy: must be one of \"cos\", \"linear\", got \"cosine\"");
}

TEST(SchedulerConfigErrors, RepeatedMilestone) {
  const auto e = scheduler_error(json{{"type", "multistep"}, {"milestones", {3, 5, 5}}});
  EXPECT_HAS(e, "scheduler.milestones[2]: milestone 5 is repeated");
}

TEST(SchedulerConfigErrors, UnsortedMilestones) {
  const auto e = scheduler_error(json{{"type", "multistep"}, {"milestones", {10, 4}}});
  EXPECT_HAS(e, "scheduler.milestones[1]: milestones must be sorted in increasing order: 4 comes after 10");
}

TEST(SchedulerConfigErrors, MilestonesNotAList) {
  EXPECT_HAS(scheduler_error(json{{"type", "multistep"}, {"milestones", 5}}),
             "scheduler.milestones: must be a list of integers >= 0, got a number 5");
}

TEST(SchedulerConfigErrors, SequentialMilestoneCount) {
  const auto e = scheduler_error(json{{"type", "sequential"}, {"milestones", {2, 4}},
                                      {"schedulers", {{{"type", "linear"}}, {{"type", "exponential"}, {"gamma", 0.9}}}}});
  EXPECT_HAS(e, "scheduler.milestones: has 2 value(s) but 2 schedulers need 1");
}

TEST(SchedulerConfigErrors, SequentialMilestoneZeroOrDecreasing) {
  const json two{{{"type", "linear"}}, {{"type", "linear"}}, {{"type", "linear"}}};
  EXPECT_HAS(scheduler_error(json{{"type", "sequential"}, {"milestones", {0, 3}}, {"schedulers", two}}),
             "scheduler.milestones[0]: must be an integer >= 1, got 0");
  EXPECT_HAS(scheduler_error(json{{"type", "sequential"}, {"milestones", {5, 3}}, {"schedulers", two}}),
             "scheduler.milestones[1]: milestones must be strictly increasing: 3 comes after 5");
}

TEST(SchedulerConfigErrors, NestedErrorsGiveTheFullPath) {
  const auto e = scheduler_error(json{{"type", "sequential"}, {"milestones", {2}},
                                      {"schedulers", {{{"type", "linear"}}, {{"type", "exponential"}, {"gamma", -0.5}}}}});
  EXPECT_HAS(e, "scheduler.schedulers[1].gamma: must be a number >= 0, got -0.5");
}

TEST(SchedulerConfigErrors, PerGroupListOfTheWrongLength) {
  const auto e = scheduler_error(json{{"type", "one_cycle"}, {"max_lr", {1.0, 0.5, 0.1}}, {"total_steps", 10}}, 2);
  EXPECT_HAS(e, "scheduler.max_lr: has 3 values but the optimiser has 2 param group(s)");
}

TEST(SchedulerConfigErrors, BothSpellingsOfTheLength) {
  EXPECT_HAS(scheduler_error(json{{"type", "poly"}, {"total_iters", 3}, {"total_steps", 3}}),
             "give total_iters (PyTorch's name) or total_steps, not both");
  EXPECT_HAS(scheduler_error(json{{"type", "one_cycle"}, {"max_lr", 1}, {"total_steps", 3}, {"epochs", 2}}),
             "give total_steps, or epochs and steps_per_epoch, not both");
}

TEST(SchedulerConfigErrors, WarmupMistakes) {
  EXPECT_HAS(scheduler_error(json{{"type", "poly"}, {"warmup", {{"type", "cubic"}, {"steps", 3}}}}),
             "scheduler.warmup.type: must be one of \"linear\", \"constant\", \"exponential\", got \"cubic\"");
  EXPECT_HAS(scheduler_error(json{{"type", "poly"}, {"warmup", {{"type", "linear"}}}}),
             "scheduler.warmup.steps: is required (an integer >= 1)");
  EXPECT_HAS(scheduler_error(json{{"type", "poly"}, {"warmup", {{"type", "constant"}, {"steps", 3}, {"start_factor", 0.1}}}}),
             "unknown field 'start_factor' for warmup of type 'constant'; allowed fields: type, steps, factor, prefix");
  EXPECT_HAS(scheduler_error(json{{"type", "poly"}, {"warmup", 5}}), "scheduler.warmup: must be a JSON object");
}

TEST(SchedulerConfigErrors, OverlapWarmupNeedsAClosedFormSchedule) {
  const auto e = scheduler_error(json{{"type", "poly"}, {"chainable", true},
                                      {"warmup", {{"type", "linear"}, {"steps", 3}, {"prefix", false}}}});
  EXPECT_HAS(e, "scheduler.warmup.prefix: false runs the main schedule underneath the warmup");
}

TEST(SchedulerConfigErrors, ChainedRejectsPlateauAndNonChainableChildren) {
  EXPECT_HAS(scheduler_error(json{{"type", "chained"}, {"schedulers", {{{"type", "reduce_on_plateau"}}}}}),
             "scheduler.schedulers[0]: 'reduce_on_plateau' needs a metric each step");
  EXPECT_HAS(scheduler_error(json{{"type", "chained"}, {"schedulers", {{{"type", "linear"}, {"chainable", false}}}}}),
             "scheduler.schedulers[0].chainable: must be true inside \"chained\"");
  EXPECT_HAS(scheduler_error(json{{"type", "chained"}, {"schedulers", json::array()}}),
             "scheduler.schedulers: needs at least one scheduler");
}

TEST(SchedulerConfigErrors, OneCyclePhaseOfZeroLength) {
  // pct_start·N - 1 = 0: PyTorch would divide 0 by 0 at step 0.
  const auto e = scheduler_error(json{{"type", "one_cycle"}, {"max_lr", 1}, {"total_steps", 10}, {"pct_start", 0.1}});
  EXPECT_HAS(e, "one_cycle: phase 1 has zero length");
  EXPECT_HAS(e, "change pct_start or total_steps");
}

TEST(SchedulerConfigErrors, OneCycleEpochsTimesStepsPastInt64) {
  // 2^32 · 2^32 wrapped to 0 and 3037000500² to a negative step count (found by tests/fuzz).
  EXPECT_HAS(scheduler_error(json{{"type", "one_cycle"}, {"max_lr", 1}, {"epochs", 4294967296LL}, {"steps_per_epoch", 4294967296LL}}),
             "one_cycle: epochs * steps_per_epoch (4294967296 * 4294967296) is more than 2^63 - 1 steps");
  EXPECT_HAS(scheduler_error(json{{"type", "one_cycle"}, {"max_lr", 1}, {"epochs", 3037000500LL}, {"steps_per_epoch", 3037000500LL}}),
             "is more than 2^63 - 1 steps");
}

TEST(SchedulerConfigErrors, OneCycleMomentumWithoutMomentum) {
  const auto e = scheduler_error(json{{"type", "one_cycle"}, {"max_lr", 1}, {"total_steps", 10}}, 1, MomentumKind::kNone);
  EXPECT_HAS(e, "cycle_momentum needs an optimiser with momentum (sgd) or betas (adam, adamw)");
  EXPECT_HAS(e, "\"cycle_momentum\": false");
}

TEST(SchedulerConfigErrors, ConstantFactorZeroInChainableMode) {
  EXPECT_HAS(scheduler_error(json{{"type", "constant"}, {"factor", 0}, {"chainable", true}}),
             "scheduler.factor: 0 is not allowed with \"chainable\": true");
}

TEST(SchedulerConfigErrors, UnknownLambda) {
  const auto e = scheduler_error(json{{"type", "lambda"}, {"lr_lambda", "cool"}});
  EXPECT_HAS(e, "scheduler.lr_lambda: unknown function \"cool\"; registered: warm");
}

TEST(SchedulerConfigErrors, ChainableMustBeABoolean) {
  EXPECT_HAS(scheduler_error(json{{"type", "poly"}, {"chainable", "yes"}}),
             "scheduler.chainable: must be true or false, got a string \"yes\"");
}

TEST(OptimizerConfigErrors, UnknownType) {
  EXPECT_HAS(optimizer_error(json{{"type", "lamb"}, {"lr", 0.1}}),
             "optimizer.type: must be one of \"sgd\", \"adam\", \"adamw\", got \"lamb\"");
}

TEST(OptimizerConfigErrors, SgdNeedsALearningRate) {
  EXPECT_HAS(optimizer_error(json{{"type", "sgd"}}), "optimizer.lr: is required");
}

TEST(OptimizerConfigErrors, NesterovWithoutMomentum) {
  EXPECT_HAS(optimizer_error(json{{"type", "sgd"}, {"lr", 0.1}, {"nesterov", true}}),
             "optimizer.nesterov: needs momentum > 0 and dampening 0 (got momentum 0, dampening 0)");
}

TEST(OptimizerConfigErrors, OptionOfAnotherOptimiser) {
  EXPECT_HAS(optimizer_error(json{{"type", "adam"}, {"momentum", 0.9}}),
             "unknown field 'momentum' for optimiser 'adam'; allowed fields: type, lr, weight_decay, betas, eps, amsgrad");
}

TEST(OptimizerConfigErrors, BadBetas) {
  EXPECT_HAS(optimizer_error(json{{"type", "adamw"}, {"betas", {0.9, 1.0}}}),
             "optimizer.betas: must be [beta1, beta2], two numbers in [0, 1), got [0.9,1.0]");
}

TEST(OptimizerConfigErrors, ParamGroupRuleWithoutSelector) {
  EXPECT_HAS(optimizer_error(json{{"type", "sgd"}, {"lr", 0.1}, {"param_groups", {{{"weight_decay", 0}}}}}),
             "optimizer.param_groups[0].match: a param group rule needs \"match\"");
}

TEST(OptimizerConfigErrors, ParamGroupRuleWithAnUnknownOption) {
  EXPECT_HAS(optimizer_error(json{{"type", "sgd"}, {"lr", 0.1}, {"param_groups", {{{"max_ndim", 1}, {"weight_decy", 0}}}}}),
             "optimizer.param_groups[0]: unknown field 'weight_decy'");
}

TEST(OptimizerConfigErrors, ClipNormMustBePositive) {
  EXPECT_HAS(optimizer_error(json{{"type", "sgd"}, {"lr", 0.1}, {"clip_grad_norm", 0}}),
             "optimizer.clip_grad_norm: must be a number > 0, got 0");
}

TEST(OptimizerConfigErrors, RuleThatSelectsNothing) {
  const auto config = parse_optimizer_config(json{{"type", "sgd"}, {"lr", 0.1}, {"param_groups", {{{"match", "*.gamma"}}}}});
  try {
    assign_param_groups(config, {{"fc.weight", 2}, {"fc.bias", 1}});
    FAIL();
  } catch (const util::UsageError& e) {
    EXPECT_HAS(std::string(e.what()), "optimizer.param_groups[0]: selects no parameter");
    EXPECT_HAS(std::string(e.what()), "fc.weight (2-d), fc.bias (1-d)");
  }
}

}  // namespace
}  // namespace pz::optim
