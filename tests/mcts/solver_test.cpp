#include <gtest/gtest.h>

#include "games/registry.h"
#include "mcts/move_choice.h"
#include "mcts/search.h"
#include "test_games.h"

namespace pz::mcts {
namespace {

using testing::play;

// Counts the positions it is asked for; uniform priors, value 0.
class CountingUniform final : public Evaluator {
 public:
  void evaluate(std::span<const EvalRequest> batch) override {
    positions += static_cast<int>(batch.size());
    inner_.evaluate(batch);
  }
  int positions = 0;

 private:
  UniformEvaluator inner_;
};

// A confident and wrong network: 90% of the prior on one column wherever it is legal, value 0.
class FavouriteColumnEvaluator final : public Evaluator {
 public:
  explicit FavouriteColumnEvaluator(games::Action favourite) : favourite_(favourite) {}
  void evaluate(std::span<const EvalRequest> batch) override {
    for (const EvalRequest& r : batch) {
      const auto n = r.legal.size();
      bool has = false;
      for (games::Action a : r.legal) has |= a == favourite_;
      for (std::size_t i = 0; i < n; ++i) {
        r.priors[i] = !has ? 1.0f / static_cast<float>(n)
                           : r.legal[i] == favourite_ ? 0.9f : 0.1f / static_cast<float>(n - 1);
      }
      r.values[0] = r.values[1] = 0.0f;
    }
  }

 private:
  games::Action favourite_;
};

SearchReport search_from(const games::Game& game, const games::State& state, Evaluator& evaluator, int simulations,
                         bool check_immediate_wins = true, std::uint64_t seed = 1) {
  SearchConfig c;
  c.simulations = simulations;
  c.check_immediate_wins = check_immediate_wins;
  Search search(game, c, seed);
  search.set_root(state);
  return search.run(evaluator);
}

TEST(Solver, ImmediateWinProvesThePositionWithoutAnEvaluation) {
  auto game = games::make_game("tictactoe");
  auto state = play(*game, "1 4 2 5");  // X to move wins at 3
  CountingUniform evaluator;
  const SearchReport report = search_from(*game, *state, evaluator, 100);
  EXPECT_TRUE(report.root_proven);
  EXPECT_EQ(report.root_proven_value, 1.0);
  EXPECT_EQ(evaluator.positions, 0);
  EXPECT_EQ(report.children.size(), 5u);  // every legal move is still a child
  util::Rng rng(1);
  EXPECT_EQ(choose_move(report, MoveSelection{}, state->move_number(), rng), 2);
  // The training target is the win, though no simulation went through it.
  for (const auto& [action, p] : policy_target(report, SearchConfig{}, false)) EXPECT_EQ(p, action == 2 ? 1.0f : 0.0f);
}

TEST(Solver, ImmediateWinCheckFindsTheReplyALowPriorHides) {
  // Connect Four, X to move: O holds the bottom of columns 4, 5 and 6 and wins in column 7
  // unless X blocks there. The evaluator puts 90% of the prior on column 5 (action 4)
  // everywhere, so PUCT hardly ever tries O's reply in column 7 under X's moves; X would
  // play column 5.
  auto game = games::make_game("connect4");
  auto state = play(*game, "3 5 5 4 5 6");
  FavouriteColumnEvaluator evaluator(4);
  for (const bool check : {true, false}) {
    const SearchReport report = search_from(*game, *state, evaluator, 100, check);
    util::Rng rng(1);
    const games::Action move = choose_move(report, MoveSelection{}, state->move_number(), rng);
    if (check) {
      EXPECT_EQ(move, 6) << report.to_string(*state);
      for (const auto& child : report.children) {
        if (child.action == 6) continue;
        EXPECT_TRUE(child.proven && child.proven_value == -1.0) << report.to_string(*state);
      }
    } else {
      EXPECT_EQ(move, 4) << report.to_string(*state);  // the blunder the check prevents
    }
  }
}

TEST(Solver, ProvesAWinInOneBySearchingIt) {
  auto game = games::make_game("tictactoe");
  auto state = play(*game, "1 4 2 5");
  UniformEvaluator evaluator;
  const SearchReport report = search_from(*game, *state, evaluator, 1000, /*check_immediate_wins=*/false);
  EXPECT_TRUE(report.root_proven);
  EXPECT_EQ(report.root_proven_value, 1.0);
  EXPECT_LT(report.simulations, 50);  // the win is found and proven almost at once
  for (const auto& child : report.children) {
    if (child.action == 2) {
      EXPECT_TRUE(child.proven);
      EXPECT_EQ(child.proven_value, 1.0);
    }
  }
}

TEST(Solver, ProvesALossAndStillResists) {
  // O to move against three open X lines (1-5-9, 4-5-6, 1-4-7): every move loses.
  auto game = games::make_game("tictactoe");
  auto state = play(*game, "1 2 5 3 4");
  UniformEvaluator evaluator;
  const SearchReport report = search_from(*game, *state, evaluator, 3000);
  EXPECT_TRUE(report.root_proven) << report.to_string(*state);
  EXPECT_EQ(report.root_proven_value, -1.0);
  for (const auto& child : report.children) {
    EXPECT_TRUE(child.proven);
    EXPECT_EQ(child.proven_value, -1.0);
  }
  util::Rng rng(1);
  EXPECT_NO_THROW(choose_move(report, MoveSelection{}, state->move_number(), rng));
}

TEST(Solver, ProvesADrawnEndgame) {
  auto game = games::make_game("tictactoe");
  auto state = play(*game, "5 1 9 3 2 8");  // X: 5 9 2, O: 1 3 8; X to move; best play draws
  UniformEvaluator evaluator;
  const SearchReport report = search_from(*game, *state, evaluator, 5000);
  EXPECT_TRUE(report.root_proven) << report.to_string(*state);
  EXPECT_EQ(report.root_proven_value, 0.0);
}

TEST(Solver, NeverPlaysAProvenLoss) {
  // O to move must block at 3; every other move is a proven loss.
  auto game = games::make_game("tictactoe");
  auto state = play(*game, "1 5 2");
  UniformEvaluator evaluator;
  const SearchReport report = search_from(*game, *state, evaluator, 1000, true, 3);
  int proven_losses = 0;
  for (const auto& child : report.children) proven_losses += child.proven && child.proven_value == -1.0;
  EXPECT_GE(proven_losses, 5);
  util::Rng rng(1);
  MoveSelection hot;
  hot.temperature.initial = hot.temperature.final = 1.0;  // even when sampling
  for (int i = 0; i < 20; ++i) EXPECT_EQ(choose_move(report, hot, 3, rng), 2);
}

}  // namespace
}  // namespace pz::mcts
