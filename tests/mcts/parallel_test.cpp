// Several threads on one tree, leaf batches under virtual loss, and the batching queue.
// Run these under ThreadSanitizer too (the tsan preset).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "games/registry.h"
#include "mcts/batching_evaluator.h"
#include "mcts/move_choice.h"
#include "mcts/search.h"
#include "test_games.h"

namespace pz::mcts {
namespace {

// Counts calls and batch sizes; forwards to another evaluator.
class CountingEvaluator final : public Evaluator {
 public:
  explicit CountingEvaluator(Evaluator& inner) : inner_(inner) {}
  void evaluate(std::span<const EvalRequest> batch) override {
    calls.fetch_add(1);
    requests.fetch_add(static_cast<int>(batch.size()));
    int seen = largest.load();
    while (static_cast<int>(batch.size()) > seen && !largest.compare_exchange_weak(seen, static_cast<int>(batch.size()))) {}
    inner_.evaluate(batch);
  }
  std::atomic<int> calls{0}, requests{0}, largest{0};

 private:
  Evaluator& inner_;
};

// Several threads on one tree, without the solver (so every visit count must add up).
SearchConfig shared_tree(int simulations, int threads, int leaves_per_batch) {
  SearchConfig c;
  c.simulations = simulations;
  c.threads = threads;
  c.leaves_per_batch = leaves_per_batch;
  c.solver = false;
  return c;
}

TEST(Parallel, ThreadsAndBatchesBuildAValidTree) {
  auto game = games::make_game("connect4");
  RolloutEvaluator rollouts(1, 3);
  for (int threads : {1, 2, 4}) {
    for (int batch : {1, 8}) {
      CountingEvaluator evaluator(rollouts);
      Search search(*game, shared_tree(3000, threads, batch), 5);
      search.set_root(*game->new_initial_state());
      const SearchReport report = search.run(evaluator);
      EXPECT_EQ(report.simulations, 3000) << threads << "x" << batch;
      EXPECT_EQ(report.root_visits, 3000);
      EXPECT_EQ(testing::check_tree(*search.root_node()), "") << threads << "x" << batch;
      EXPECT_LE(evaluator.largest.load(), batch);
      if (batch > 1) {
        EXPECT_GT(evaluator.requests.load(), 2 * evaluator.calls.load());  // batches were used
      }
    }
  }
}

TEST(Parallel, BurstsPublishEveryVisitAndReleaseTheirVirtualLosses) {
  auto game = games::make_game("connect4");
  RolloutEvaluator evaluator(1, 3);
  for (int burst : {16, 0}) {
    for (int batch : {1, 4}) {
      SearchConfig c = shared_tree(20000, 2, batch);
      c.burst_simulations = burst;
      Search search(*game, c, 7);
      search.set_root(*game->new_initial_state());
      const SearchReport report = search.run(evaluator);
      // The root's children reach 16 x 8 visits early in 20000 simulations: from then on
      // every descent that chooses a new path starts a burst.
      if (burst > 0) {
        EXPECT_GT(report.bursts, 20) << batch;
      } else {
        EXPECT_EQ(report.bursts, 0) << batch;
      }
      EXPECT_EQ(report.simulations, 20000);
      EXPECT_EQ(report.root_visits, 20000);
      // Every visit the bursts kept back was published, and every held virtual loss released.
      EXPECT_EQ(testing::check_tree(*search.root_node()), "") << burst << " " << batch;
    }
  }
  SearchConfig one;
  one.simulations = 3000;
  Search search(*game, one, 7);
  search.set_root(*game->new_initial_state());
  EXPECT_EQ(search.run(evaluator).bursts, 0);  // one thread has no one to keep away from
}

TEST(Parallel, ThreadsStillFindTheWinAndTheSolverStillProves) {
  auto game = games::make_game("connect4");
  RolloutEvaluator evaluator(1, 3);
  SearchConfig c;
  c.simulations = 6000;
  c.threads = 2;
  c.leaves_per_batch = 4;
  Search search(*game, c, 5);
  auto state = testing::play(*game, "3 3 4 4");
  search.set_root(*state);
  const SearchReport report = search.run(evaluator);
  util::Rng rng(1);
  const games::Action move = choose_move(report, MoveSelection{}, state->move_number(), rng);
  EXPECT_TRUE(move == 1 || move == 4) << report.to_string(*state);
  EXPECT_TRUE(report.root_proven);
  EXPECT_EQ(testing::check_tree(*search.root_node()).find("in-flight"), std::string::npos);
}

TEST(Parallel, TreeReuseAcrossThreadedSearches) {
  auto game = games::make_game("tictactoe");
  RolloutEvaluator evaluator(4, 2);
  SearchConfig c;
  c.simulations = 3000;
  c.threads = 2;
  c.leaves_per_batch = 2;
  c.solver = false;
  Search search(*game, c, 1);
  auto state = game->new_initial_state();
  util::Rng rng(2);
  while (!state->is_terminal()) {
    search.set_root(*state);
    const SearchReport report = search.run(evaluator);
    ASSERT_EQ(testing::check_tree(*search.root_node(), true), "");
    const games::Action move = choose_move(report, MoveSelection{}, state->move_number(), rng);
    state->apply_action(move);
    search.advance(move);
  }
  // Sound play from both sides: a draw.
  EXPECT_EQ(state->returns()[0], 0.0);
}

// `threads` clients each make `calls` calls of `per_call` Connect Four requests through
// `batching`; returns how many values differ from `expected`.
int run_clients(BatchingEvaluator& batching, int threads, int calls, int per_call, float expected) {
  auto game = games::make_game("connect4");
  std::vector<std::thread> pool;
  std::atomic<int> wrong{0};
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      auto state = game->new_initial_state();
      const std::vector<games::Action> legal = state->legal_actions();
      std::vector<float> priors(static_cast<std::size_t>(per_call) * legal.size()), values(static_cast<std::size_t>(per_call) * 2);
      std::vector<EvalRequest> requests;
      for (int i = 0; i < per_call; ++i) {
        requests.push_back({state.get(), legal, priors.data() + i * legal.size(), values.data() + 2 * i});
      }
      for (int call = 0; call < calls; ++call) {
        std::fill(values.begin(), values.end(), 0.0f);
        batching.evaluate(requests);
        for (float v : values) wrong += v != expected;
      }
    });
  }
  for (auto& th : pool) th.join();
  return wrong.load();
}

TEST(BatchingEvaluator, MergesCallsFromManyThreads) {
  UniformEvaluator uniform(0.25f);
  CountingEvaluator backend(uniform);
  constexpr int kThreads = 4, kCalls = 50, kPerCall = 4;
  BatchingEvaluator batching(backend, kThreads * kPerCall, std::chrono::milliseconds(50), kThreads);
  EXPECT_EQ(run_clients(batching, kThreads, kCalls, kPerCall, 0.25f), 0);
  const auto stats = batching.stats();
  EXPECT_EQ(stats.requests, kThreads * kCalls * kPerCall);
  EXPECT_EQ(backend.requests.load(), kThreads * kCalls * kPerCall);
  EXPECT_GT(stats.mean_batch(), 1.5 * kPerCall);  // calls from different threads were merged
}

// A backend that runs two calls at once: each client's batch runs beside the other's
// instead of being merged into it or waiting for it.
TEST(BatchingEvaluator, RunsClientsSideBySideOnAConcurrentBackend) {
  class SlowConcurrent final : public Evaluator {
   public:
    void evaluate(std::span<const EvalRequest> batch) override {
      const int now = ++inside;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {}
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      UniformEvaluator(0.5f).evaluate(batch);
      --inside;
    }
    int concurrent_calls() const override { return 2; }
    std::atomic<int> inside{0}, most{0};
  } backend;
  constexpr int kThreads = 2, kCalls = 20, kPerCall = 4;
  BatchingEvaluator batching(backend, kThreads * kPerCall, std::chrono::milliseconds(500), kThreads);
  EXPECT_EQ(run_clients(batching, kThreads, kCalls, kPerCall, 0.5f), 0);
  EXPECT_EQ(batching.stats().batches, kThreads * kCalls);  // one client's call a batch, never merged
  EXPECT_EQ(backend.most.load(), 2);                       // and the two ran at once
}

TEST(BatchingEvaluator, PassesBackendErrorsToEveryCaller) {
  class Failing final : public Evaluator {
   public:
    void evaluate(std::span<const EvalRequest>) override { throw std::runtime_error("backend down"); }
  } failing;
  BatchingEvaluator batching(failing, 8, std::chrono::milliseconds(1));
  auto game = games::make_game("tictactoe");
  auto state = game->new_initial_state();
  float values[2];
  const EvalRequest request{state.get(), {}, nullptr, values};
  EXPECT_THROW(batching.evaluate(std::span<const EvalRequest>(&request, 1)), std::runtime_error);
}

}  // namespace
}  // namespace pz::mcts
