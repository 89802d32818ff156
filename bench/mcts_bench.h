// Search throughput: simulations per second of the PUCT search (mcts/) with the uniform
// evaluator (the tree's own cost: selection, expansion, backup, state cloning) and with
// one random rollout per leaf (the comparison point of OpenSpiel's MCTSBot with its
// RandomRolloutEvaluator), for each thread count, and the scaling ratio between them.
//
// Each measurement repeats searches of `simulations` playouts from the initial position
// with a fresh tree (as a player does per move) until `seconds` have passed, so memory
// stays bounded and the numbers include tree growth from empty. The time is split into
// `rounds` rounds that interleave the configurations; each row is its fastest round.
//
// The baseline for the thread scaling is measured in the same run: as many independent
// searches as threads, each on its own tree and thread. They share nothing, so their
// speed-up is what this machine gives the workload at all (2.0 on two idle cores; less when
// other processes, or other tenants of a virtual machine, take CPU time or memory bandwidth).
// One tree's scaling is then read against it.
//
// The single-thread baseline is a UCT search built the way OpenSpiel's MCTSBot is
// (mctsbot_reference.h), with one random rollout per leaf, timed the same way.
#pragma once

#include <ostream>

#include <cstdint>
#include <string>
#include <vector>

#include "games/game.h"

namespace pz::bench {

struct MctsThroughput {
  std::string game;
  std::string search = "polyzero";  // or "mctsbot-design" (mctsbot_reference.h)
  std::string evaluator;  // "uniform" or "rollout"
  int threads = 1;
  int trees = 1;  // 1: the threads share one tree; == threads: each its own (the baseline)
  std::int64_t simulations = 0;
  std::int64_t collisions = 0;  // descents that met a leaf another thread was expanding
  double seconds = 0;
  double cpu_seconds = 0;  // process CPU time: on a busy machine, sims per CPU-second shows
                           // the contention cost of threads that wall-clock scaling cannot
  double per_second() const { return seconds > 0 ? static_cast<double>(simulations) / seconds : 0; }
  double per_cpu_second() const { return cpu_seconds > 0 ? static_cast<double>(simulations) / cpu_seconds : 0; }
};

// Speed-ups over one thread, for one evaluator.
struct MctsScaling {
  double shared_tree = 0;     // T threads on one tree
  double separate_trees = 0;  // T threads on a tree each: the machine's ceiling
  // One tree's sims per CPU-second at T threads over one thread's (1.0: threads cost nothing
  // extra per simulation).
  double cpu_efficiency = 0;
};

struct MctsBenchResult {
  // Per evaluator (uniform, rollout): 1 thread; then, for threads > 1, T threads on one
  // tree and T threads on separate trees.
  std::vector<MctsThroughput> rows;
  MctsScaling uniform, rollout;  // zeros when threads == 1
  // One thread with rollouts against the MCTSBot-design reference on the same game, measured
  // in the same rounds (its row is the last of `rows`); 0 for games MCTSBot does not play
  // (simultaneous moves).
  double rollout_vs_reference = 0;
};

MctsBenchResult measure_mcts(const games::Game& game, int threads, double seconds, int simulations_per_search,
                             std::uint64_t seed, int rounds = 5);

struct MctsBenchOptions {
  std::string game = "connect4";
  int threads = 2;       // largest thread count (1 and this are measured)
  double seconds = 2.0;  // per configuration, split over the rounds
  int simulations = 10000;
  int rounds = 5;
  bool json = false;     // one JSON object per row, then the scaling
  std::uint64_t seed = 12345;
};

// `polyzero bench mcts`: the rows, the comparison with the reference and the scaling.
void run_mcts_bench(const MctsBenchOptions& options, std::ostream& out);

}  // namespace pz::bench
