// Search throughput: simulations per second of the PUCT search (mcts/) with the uniform
// evaluator (the tree's own cost: selection, expansion, backup, state cloning) and with
// one random rollout per leaf (the comparison point of OpenSpiel's MCTSBot with its
// RandomRolloutEvaluator), for each thread count, and the scaling ratio between them.
//
// Each measurement repeats searches of `simulations` playouts from the initial position
// with a fresh tree (as a player does per move) until `seconds` have passed, so memory
// stays bounded and the numbers include tree growth from empty. The time is split into
// `rounds` rounds that interleave the configurations; each row is its fastest round.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "games/game.h"

namespace pz::bench {

struct MctsThroughput {
  std::string game;
  std::string evaluator;  // "uniform" or "rollout"
  int threads = 1;
  std::int64_t simulations = 0;
  std::int64_t collisions = 0;  // descents that met a leaf another thread was expanding
  double seconds = 0;
  double cpu_seconds = 0;  // process CPU time: on a busy machine, sims per CPU-second shows
                           // the contention cost of threads that wall-clock scaling cannot
  double per_second() const { return seconds > 0 ? static_cast<double>(simulations) / seconds : 0; }
  double per_cpu_second() const { return cpu_seconds > 0 ? static_cast<double>(simulations) / cpu_seconds : 0; }
};

struct MctsBenchResult {
  std::vector<MctsThroughput> rows;
  // sims/s at the largest thread count over sims/s at one thread, per evaluator.
  double scaling_uniform = 0, scaling_rollout = 0;
  // The same ratio for sims per CPU-second (1.0: threads cost nothing extra per simulation).
  double cpu_efficiency_uniform = 0, cpu_efficiency_rollout = 0;
};

MctsBenchResult measure_mcts(const games::Game& game, const std::vector<int>& thread_counts, double seconds,
                             int simulations_per_search, std::uint64_t seed, int rounds = 5);

}  // namespace pz::bench
