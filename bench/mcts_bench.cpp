#include "bench/mcts_bench.h"

#include <chrono>
#include <ctime>
#include <memory>

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
    result.simulations += search.run(evaluator).simulations;
  } while (Clock::now() - start < std::chrono::duration<double>(seconds));
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  return result;
}

}  // namespace

MctsBenchResult measure_mcts(const games::Game& game, const std::vector<int>& thread_counts, double seconds,
                             int simulations_per_search, std::uint64_t seed) {
  MctsBenchResult out;
  mcts::UniformEvaluator uniform;
  mcts::RolloutEvaluator rollout(1, seed);
  for (const char* name : {"uniform", "rollout"}) {
    mcts::Evaluator& evaluator = std::string(name) == "uniform" ? static_cast<mcts::Evaluator&>(uniform) : rollout;
    double first = 0, last = 0, first_cpu = 0, last_cpu = 0;
    for (int threads : thread_counts) {
      out.rows.push_back(measure_one(game, evaluator, name, threads, seconds, simulations_per_search, seed));
      if (first == 0) first = out.rows.back().per_second();
      if (first_cpu == 0) first_cpu = out.rows.back().per_cpu_second();
      last = out.rows.back().per_second();
      last_cpu = out.rows.back().per_cpu_second();
    }
    const bool uniform_row = std::string(name) == "uniform";
    (uniform_row ? out.scaling_uniform : out.scaling_rollout) = first > 0 ? last / first : 0;
    (uniform_row ? out.cpu_efficiency_uniform : out.cpu_efficiency_rollout) = first_cpu > 0 ? last_cpu / first_cpu : 0;
  }
  return out;
}

}  // namespace pz::bench
