// polyzero bench <what>: throughput measurements (see bench/).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "apps/commands.h"
#include "bench/mcts_bench.h"
#include "bench/playout_bench.h"
#include "bench/solve_bench.h"
#include "bench/polyc_bench.h"
#include "apps/torch_support.h"
#include "util/error.h"

namespace pz::apps {

void add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "benchmarks: games (random-playout throughput), solve (exact solvers), mcts (search simulations/s), train (trainer rates), nn (forward passes, torch vs poly), "
                                     "recsys (feature-crossing kernels), distributed (actors on Redis), "
                                     "polyc (polyhedral compiler against gcc, Graphite and Polly)");
  cmd->require_subcommand(1);
  auto* games_cmd = cmd->add_subcommand("games", "random-playout throughput per game (games/s, moves/s)");
  auto args = std::make_shared<bench::PlayoutBenchOptions>();
  games_cmd->add_option("--game,-g", args->games, "game specs to measure (default: every game with default options)");
  games_cmd->add_option("--seconds", args->seconds, "time per game")->check(CLI::PositiveNumber)->capture_default_str();
  games_cmd->add_flag("--json", args->json, "one JSON object per game");
  games_cmd->callback([args] { bench::run_playout_bench(*args, std::cout); });

  auto* solve_cmd = cmd->add_subcommand("solve", "exact solver throughput: positions/s and nodes/s at several plies");
  auto sargs = std::make_shared<bench::SolveBenchOptions>();
  solve_cmd->add_option("--game,-g", sargs->game, "game spec (one with a solver: polyzero solve)")->capture_default_str();
  solve_cmd->add_option("--plies", sargs->plies, "plies of the positions, one row each")->delimiter(',')->check(CLI::NonNegativeNumber);
  solve_cmd->add_option("--positions", sargs->positions, "positions per ply")->check(CLI::PositiveNumber)->capture_default_str();
  solve_cmd->add_option("--seconds", sargs->seconds, "time limit per position")->check(CLI::PositiveNumber)->capture_default_str();
  solve_cmd->add_flag("--weak", sargs->weak, "win/draw/loss only (no distances)");
  solve_cmd->add_flag("--json", sargs->json, "one JSON object per ply");
  solve_cmd->callback([sargs] { bench::run_solve_bench(*sargs, std::cout); });

  auto* mcts_cmd = cmd->add_subcommand("mcts", "search simulations/s: uniform evaluator and rollouts, 1 and T threads");
  auto margs = std::make_shared<bench::MctsBenchOptions>();
  mcts_cmd->add_option("--game,-g", margs->game, "game spec")->capture_default_str();
  mcts_cmd->add_option("--threads,-t", margs->threads, "largest thread count (measured: 1 and this)")->check(CLI::PositiveNumber)->capture_default_str();
  mcts_cmd->add_option("--seconds", margs->seconds, "time per configuration, split over the rounds")->check(CLI::PositiveNumber)->capture_default_str();
  mcts_cmd->add_option("--sims", margs->simulations, "simulations per search (fresh tree each)")->check(CLI::PositiveNumber)->capture_default_str();
  mcts_cmd->add_option("--rounds", margs->rounds, "interleaved rounds; each configuration reports its fastest")
      ->check(CLI::PositiveNumber)->capture_default_str();
  mcts_cmd->add_flag("--json", margs->json, "one JSON object per measurement, then the scaling");
  mcts_cmd->callback([margs] { bench::run_mcts_bench(*margs, std::cout); });

  // train and nn: with LibTorch only (apps/torch_support.h).
  add_network_bench_commands(*cmd);
  auto* polyc_cmd = cmd->add_subcommand(
      "polyc", "polyc's output against gcc -O3, Graphite and LLVM Polly on the PolyBench-style kernels, or on PolyBench/C 4.2.1 (--suite polybench)");
  struct PolycArgs {
    bench::PolycBenchOptions bench;
    bool json = false;
  };
  auto pargs = std::make_shared<PolycArgs>();
  auto& po = pargs->bench;
  polyc_cmd->add_option("--kernels", po.kernels, "comma-separated kernel names (default: all)")->delimiter(',');
  polyc_cmd->add_option("--suite", po.suite,
                        "kernels: the PolyBench-style kernels shipped with polyzero (quick); polybench: the unmodified "
                        "PolyBench/C 4.2.1 sources (--polybench, --dataset)")
      ->check(CLI::IsMember({"kernels", "polybench"}))
      ->capture_default_str();
  polyc_cmd->add_option("--polybench", po.polybench_dir, "PolyBench/C 4.2.1 directory (default: $POLYBENCH_DIR)");
  polyc_cmd->add_option("--dataset", po.datasets,
                        "PolyBench dataset sizes, comma-separated: MINI, SMALL, MEDIUM, LARGE, EXTRALARGE or all; two "
                        "joined by '-' (MINI-SMALL): sizes PolyBench does not define, each size the smallest prime "
                        "at or above the mean of the two datasets' values, time steps the smaller's")
      ->delimiter(',')
      ->capture_default_str();
  polyc_cmd->add_option("--variants", po.variants,
                        "with --suite polybench: the variants to run, comma-separated (gcc, polly, polly-parallel, "
                        "polyc-1t, polyc, polyc-tuned; default: all but polyc-tuned; gcc is always run as the reference)")
      ->delimiter(',');
  polyc_cmd->add_option("--tune-seconds", po.tune_seconds, "with --variants polyc-tuned: polyc's --tune-seconds per region")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  polyc_cmd->add_flag("--scalar-bounds", po.scalar_bounds,
                      "with --suite polybench: -DPOLYBENCH_USE_SCALAR_LB for every variant (loop bounds are the "
                      "dataset's constants, not the kernel's size arguments)");
  polyc_cmd->add_flag("--busy-core", po.busy_core,
                      "run a spinning process on one core (nice 0) for the whole run, as on a machine that is not idle");
  polyc_cmd->add_option("--size", po.size, "problem sizes")
      ->check(CLI::IsMember({"large", "medium", "small"}))
      ->capture_default_str();
  polyc_cmd->add_option("--threads", po.threads, "OpenMP threads for polyc and parallel Polly")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  polyc_cmd->add_option("--repeats", po.repeats, "runs per variant (with --suite polybench interleaved round by round)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  polyc_cmd->add_option("--statistic", po.statistic, "a variant's time of its runs: median or best")
      ->check(CLI::IsMember({"median", "best"}))
      ->capture_default_str();
  polyc_cmd->add_option("--kernels-dir", po.kernels_dir,
                        "directory of the kernel .c files (default: $PZ_KERNELS_DIR, else found beside the "
                        "executable: share/polyzero/kernels of an install, tests/polyhedral/kernels of a source tree)");
  polyc_cmd->add_option("--keep", po.work_dir, "build in this directory and keep it (sources, binaries, logs)");
  polyc_cmd->add_flag("--json", pargs->json, "print the results as JSON");
  polyc_cmd->callback([pargs] {
    bench::PolycBenchOptions o = pargs->bench;
    o.progress = [](const std::string& line) { std::fprintf(stderr, "[bench polyc] %s\n", line.c_str()); };
    bench::PolycBenchResult r;
    try {
      r = bench::run_polyc_bench(o);
    } catch (const std::invalid_argument& e) {
      throw util::UsageError(e.what());
    }
    std::cout << (pargs->json ? bench::format_polyc_json(r) : bench::format_polyc_table(r)) << std::flush;
    if (!r.polyc_ok) throw util::UsageError("bench polyc: polyc failed or gave wrong output (see above)");
  });
}

}  // namespace pz::apps
