#include "bench/mcts_bench.h"

#include <chrono>
#include <ctime>
#include <memory>
#include <utility>
#include <algorithm>
#include <thread>
#include <vector>

#include "mcts/evaluator.h"
#include "mcts/search.h"

namespace pz::bench {
namespace {

struct SearchTotals {
  std::int64_t simulations = 0, collisions = 0;
};

// Searches of `simulations` playouts from the initial position, each on a fresh tree, until
// `deadline`.
SearchTotals run_searches(const games::Game& game, mcts::Evaluator& evaluator, int threads, int simulations,
                          std::uint64_t seed, std::chrono::steady_clock::time_point deadline) {
  mcts::SearchConfig config;
  config.simulations = simulations;
  config.threads = threads;
  config.solver = true;
  mcts::Search search(game, config, seed);
  const auto root = game.new_initial_state();
  SearchTotals totals;
  do {
    search.set_root(*root);
    search.clear_tree();
    const auto report = search.run(evaluator);
    totals.simulations += report.simulations;
    totals.collisions += report.collisions;
  } while (std::chrono::steady_clock::now() < deadline);
  return totals;
}

// `threads` threads on one tree (trees == 1), or each on its own (trees == threads).
MctsThroughput measure_one(const games::Game& game, mcts::Evaluator& evaluator, const std::string& name, int threads,
                           int trees, double seconds, int simulations, std::uint64_t seed) {
  MctsThroughput result;
  result.game = game.spec().to_string();
  result.evaluator = name;
  result.threads = threads;
  result.trees = trees;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  const std::clock_t cpu_start = std::clock();
  if (trees == 1) {
    const SearchTotals t = run_searches(game, evaluator, threads, simulations, seed, deadline);
    result.simulations = t.simulations;
    result.collisions = t.collisions;
  } else {
    std::vector<SearchTotals> totals(static_cast<std::size_t>(trees));
    std::vector<std::thread> pool;
    for (int i = 0; i < trees; ++i) {
      pool.emplace_back([&, i] {
        totals[static_cast<std::size_t>(i)] =
            run_searches(game, evaluator, 1, simulations, seed + static_cast<std::uint64_t>(i), deadline);
      });
    }
    for (auto& th : pool) th.join();
    for (const auto& t : totals) result.simulations += t.simulations;
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  return result;
}

}  // namespace

MctsBenchResult measure_mcts(const games::Game& game, int threads, double seconds, int simulations_per_search,
                             std::uint64_t seed, int rounds) {
  MctsBenchResult out;
  mcts::UniformEvaluator uniform;
  mcts::RolloutEvaluator rollout(1, seed);
  const std::vector<std::pair<std::string, mcts::Evaluator*>> evaluators{{"uniform", &uniform}, {"rollout", &rollout}};
  // Per evaluator: one thread; `threads` on one tree; `threads` on a tree each.
  std::vector<std::pair<int, int>> layouts{{1, 1}};
  if (threads > 1) layouts.insert(layouts.end(), {{threads, 1}, {threads, threads}});
  // Rounds interleave the configurations and the fastest round of each counts: another
  // process can only slow a round down, and a burst of it then hits every configuration
  // alike instead of whichever was running.
  rounds = std::max(1, rounds);
  std::vector<MctsThroughput> best(evaluators.size() * layouts.size());
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t e = 0; e < evaluators.size(); ++e) {
      for (std::size_t l = 0; l < layouts.size(); ++l) {
        const auto row = measure_one(game, *evaluators[e].second, evaluators[e].first, layouts[l].first, layouts[l].second,
                                     seconds / rounds, simulations_per_search, seed);
        auto& slot = best[e * layouts.size() + l];
        if (round == 0 || row.per_second() > slot.per_second()) slot = row;
      }
    }
  }
  out.rows = best;
  if (threads == 1) return out;
  for (std::size_t e = 0; e < evaluators.size(); ++e) {
    const MctsThroughput* row = &best[e * layouts.size()];
    const double one = row[0].per_second();
    MctsScaling& scaling = e == 0 ? out.uniform : out.rollout;
    scaling.shared_tree = one > 0 ? row[1].per_second() / one : 0;
    scaling.separate_trees = one > 0 ? row[2].per_second() / one : 0;
    scaling.cpu_efficiency = row[0].per_cpu_second() > 0 ? row[1].per_cpu_second() / row[0].per_cpu_second() : 0;
  }
  return out;
}

}  // namespace pz::bench
