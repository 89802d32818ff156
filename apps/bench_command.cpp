// polyzero bench <what>: throughput measurements (see bench/).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "apps/commands.h"
#include "bench/mcts_bench.h"
#include "bench/playout_bench.h"
#include "bench/solve_bench.h"
#include "bench/polyc_bench.h"
#include "bench/nn_bench.h"
#include "nn/backend.h"
#include "bench/train_bench.h"
#include "apps/train_config_args.h"
#include "apps/game_args.h"
#include "games/registry.h"
#include "util/error.h"

namespace pz::apps {

void add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "benchmarks: games (random-playout throughput), solve (exact solvers), mcts (search simulations/s), train (trainer rates), nn (forward passes, torch vs poly), "
                                     "polyc (polyhedral compiler against gcc, Graphite and Polly)");
  cmd->require_subcommand(1);
  auto* games_cmd = cmd->add_subcommand("games", "random-playout throughput per game (games/s, moves/s)");
  struct Args {
    std::vector<std::string> games;
    double seconds = 1.0;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  games_cmd->add_option("--game,-g", args->games, "game specs to measure (default: every game with default options)");
  games_cmd->add_option("--seconds", args->seconds, "time per game")->check(CLI::PositiveNumber)->capture_default_str();
  games_cmd->add_flag("--json", args->json, "one JSON object per game");
  games_cmd->callback([args] {
    std::vector<std::shared_ptr<const games::Game>> list;
    if (args->games.empty()) {
      for (const auto& entry : games::registered_games()) list.push_back(games::make_game(entry.name));
    } else {
      for (const auto& spec : args->games) list.push_back(games::make_game(spec));
    }
    if (!args->json) std::printf("%-36s %10s %12s %14s %12s\n", "game", "games", "games/s", "moves/s", "moves/game");
    for (const auto& game : list) {
      const auto r = bench::measure_random_playouts(*game, args->seconds, 12345);
      if (args->json) {
        std::cout << nlohmann::json{{"game", r.game}, {"games", r.games}, {"moves", r.moves}, {"seconds", r.seconds},
                                    {"games_per_second", r.games_per_second()}, {"moves_per_second", r.moves_per_second()}}
                         .dump()
                  << std::endl;
      } else {
        std::printf("%-36s %10lld %12.0f %14.0f %12.1f\n", r.game.c_str(), static_cast<long long>(r.games),
                    r.games_per_second(), r.moves_per_second(), static_cast<double>(r.moves) / static_cast<double>(r.games));
        std::fflush(stdout);
      }
    }
  });

  auto* solve_cmd = cmd->add_subcommand("solve", "exact solver throughput: positions/s and nodes/s at several plies");
  struct SolveArgs {
    std::string game = "connect4";
    std::vector<int> plies{8, 12, 16, 20, 24};
    int count = 10;
    bool weak = false, json = false;
    double seconds = 60;
  };
  auto sargs = std::make_shared<SolveArgs>();
  solve_cmd->add_option("--game,-g", sargs->game, "game spec (one with a solver: polyzero solve)")->capture_default_str();
  solve_cmd->add_option("--plies", sargs->plies, "plies of the positions, one row each")->delimiter(',')->check(CLI::NonNegativeNumber);
  solve_cmd->add_option("--positions", sargs->count, "positions per ply")->check(CLI::PositiveNumber)->capture_default_str();
  solve_cmd->add_option("--seconds", sargs->seconds, "time limit per position")->check(CLI::PositiveNumber)->capture_default_str();
  solve_cmd->add_flag("--weak", sargs->weak, "win/draw/loss only (no distances)");
  solve_cmd->add_flag("--json", sargs->json, "one JSON object per ply");
  solve_cmd->callback([sargs] {
    const auto game = games::make_game(sargs->game);
    const auto rows = bench::measure_solver(*game, sargs->plies, sargs->count, sargs->weak, sargs->seconds, 12345);
    if (!sargs->json)
      std::printf("%s, %s solutions\n%5s %10s %9s %12s %14s %12s\n", game->spec().to_string().c_str(), sargs->weak ? "weak" : "strong",
                  "ply", "positions", "unsolved", "positions/s", "nodes/s", "nodes/pos");
    for (const auto& r : rows) {
      if (sargs->json) {
        std::cout << nlohmann::json{{"game", game->spec().to_string()}, {"ply", r.ply}, {"positions", r.positions},
                                    {"unsolved", r.unsolved}, {"nodes", r.nodes}, {"seconds", r.seconds},
                                    {"positions_per_second", r.positions_per_second()}, {"nodes_per_second", r.nodes_per_second()}}
                         .dump()
                  << std::endl;
      } else {
        const int tried = r.positions + r.unsolved;
        std::printf("%5d %10d %9d %12.2f %14.0f %12.0f\n", r.ply, r.positions, r.unsolved, r.positions_per_second(),
                    r.nodes_per_second(), tried ? static_cast<double>(r.nodes) / tried : 0.0);
        std::fflush(stdout);
      }
    }
  });

  auto* mcts_cmd = cmd->add_subcommand("mcts", "search simulations/s: uniform evaluator and rollouts, 1 and T threads");
  struct MctsArgs {
    std::string game = "connect4";
    int threads = 2;
    double seconds = 2.0;
    int sims = 10000;
    int rounds = 5;
    bool json = false;
  };
  auto margs = std::make_shared<MctsArgs>();
  mcts_cmd->add_option("--game,-g", margs->game, "game spec")->capture_default_str();
  mcts_cmd->add_option("--threads,-t", margs->threads, "largest thread count (measured: 1 and this)")->check(CLI::PositiveNumber)->capture_default_str();
  mcts_cmd->add_option("--seconds", margs->seconds, "time per configuration, split over the rounds")->check(CLI::PositiveNumber)->capture_default_str();
  mcts_cmd->add_option("--sims", margs->sims, "simulations per search (fresh tree each)")->check(CLI::PositiveNumber)->capture_default_str();
  mcts_cmd->add_option("--rounds", margs->rounds, "interleaved rounds; each configuration reports its fastest")
      ->check(CLI::PositiveNumber)->capture_default_str();
  mcts_cmd->add_flag("--json", margs->json, "one JSON object per measurement, then the scaling");
  mcts_cmd->callback([margs] {
    const auto game = games::make_game(margs->game);
    const auto r = bench::measure_mcts(*game, margs->threads, margs->seconds, margs->sims, 12345, margs->rounds);
    if (!margs->json) {
      std::printf("%-24s %-15s %-9s %8s %6s %12s %14s %14s %12s\n", "game", "search", "evaluator", "threads", "trees",
                  "simulations", "simulations/s", "sims/cpu-s", "collisions");
    }
    for (const auto& row : r.rows) {
      if (margs->json) {
        std::cout << nlohmann::json{{"game", row.game}, {"search", row.search}, {"evaluator", row.evaluator}, {"threads", row.threads},
                                    {"trees", row.trees}, {"simulations", row.simulations}, {"seconds", row.seconds},
                                    {"simulations_per_second", row.per_second()},
                                    {"simulations_per_cpu_second", row.per_cpu_second()}, {"collisions", row.collisions}}
                         .dump()
                  << std::endl;
      } else {
        std::printf("%-24s %-15s %-9s %8d %6d %12lld %14.0f %14.0f %12lld\n", row.game.c_str(), row.search.c_str(),
                    row.evaluator.c_str(), row.threads,
                    row.trees, static_cast<long long>(row.simulations), row.per_second(), row.per_cpu_second(),
                    static_cast<long long>(row.collisions));
      }
    }
    if (r.rollout_vs_reference > 0) {
      if (margs->json) {
        std::cout << nlohmann::json{{"rollout_vs_mctsbot_design", r.rollout_vs_reference}}.dump() << std::endl;
      } else {
        std::printf("1 thread with rollouts: %.2fx the simulations/s of the MCTSBot-design reference on the same game code\n",
                    r.rollout_vs_reference);
      }
    }
    if (margs->threads == 1) return;
    if (margs->json) {
      auto scaling = [](const bench::MctsScaling& s) {
        return nlohmann::json{{"shared_tree", s.shared_tree}, {"separate_trees", s.separate_trees}, {"cpu_efficiency", s.cpu_efficiency}};
      };
      std::cout << nlohmann::json{{"threads", margs->threads}, {"scaling_uniform", scaling(r.uniform)}, {"scaling_rollout", scaling(r.rollout)}}
                       .dump()
                << std::endl;
    } else {
      std::printf("scaling 1 -> %d threads on one tree: uniform %.2fx, rollout %.2fx (per CPU-second: %.2f, %.2f)\n",
                  margs->threads, r.uniform.shared_tree, r.rollout.shared_tree, r.uniform.cpu_efficiency, r.rollout.cpu_efficiency);
      std::printf("baseline, %d threads on separate trees (the machine's ceiling): uniform %.2fx, rollout %.2fx\n",
                  margs->threads, r.uniform.separate_trees, r.rollout.separate_trees);
      std::printf("one tree / separate trees: uniform %.2f, rollout %.2f\n",
                  r.uniform.separate_trees > 0 ? r.uniform.shared_tree / r.uniform.separate_trees : 0,
                  r.rollout.separate_trees > 0 ? r.rollout.shared_tree / r.rollout.separate_trees : 0);
    }
  });

  auto* train_cmd = cmd->add_subcommand(
      "train", "trainer rates per network backend: self-play positions/s, network evaluations/s and mean batch, learner samples/s");
  struct TrainArgs {
    GameArgs game;
    std::string config_file;
    std::vector<std::string> set;
    std::vector<std::string> backends{"torch", "poly"};
    double seconds = 10.0;
    bool json = false;
  };
  auto targs = std::make_shared<TrainArgs>();
  targs->game.add_to(*train_cmd, "connect4");
  train_cmd->add_option("--config", targs->config_file, "JSON config merged over the game's defaults");
  train_cmd->add_option("--set", targs->set, "override a config field (as in train)");
  train_cmd->add_option("--backends", targs->backends, "the self-play network backends measured, one after the other")
      ->delimiter(',')
      ->check(CLI::IsMember(nn::backend_names()))
      ->capture_default_str();
  train_cmd->add_option("--seconds", targs->seconds, "self-play time per backend (the learner gets half of it, at least 1 s)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  train_cmd->add_flag("--json", targs->json, "one JSON object per backend");
  train_cmd->callback([targs] {
    const auto game = targs->game.make();
    auto config = nn::parse_train_config(assemble_train_config(*game, targs->config_file, targs->set));
    for (const std::string& backend : targs->backends) {
      config.backend = backend;
      const auto r = bench::measure_training(config, targs->seconds);
      if (targs->json) {
        std::cout << nlohmann::json{{"game", r.game},
                                    {"backend", backend},
                                    {"threads", r.threads},
                                    {"games_per_thread", r.games_per_thread},
                                    {"simulations", r.simulations},
                                    {"selfplay_seconds", r.selfplay_seconds},
                                    {"games", r.games},
                                    {"positions_per_second", r.positions_per_second()},
                                    {"leaf_evaluations_per_second", r.leaf_evaluations_per_second()},
                                    {"net_evaluations_per_second", r.net_evaluations_per_second()},
                                    {"mean_batch", r.mean_batch()},
                                    {"cache_hits", r.cache_hits},
                                    {"batch_size", r.batch_size},
                                    {"learner_steps", r.learner_steps},
                                    {"learner_samples_per_second", r.learner_samples_per_second()}}
                         .dump()
                  << std::endl;
        continue;
      }
      std::printf("game %s, backend %s: %d actor thread(s) x %d games, %d simulations per move\n", r.game.c_str(),
                  backend.c_str(), r.threads, r.games_per_thread, r.simulations);
      std::printf("  self-play   %10.1f positions/s  (%lld games finished in %.1f s)\n", r.positions_per_second(),
                  static_cast<long long>(r.games), r.selfplay_seconds);
      std::printf("  search      %10.0f leaf evaluations/s (%lld cache hits)\n", r.leaf_evaluations_per_second(),
                  static_cast<long long>(r.cache_hits));
      std::printf("  network     %10.0f evaluations/s, mean batch %.1f\n", r.net_evaluations_per_second(), r.mean_batch());
      std::printf("  learner     %10.0f samples/s (batch %d, %lld steps)\n", r.learner_samples_per_second(), r.batch_size,
                  static_cast<long long>(r.learner_steps));
    }
  });
  auto* nn_cmd = cmd->add_subcommand(
      "nn", "network forward passes, torch against poly (one thread): ms, GFLOP/s and share of one core's FMA peak");
  struct NnArgs {
    GameArgs game;
    std::string config_file;
    std::vector<std::string> set;
    std::vector<int> batches{1, 2, 8, 32, 128};
    double seconds = 1.0;
    int rounds = 5;
    int threads = 1;
    bool json = false;
  };
  auto nargs = std::make_shared<NnArgs>();
  nargs->game.add_to(*nn_cmd, "connect4");
  nn_cmd->add_option("--config", nargs->config_file, "training config whose network is measured (default: the game's)");
  nn_cmd->add_option("--set", nargs->set, "override a config field, e.g. network.channels=64");
  nn_cmd->add_option("--batches", nargs->batches, "batch sizes")->delimiter(',')->check(CLI::PositiveNumber)->capture_default_str();
  nn_cmd->add_option("--seconds", nargs->seconds, "time per backend and batch size")->check(CLI::PositiveNumber)->capture_default_str();
  nn_cmd->add_option("--rounds", nargs->rounds, "interleaved rounds per batch size")->check(CLI::PositiveNumber)->capture_default_str();
  nn_cmd->add_option("--threads", nargs->threads, "intra-op threads of each backend (poly: micro-batches claimed by a team)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  nn_cmd->add_flag("--json", nargs->json, "one JSON object per row, then a summary");
  nn_cmd->callback([nargs] {
    const auto game = nargs->game.make();
    const auto config = nn::parse_train_config(assemble_train_config(*game, nargs->config_file, nargs->set));
    const auto r = bench::measure_networks(game->spec().to_string(), config.network, nargs->batches, nargs->seconds, nargs->rounds,
                                           nargs->threads);
    const double peak = r.peak_gflops > 0 ? r.peak_gflops : 1;
    if (nargs->json) {
      for (const auto& row : r.rows)
        std::cout << nlohmann::json{{"game", r.game}, {"batch", row.batch}, {"torch_ms", row.torch_ms}, {"poly_ms", row.poly_ms},
                                    {"torch_gflops", row.torch_gflops}, {"poly_gflops", row.poly_gflops},
                                    {"torch_peak_share", row.torch_gflops / peak}, {"poly_peak_share", row.poly_gflops / peak},
                                    {"poly_over_torch", row.ratio()}}
                         .dump()
                  << std::endl;
      std::cout << nlohmann::json{{"game", r.game}, {"network", nlohmann::json::parse(r.network)},
                                  {"flops_per_position", r.flops_per_position}, {"peak_gflops", r.peak_gflops},
                                  {"threads", r.threads}}
                       .dump()
                << std::endl;
      return;
    }
    std::printf("%s, network %s: %.2f MFLOP per position\n", r.game.c_str(), r.network.c_str(), r.flops_per_position / 1e6);
    std::printf("one core's fp32 FMA peak, measured in this run: %.0f GFLOP/s; %d thread(s) per backend\n", r.peak_gflops,
                r.threads);
    std::printf("%6s  %10s %8s %6s  %10s %8s %6s  %10s\n", "batch", "torch ms", "GFLOP/s", "peak", "poly ms", "GFLOP/s", "peak",
                "poly/torch");
    for (const auto& row : r.rows)
      std::printf("%6d  %10.3f %8.1f %5.0f%%  %10.3f %8.1f %5.0f%%  %9.2fx\n", row.batch, row.torch_ms, row.torch_gflops,
                  100 * row.torch_gflops / peak, row.poly_ms, row.poly_gflops, 100 * row.poly_gflops / peak, row.ratio());
  });
  auto* polyc_cmd = cmd->add_subcommand(
      "polyc", "polyc's output against gcc -O3, Graphite and LLVM Polly on the PolyBench-style kernels");
  struct PolycArgs {
    std::string kernels, size = "large", kernels_dir, work_dir;
    int threads = 2, repeats = 3;
    bool json = false;
  };
  auto pargs = std::make_shared<PolycArgs>();
  polyc_cmd->add_option("--kernels", pargs->kernels, "comma-separated kernel names (default: all)");
  polyc_cmd->add_option("--size", pargs->size, "problem sizes")
      ->check(CLI::IsMember({"large", "medium", "small"}))
      ->capture_default_str();
  polyc_cmd->add_option("--threads", pargs->threads, "OpenMP threads for polyc and parallel Polly")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  polyc_cmd->add_option("--repeats", pargs->repeats, "runs per variant (best kept)")->check(CLI::PositiveNumber)->capture_default_str();
  polyc_cmd->add_option("--kernels-dir", pargs->kernels_dir, "directory of the kernel .c files (default: the source tree's)");
  polyc_cmd->add_option("--keep", pargs->work_dir, "build in this directory and keep it (sources, binaries, logs)");
  polyc_cmd->add_flag("--json", pargs->json, "print the results as JSON");
  polyc_cmd->callback([pargs] {
    bench::PolycBenchOptions o;
    std::string part;
    std::istringstream list(pargs->kernels);
    while (std::getline(list, part, ','))
      if (!part.empty()) o.kernels.push_back(part);
    o.size = pargs->size;
    o.threads = pargs->threads;
    o.repeats = pargs->repeats;
    o.kernels_dir = pargs->kernels_dir;
    o.work_dir = pargs->work_dir;
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
