#include "bench/solve_bench.h"

#include "solve/position_set.h"
#include "solve/solver.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::bench {

std::vector<SolveThroughput> measure_solver(const games::Game& game, const std::vector<int>& plies, int count, bool weak,
                                            double seconds_per_position, std::uint64_t seed) {
  std::string why;
  auto solver = solve::make_solver(game, &why);
  if (!solver) throw util::UsageError(why);
  std::vector<SolveThroughput> rows;
  for (int ply : plies) {
    util::Rng rng(seed + static_cast<std::uint64_t>(ply));
    SolveThroughput row;
    row.ply = ply;
    for (int attempt = 0; attempt < 100 * count && row.positions + row.unsolved < count; ++attempt) {
      const auto state = solve::quiet_random_position(game, ply, rng);
      if (!state) continue;
      const solve::Solution s = solver->solve(*state, solve::SolveOptions{.seconds = seconds_per_position, .distances = !weak});
      row.nodes += s.nodes;
      row.seconds += s.seconds;
      (s.complete ? row.positions : row.unsolved)++;
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace pz::bench
