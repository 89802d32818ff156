#include "bench/mcts_bench.h"

#include <chrono>
#include <ctime>
#include <memory>
#include <utility>
#include <algorithm>

#include "mcts/evaluator.h"
#include "mcts/search.h"

namespace pz::bench {
namespace {

MctsThroughput measure_one(const games::Game& game, mcts::Evaluator& evaluator, const std::string& name, int threads,
                           double seconds, int simulations, std::uint64_t seed) {
  mcts::SearchConfig config;
  config.simulations = simulations;
  config.threads = threads;
  config.solver = true;
  mcts::Search search(game, config, seed);
  const auto root = game.new_initial_state();
  MctsThroughput result;
  result.game = game.spec().to_string();
  result.evaluator = name;
  result.threads = threads;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const std::clock_t cpu_start = std::clock();
  do {
    search.set_root(*root);
    search.clear_tree();
    const auto report = search.run(evaluator);
    result.simulations += report.simulations;
    result.collisions += report.collisions;
  } while (Clock::now() - start < std::chrono::duration<double>(seconds));
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  return result;
}

}  // namespace

MctsBenchResult measure_mcts(const games::Game& game, const std::vector<int>& thread_counts, double seconds,
                             int simulations_per_search, std::uint64_t seed, int rounds) {
  MctsBenchResult out;
  mcts::UniformEvaluator uniform;
  mcts::RolloutEvaluator rollout(1, seed);
  const std::vector<std::pair<std::string, mcts::Evaluator*>> evaluators{{"uniform", &uniform}, {"rollout", &rollout}};
  // Rounds interleave the configurations and the fastest round of each counts: another
  // process can only slow a round down, and a burst of it then hits every configuration
  // alike instead of whichever was running.
  rounds = std::max(1, rounds);
  std::vector<MctsThroughput> best(evaluators.size() * thread_counts.size());
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t e = 0; e < evaluators.size(); ++e) {
      for (std::size_t t = 0; t < thread_counts.size(); ++t) {
        const auto row = measure_one(game, *evaluators[e].second, evaluators[e].first, thread_counts[t], seconds / rounds,
                                     simulations_per_search, seed);
        auto& slot = best[e * thread_counts.size() + t];
        if (round == 0 || row.per_second() > slot.per_second()) slot = row;
      }
    }
  }
  out.rows = best;
  for (std::size_t e = 0; e < evaluators.size(); ++e) {
    const auto& first = best[e * thread_counts.size()];
    const auto& last = best[e * thread_counts.size() + thread_counts.size() - 1];
    const double scaling = first.per_second() > 0 ? last.per_second() / first.per_second() : 0;
    const double efficiency = first.per_cpu_second() > 0 ? last.per_cpu_second() / first.per_cpu_second() : 0;
    (e == 0 ? out.scaling_uniform : out.scaling_rollout) = scaling;
    (e == 0 ? out.cpu_efficiency_uniform : out.cpu_efficiency_rollout) = efficiency;
  }
  return out;
}

}  // namespace pz::bench
