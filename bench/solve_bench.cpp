#include "bench/solve_bench.h"

#include <nlohmann/json.hpp>

#include "bench/text.h"
#include "games/registry.h"
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

void run_solve_bench(const SolveBenchOptions& options, std::ostream& out) {
  const auto game = games::make_game(options.game);
  const std::string spec = game->spec().to_string();
  const auto rows = measure_solver(*game, options.plies, options.positions, options.weak, options.seconds, options.seed);
  if (!options.json)
    out << format("%s, %s solutions\n%5s %10s %9s %12s %14s %12s\n", spec.c_str(), options.weak ? "weak" : "strong", "ply",
                  "positions", "unsolved", "positions/s", "nodes/s", "nodes/pos");
  for (const auto& r : rows) {
    if (options.json) {
      out << nlohmann::json{{"game", spec}, {"ply", r.ply}, {"positions", r.positions}, {"unsolved", r.unsolved},
                            {"nodes", r.nodes}, {"seconds", r.seconds}, {"positions_per_second", r.positions_per_second()},
                            {"nodes_per_second", r.nodes_per_second()}}
                 .dump()
          << std::endl;
    } else {
      const int tried = r.positions + r.unsolved;
      out << format("%5d %10d %9d %12.2f %14.0f %12.0f\n", r.ply, r.positions, r.unsolved, r.positions_per_second(),
                    r.nodes_per_second(), tried ? static_cast<double>(r.nodes) / tried : 0.0)
          << std::flush;
    }
  }
}

}  // namespace pz::bench
