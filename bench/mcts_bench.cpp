#include "bench/mcts_bench.h"

#include <chrono>
#include <ctime>
#include <memory>
#include <utility>
#include <algorithm>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/mctsbot_reference.h"
#include "bench/text.h"
#include "games/registry.h"
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

using Clock = std::chrono::steady_clock;

// Runs `searches(deadline)` for `seconds`; it returns the simulations (and collisions) it ran.
// Fills the row's counts, wall time and process CPU time.
template <class Searches>
void time_searches(MctsThroughput& row, double seconds, Searches searches) {
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  const std::clock_t cpu_start = std::clock();
  const SearchTotals totals = searches(deadline);
  row.simulations = totals.simulations;
  row.collisions = totals.collisions;
  row.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  row.cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
}

// The MCTSBot-design reference: searches of `simulations` from the initial position, each
// with a fresh tree.
MctsThroughput measure_reference(const games::Game& game, double seconds, int simulations, std::uint64_t seed) {
  MctsThroughput result;
  result.game = game.spec().to_string();
  result.search = "mctsbot-design";
  result.evaluator = "rollout";
  time_searches(result, seconds, [&](Clock::time_point deadline) {
    MctsBotReference reference(game, simulations, seed);
    const auto root = game.new_initial_state();
    SearchTotals totals;
    do {
      totals.simulations += reference.search(*root);
    } while (Clock::now() < deadline);
    return totals;
  });
  return result;
}

// `threads` threads on one tree (trees == 1), or each on its own (trees == threads).
MctsThroughput measure_one(const games::Game& game, mcts::Evaluator& evaluator, const std::string& name, int threads,
                           int trees, double seconds, int simulations, std::uint64_t seed) {
  MctsThroughput result;
  result.game = game.spec().to_string();
  result.evaluator = name;
  result.threads = threads;
  result.trees = trees;
  time_searches(result, seconds, [&](Clock::time_point deadline) {
    if (trees == 1) return run_searches(game, evaluator, threads, simulations, seed, deadline);
    std::vector<SearchTotals> totals(static_cast<std::size_t>(trees));
    std::vector<std::thread> pool;
    for (int i = 0; i < trees; ++i) {
      pool.emplace_back([&, i] {
        totals[static_cast<std::size_t>(i)] =
            run_searches(game, evaluator, 1, simulations, seed + static_cast<std::uint64_t>(i), deadline);
      });
    }
    for (auto& th : pool) th.join();
    SearchTotals sum;
    for (const auto& t : totals) sum.simulations += t.simulations;
    return sum;
  });
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
  const bool with_reference = !game.info().simultaneous;
  std::vector<MctsThroughput> best(evaluators.size() * layouts.size() + (with_reference ? 1 : 0));
  const auto keep_faster = [&](MctsThroughput& slot, const MctsThroughput& row, int round) {
    if (round == 0 || row.per_second() > slot.per_second()) slot = row;
  };
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t e = 0; e < evaluators.size(); ++e) {
      for (std::size_t l = 0; l < layouts.size(); ++l) {
        keep_faster(best[e * layouts.size() + l],
                    measure_one(game, *evaluators[e].second, evaluators[e].first, layouts[l].first, layouts[l].second,
                                seconds / rounds, simulations_per_search, seed),
                    round);
      }
    }
    if (with_reference) keep_faster(best.back(), measure_reference(game, seconds / rounds, simulations_per_search, seed), round);
  }
  out.rows = best;
  if (with_reference && best.back().per_second() > 0) {
    out.rollout_vs_reference = best[layouts.size()].per_second() / best.back().per_second();
  }
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

namespace {

nlohmann::json row_json(const MctsThroughput& row) {
  return {{"game", row.game}, {"search", row.search}, {"evaluator", row.evaluator}, {"threads", row.threads},
          {"trees", row.trees}, {"simulations", row.simulations}, {"seconds", row.seconds},
          {"simulations_per_second", row.per_second()}, {"simulations_per_cpu_second", row.per_cpu_second()},
          {"collisions", row.collisions}};
}

nlohmann::json scaling_json(const MctsScaling& s) {
  return {{"shared_tree", s.shared_tree}, {"separate_trees", s.separate_trees}, {"cpu_efficiency", s.cpu_efficiency}};
}

void write_mcts_json(const MctsBenchResult& r, int threads, std::ostream& out) {
  for (const auto& row : r.rows) out << row_json(row).dump() << std::endl;
  if (r.rollout_vs_reference > 0)
    out << nlohmann::json{{"rollout_vs_mctsbot_design", r.rollout_vs_reference}}.dump() << std::endl;
  if (threads == 1) return;
  out << nlohmann::json{{"threads", threads}, {"scaling_uniform", scaling_json(r.uniform)},
                        {"scaling_rollout", scaling_json(r.rollout)}}
             .dump()
      << std::endl;
}

void write_mcts_table(const MctsBenchResult& r, int threads, std::ostream& out) {
  out << format("%-24s %-15s %-9s %8s %6s %12s %14s %14s %12s\n", "game", "search", "evaluator", "threads", "trees",
                "simulations", "simulations/s", "sims/cpu-s", "collisions");
  for (const auto& row : r.rows)
    out << format("%-24s %-15s %-9s %8d %6d %12lld %14.0f %14.0f %12lld\n", row.game.c_str(), row.search.c_str(),
                  row.evaluator.c_str(), row.threads, row.trees, static_cast<long long>(row.simulations), row.per_second(),
                  row.per_cpu_second(), static_cast<long long>(row.collisions));
  if (r.rollout_vs_reference > 0)
    out << format("1 thread with rollouts: %.2fx the simulations/s of the MCTSBot-design reference on the same game code\n",
                  r.rollout_vs_reference);
  if (threads == 1) return;
  out << format("scaling 1 -> %d threads on one tree: uniform %.2fx, rollout %.2fx (per CPU-second: %.2f, %.2f)\n", threads,
                r.uniform.shared_tree, r.rollout.shared_tree, r.uniform.cpu_efficiency, r.rollout.cpu_efficiency);
  out << format("baseline, %d threads on separate trees (the machine's ceiling): uniform %.2fx, rollout %.2fx\n", threads,
                r.uniform.separate_trees, r.rollout.separate_trees);
  out << format("one tree / separate trees: uniform %.2f, rollout %.2f\n",
                r.uniform.separate_trees > 0 ? r.uniform.shared_tree / r.uniform.separate_trees : 0,
                r.rollout.separate_trees > 0 ? r.rollout.shared_tree / r.rollout.separate_trees : 0);
}

}  // namespace

void run_mcts_bench(const MctsBenchOptions& options, std::ostream& out) {
  const auto game = games::make_game(options.game);
  const auto r = measure_mcts(*game, options.threads, options.seconds, options.simulations, options.seed, options.rounds);
  if (options.json) {
    write_mcts_json(r, options.threads, out);
  } else {
    write_mcts_table(r, options.threads, out);
  }
}

}  // namespace pz::bench
