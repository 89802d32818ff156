#include "mcts/selfplay.h"

#include <gtest/gtest.h>

#include <cmath>

#include "games/registry.h"
#include "solve/minimax_solver.h"

namespace pz::mcts {
namespace {

SelfPlayConfig small_config() {
  SelfPlayConfig c;
  c.search.root_noise = true;
  c.search.forced_playouts = true;
  c.full_simulations = 64;
  c.games_per_actor = 4;
  c.resign = false;
  return c;
}

TEST(SelfPlay, LockstepActorPlaysCompleteGames) {
  auto game = games::make_game("tictactoe");
  RolloutEvaluator evaluator(1, 1);
  SelfPlayActor actor(*game, small_config(), evaluator, 7);
  std::vector<GameRecord> records;
  actor.play(6, [&](GameRecord&& r) { records.push_back(std::move(r)); });
  ASSERT_EQ(records.size(), 6u);
  for (const auto& r : records) {
    auto state = game->new_initial_state();
    for (games::Action a : r.actions) state->apply_checked(a);
    EXPECT_TRUE(state->is_terminal());
    EXPECT_EQ(state->returns(), r.returns);
    EXPECT_EQ(r.samples.size(), r.actions.size());
    for (const auto& s : r.samples) {
      double sum = 0;
      for (const auto& [a, p] : s.policy) sum += p;
      EXPECT_NEAR(sum, 1.0, 1e-5);
      EXPECT_TRUE(s.full_search);
    }
  }
  // One evaluator call served a leaf of every running game.
  EXPECT_GT(static_cast<double>(actor.leaves_evaluated()) / static_cast<double>(actor.evaluator_calls()), 2.0);
}

TEST(SelfPlay, ProvenRootsGiveTheirExactValueAsTheSearchValue) {
  auto game = games::make_game("tictactoe");
  UniformEvaluator evaluator;
  SelfPlayActor actor(*game, small_config(), evaluator, 5);
  solve::MinimaxSolver solver(*game);
  int late = 0;
  actor.play(8, [&](GameRecord&& r) {
    for (const auto& s : r.samples) {
      if (s.move_number < 6) continue;  // three empty squares or fewer: 64 simulations prove the root
      ++late;
      EXPECT_EQ(s.root_value, solver.solve(*game->deserialize(s.state), solve::SolveOptions{}).value) << "move " << s.move_number;
    }
  });
  EXPECT_GT(late, 0);
}

TEST(SelfPlay, PlayoutCapRandomisation) {
  auto game = games::make_game("connect4");
  UniformEvaluator evaluator;
  SelfPlayConfig c = small_config();
  c.fast_simulations = 8;
  c.full_search_probability = 0.25;
  SelfPlayActor actor(*game, c, evaluator, 3);
  int full = 0, fast = 0;
  actor.play(4, [&](GameRecord&& r) {
    for (const auto& s : r.samples) {
      if (s.full_search) {
        ++full;
        EXPECT_FALSE(s.policy.empty());
      } else {
        ++fast;
        EXPECT_TRUE(s.policy.empty());  // fast moves are not policy targets
      }
    }
  });
  const double share = static_cast<double>(full) / (full + fast);
  EXPECT_NEAR(share, 0.25, 0.12);
}

TEST(SelfPlay, ResignationAndNoResignGames) {
  auto game = games::make_game("connect4");
  RolloutEvaluator evaluator(2, 5);
  SelfPlayConfig c = small_config();
  c.full_simulations = 100;
  c.resign = true;
  c.resign_threshold = -0.5;
  c.resign_consecutive = 2;
  c.no_resign_fraction = 0.3;
  SelfPlayActor actor(*game, c, evaluator, 11);
  int resigned = 0, no_resign = 0;
  actor.play(16, [&](GameRecord&& r) {
    if (r.resigned >= 0) {
      ++resigned;
      EXPECT_FALSE(r.no_resign);
      EXPECT_EQ(r.returns[static_cast<std::size_t>(r.resigned)], -1.0);
      auto state = game->new_initial_state();
      for (games::Action a : r.actions) state->apply_checked(a);
      EXPECT_FALSE(state->is_terminal());
    }
    if (r.no_resign) {
      ++no_resign;
      EXPECT_EQ(r.resigned, -1);
    }
  });
  EXPECT_GT(resigned, 0);
  EXPECT_GT(no_resign, 0);
}

TEST(SelfPlay, ThreadsShareOneBatchingQueue) {
  auto game = games::make_game("tictactoe");
  UniformEvaluator evaluator;
  int games = 0;
  run_selfplay(*game, small_config(), evaluator, 2, 8, 1, [&](GameRecord&& r) {
    ++games;
    EXPECT_FALSE(r.samples.empty());
  });
  EXPECT_EQ(games, 8);
}

}  // namespace
}  // namespace pz::mcts
