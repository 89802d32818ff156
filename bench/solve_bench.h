// Solver throughput: positions solved per second and nodes per second at several plies
// (solve/solver.h), on positions reached by random moves that avoid ending the game.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "games/game.h"

namespace pz::bench {

struct SolveThroughput {
  int ply = 0;
  int positions = 0, unsolved = 0;  // unsolved: over the per-position time limit
  std::uint64_t nodes = 0;
  double seconds = 0;
  double positions_per_second() const { return seconds > 0 ? positions / seconds : 0; }
  double nodes_per_second() const { return seconds > 0 ? static_cast<double>(nodes) / seconds : 0; }
};

// For each ply, `count` positions (seeded) solved one after another, win/draw/loss only
// (`weak`) or with distances. Throws util::UsageError when the game has no solver.
std::vector<SolveThroughput> measure_solver(const games::Game& game, const std::vector<int>& plies, int count, bool weak,
                                            double seconds_per_position, std::uint64_t seed);

struct SolveBenchOptions {
  std::string game = "connect4";
  std::vector<int> plies{8, 12, 16, 20, 24};
  int positions = 10;           // per ply
  bool weak = false;            // win/draw/loss only
  double seconds = 60;          // limit per position
  bool json = false;            // one JSON object per ply instead of a table
  std::uint64_t seed = 12345;
};

// `polyzero bench solve`: one row per ply.
void run_solve_bench(const SolveBenchOptions& options, std::ostream& out);

}  // namespace pz::bench
