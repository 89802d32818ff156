#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "games/registry.h"
#include "mcts/dirichlet.h"
#include "mcts/move_choice.h"
#include "mcts/search.h"

namespace pz::mcts {
namespace {

TEST(Dirichlet, MomentsMatch) {
  util::Rng rng(5);
  for (double alpha : {0.03, 0.3, 1.0, 3.0}) {
    constexpr int kDims = 4, kDraws = 20000;
    std::vector<double> mean(kDims, 0), x(kDims);
    double var0 = 0;
    for (int i = 0; i < kDraws; ++i) {
      sample_dirichlet(alpha, x, rng);
      EXPECT_NEAR(std::accumulate(x.begin(), x.end(), 0.0), 1.0, 1e-9);
      for (int d = 0; d < kDims; ++d) mean[static_cast<std::size_t>(d)] += x[static_cast<std::size_t>(d)] / kDraws;
      var0 += (x[0] - 0.25) * (x[0] - 0.25) / kDraws;
    }
    for (double m : mean) EXPECT_NEAR(m, 0.25, 0.015) << alpha;
    // Var[x_i] = (1/K)(1 - 1/K) / (K·alpha + 1).
    EXPECT_NEAR(var0, 0.1875 / (kDims * alpha + 1), 0.1 * 0.1875 / (kDims * alpha + 1)) << alpha;
  }
}

TEST(RootNoise, MixesDirichletIntoThePriors) {
  auto game = games::make_game("connect4");
  UniformEvaluator evaluator;
  SearchConfig c;
  c.simulations = 50;
  c.root_noise = true;
  c.noise_fraction = 0.25;
  Search search(*game, c, 9);
  search.set_root(*game->new_initial_state());
  const SearchReport report = search.run(evaluator);
  double sum = 0, min_prior = 1;
  bool differs = false;
  for (const auto& child : report.children) {
    sum += child.prior;
    min_prior = std::min<double>(min_prior, child.prior);
    differs |= std::abs(child.prior - 1.0 / 7) > 1e-4;
  }
  EXPECT_NEAR(sum, 1.0, 1e-5);
  EXPECT_TRUE(differs);
  EXPECT_GE(min_prior, 0.75 / 7 - 1e-6);  // noise takes at most a quarter of each prior

  // Same seed, same noise; noise off, priors untouched.
  Search again(*game, c, 9);
  again.set_root(*game->new_initial_state());
  const SearchReport repeat = again.run(evaluator);
  for (std::size_t i = 0; i < report.children.size(); ++i) EXPECT_EQ(report.children[i].prior, repeat.children[i].prior);
  c.root_noise = false;
  Search quiet(*game, c, 9);
  quiet.set_root(*game->new_initial_state());
  for (const auto& child : quiet.run(evaluator).children) EXPECT_NEAR(child.prior, 1.0 / 7, 1e-6);
}

TEST(RootNoise, NoisesAReusedRootOnceAndItsChildrenNever) {
  auto game = games::make_game("connect4");
  UniformEvaluator evaluator;
  SearchConfig c;
  c.simulations = 400;
  c.root_noise = true;
  Search search(*game, c, 3);
  auto state = game->new_initial_state();
  search.set_root(*state);
  search.run(evaluator);
  const SearchReport first = search.report();
  // Searching the same root again does not add noise on top of noise.
  search.run(evaluator);
  const SearchReport second = search.report();
  for (std::size_t i = 0; i < first.children.size(); ++i) EXPECT_EQ(first.children[i].prior, second.children[i].prior);
  // The child's priors were uniform; once it is the root they get their own noise.
  const games::Action move = first.most_visited()->action;
  const Node* child_node = nullptr;
  for (int i = 0; i < search.root_node()->num_children; ++i) {
    if (search.root_node()->children[i].action == move) child_node = search.root_node()->children + i;
  }
  ASSERT_TRUE(child_node && child_node->is_expanded());
  for (int i = 0; i < child_node->num_children; ++i) EXPECT_NEAR(child_node->children[i].prior, 1.0 / 7, 1e-6);
  search.advance(move);
  search.run(evaluator);
  bool differs = false;
  for (const auto& child : search.report().children) differs |= std::abs(child.prior - 1.0 / 7) > 1e-4;
  EXPECT_TRUE(differs);
}

SearchReport made_up_report(const std::vector<int>& visits) {
  SearchReport r;
  for (std::size_t i = 0; i < visits.size(); ++i) {
    ChildReport c;
    c.action = static_cast<games::Action>(i);
    c.visits = visits[i];
    c.prior = 1.0f / static_cast<float>(visits.size());
    r.children.push_back(c);
  }
  return r;
}

TEST(Temperature, ZeroPicksTheMostVisited) {
  const SearchReport r = made_up_report({10, 50, 40});
  util::Rng rng(1);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(choose_move(r, MoveSelection{}, 0, rng), 1);
}

TEST(Temperature, SamplesVisitsToThePowerOneOverT) {
  const SearchReport r = made_up_report({10, 50, 40});
  util::Rng rng(2);
  for (double t : {1.0, 0.5}) {
    MoveSelection s;
    s.temperature.initial = t;
    s.temperature.moves = 100;
    std::vector<int> counts(3, 0);
    constexpr int kDraws = 20000;
    for (int i = 0; i < kDraws; ++i) ++counts[static_cast<std::size_t>(choose_move(r, s, 5, rng))];
    double z = 0;
    for (int v : {10, 50, 40}) z += std::pow(v, 1 / t);
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(counts[static_cast<std::size_t>(i)] / static_cast<double>(kDraws), std::pow(std::vector<int>{10, 50, 40}[static_cast<std::size_t>(i)], 1 / t) / z, 0.015)
          << "T=" << t;
    }
  }
}

TEST(Temperature, Schedules) {
  TemperatureSchedule step{1.0, 0.0, 10, 0.0};
  EXPECT_EQ(step.at(0), 1.0);
  EXPECT_EQ(step.at(9), 1.0);
  EXPECT_EQ(step.at(10), 0.0);
  TemperatureSchedule decay{0.8, 0.2, 0, 10.0};
  EXPECT_DOUBLE_EQ(decay.at(0), 0.8);
  EXPECT_DOUBLE_EQ(decay.at(10), 0.5);
  EXPECT_NEAR(decay.at(200), 0.2, 1e-6);
  // After the schedule ends the move is the most visited again.
  MoveSelection s;
  s.temperature = step;
  util::Rng rng(3);
  const SearchReport r = made_up_report({10, 50, 40});
  for (int i = 0; i < 10; ++i) EXPECT_EQ(choose_move(r, s, 10, rng), 1);
}

TEST(PolicyTarget, VisitDistributionAndPruningOfForcedPlayouts) {
  auto game = games::make_game("connect4");
  RolloutEvaluator evaluator(1, 8);
  SearchConfig c;
  c.simulations = 800;
  c.root_noise = true;
  c.forced_playouts = true;
  Search search(*game, c, 8);
  search.set_root(*game->new_initial_state());
  const SearchReport report = search.run(evaluator);
  // Every child got its forced share: sqrt(k · P · N).
  for (const auto& child : report.children) {
    EXPECT_GE(child.visits + 1, std::floor(std::sqrt(2.0 * child.prior * (report.root_visits - 1)) - 1)) << child.action;
  }
  const auto raw = policy_target(report, c, false);
  const auto pruned = policy_target(report, c, true);
  double raw_sum = 0, pruned_sum = 0;
  const games::Action best = report.most_visited()->action;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    raw_sum += raw[i].second;
    pruned_sum += pruned[i].second;
    if (raw[i].first == best) {
      EXPECT_GE(pruned[i].second, raw[i].second);  // the best keeps its visits, so its share grows
    }
    EXPECT_NEAR(raw[i].second, static_cast<double>(report.children[i].visits) / (report.root_visits - 1), 1e-5);
  }
  EXPECT_NEAR(raw_sum, 1.0, 1e-5);
  EXPECT_NEAR(pruned_sum, 1.0, 1e-5);
}

}  // namespace
}  // namespace pz::mcts
