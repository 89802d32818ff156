// The optimiser config without torch: defaults, per-group rules, glob matching, group order.
#include <gtest/gtest.h>

#include "optim/optimizer_config.h"

namespace pz::optim {
namespace {

using nlohmann::json;

TEST(GlobMatch, StarsAndQuestionMarks) {
  EXPECT_TRUE(glob_match("*.bias", "layer1.conv.bias"));
  EXPECT_FALSE(glob_match("*.bias", "layer1.conv.weight"));
  EXPECT_TRUE(glob_match("*norm*", "tower.0.batchnorm.weight"));
  EXPECT_TRUE(glob_match("fc?.weight", "fc2.weight"));
  EXPECT_FALSE(glob_match("fc?.weight", "fc12.weight"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("a*b*c", "axxbyyc"));
  EXPECT_FALSE(glob_match("a*b*c", "axxbyy"));
}

TEST(OptimizerConfig, DefaultsPerType) {
  const auto sgd = parse_optimizer_config(json{{"type", "sgd"}, {"lr", 0.1}});
  EXPECT_EQ(sgd.options.momentum, 0.0);
  EXPECT_FALSE(sgd.clip_grad_norm);
  const auto adamw = parse_optimizer_config(json{{"type", "adamw"}});
  EXPECT_EQ(adamw.options.lr, 1e-3);
  EXPECT_EQ(adamw.options.weight_decay, 1e-2);
  EXPECT_EQ(adamw.options.beta2, 0.999);
  const auto adam = parse_optimizer_config(json{{"type", "adam"}, {"betas", {0.8, 0.99}}, {"clip_grad_norm", 5}});
  EXPECT_EQ(adam.options.weight_decay, 0.0);
  EXPECT_EQ(adam.options.beta1, 0.8);
  EXPECT_EQ(*adam.clip_grad_norm, 5.0);
}

TEST(OptimizerConfig, RulesInheritAndOverride) {
  const auto c = parse_optimizer_config(json{{"type", "sgd"}, {"lr", 0.1}, {"momentum", 0.9}, {"nesterov", true},
                                             {"weight_decay", 1e-4},
                                             {"param_groups", {{{"max_ndim", 1}, {"weight_decay", 0}},
                                                               {{"match", {"head.*"}}, {"lr", 0.01}}}}});
  ASSERT_EQ(c.param_groups.size(), 2u);
  EXPECT_EQ(c.param_groups[0].options.weight_decay, 0.0);
  EXPECT_EQ(c.param_groups[0].options.momentum, 0.9);
  EXPECT_TRUE(c.param_groups[0].options.nesterov);
  EXPECT_EQ(c.param_groups[1].options.lr, 0.01);
  EXPECT_EQ(c.param_groups[1].options.weight_decay, 1e-4);
  EXPECT_EQ(parse_optimizer_config(c.to_json()).to_json(), c.to_json());
}

TEST(OptimizerConfig, GroupOrderIsUnmatchedFirstThenRules) {
  const auto c = parse_optimizer_config(json{{"type", "sgd"}, {"lr", 0.1},
                                             {"param_groups", {{{"max_ndim", 1}, {"weight_decay", 0}},
                                                               {{"match", "head.*"}, {"lr", 0.01}}}}});
  const std::vector<ParamInfo> params{{"conv.weight", 4}, {"conv.bias", 1}, {"bn.weight", 1}, {"head.weight", 2},
                                      {"head.bias", 1}};
  const auto a = assign_param_groups(c, params);
  ASSERT_EQ(a.members.size(), 3u);
  EXPECT_EQ(a.members[0], (std::vector<std::size_t>{0}));        // conv.weight
  EXPECT_EQ(a.members[1], (std::vector<std::size_t>{1, 2, 4}));  // every 1-d parameter, head.bias included
  EXPECT_EQ(a.members[2], (std::vector<std::size_t>{3}));        // head.weight
  EXPECT_EQ(a.rule, (std::vector<int>{-1, 0, 1}));
}

TEST(OptimizerConfig, MatchAndMaxNdimTogetherMustBothHold) {
  const auto c = parse_optimizer_config(json{{"type", "sgd"}, {"lr", 0.1},
                                             {"param_groups", {{{"match", "head.*"}, {"max_ndim", 1}}}}});
  const auto a = assign_param_groups(c, {{"head.weight", 2}, {"head.bias", 1}, {"x.bias", 1}});
  EXPECT_EQ(a.members[1], (std::vector<std::size_t>{1}));
}

TEST(OptimizerConfig, NoUnmatchedGroupWhenRulesTakeEverything) {
  const auto c = parse_optimizer_config(json{{"type", "sgd"}, {"lr", 0.1}, {"param_groups", {{{"match", "*"}}}}});
  const auto a = assign_param_groups(c, {{"a", 1}, {"b", 2}});
  ASSERT_EQ(a.members.size(), 1u);
  EXPECT_EQ(a.rule[0], 0);
}

}  // namespace
}  // namespace pz::optim
