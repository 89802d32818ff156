// polyzero bench train, nn, recsys and distributed: the benchmarks that run networks or
// compare against LibTorch (bench/train_bench.h, bench/nn_bench.h, bench/recsys_bench.h,
// and with distributed/ distributed/distributed_bench.h).
// Built with LibTorch only (apps/torch_support.h).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "apps/game_args.h"
#include "apps/torch_support.h"
#include "apps/train_config_args.h"
#include "bench/nn_bench.h"
#include "bench/recsys_bench.h"
#include "bench/train_bench.h"
#include "bench/train_step_bench.h"
#ifdef PZ_HAVE_DIST
#include "distributed/distributed_bench.h"
#endif
#include "nn/backend.h"
#include "nn/train_config.h"

namespace pz::apps {

void add_network_bench_commands(CLI::App& cmd) {
  auto* train_cmd = cmd.add_subcommand(
      "train", "trainer rates per network backend: self-play positions/s, network evaluations/s and mean batch, learner samples/s");
  struct TrainArgs {
    GameArgs game;
    std::string config_file;
    std::vector<std::string> set;
    bench::TrainBenchOptions bench;
  };
  auto targs = std::make_shared<TrainArgs>();
  targs->game.add_to(*train_cmd, "connect4");
  train_cmd->add_option("--config", targs->config_file, "JSON config merged over the game's defaults");
  train_cmd->add_option("--set", targs->set, "override a config field (as in train)");
  train_cmd->add_option("--backends", targs->bench.backends, "the self-play network backends measured, one after the other")
      ->delimiter(',')
      ->check(CLI::IsMember(nn::backend_names()))
      ->capture_default_str();
  train_cmd->add_option("--seconds", targs->bench.seconds, "self-play time per backend (the learner gets half of it, at least 1 s)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  train_cmd->add_flag("--json", targs->bench.json, "one JSON object per backend");
  train_cmd->callback([targs] {
    const auto game = targs->game.make();
    bench::run_train_bench(nn::parse_train_config(assemble_train_config(*game, targs->config_file, targs->set)),
                           targs->bench, std::cout);
  });
  auto* nn_cmd = cmd.add_subcommand(
      "nn",
      "network forward passes, torch against poly (one thread): ms, GFLOP/s and share of one core's FMA peak; then the "
      "training step of the torch and poly learners");
  struct NnArgs {
    GameArgs game;
    std::string config_file;
    std::vector<std::string> set;
    bench::NnBenchOptions bench;
    bool no_direct = false;
    std::vector<int> train_batches{128, 256};
    bool no_train = false;
  };
  auto nargs = std::make_shared<NnArgs>();
  nargs->game.add_to(*nn_cmd, "connect4");
  auto& no = nargs->bench;
  nn_cmd->add_option("--config", nargs->config_file, "training config whose network is measured (default: the game's)");
  nn_cmd->add_option("--set", nargs->set, "override a config field, e.g. network.channels=64");
  nn_cmd->add_option("--batches", no.batches, "batch sizes")->delimiter(',')->check(CLI::PositiveNumber)->capture_default_str();
  nn_cmd->add_option("--seconds", no.seconds, "time per backend and batch size")->check(CLI::PositiveNumber)->capture_default_str();
  nn_cmd->add_option("--rounds", no.rounds, "interleaved rounds per batch size")->check(CLI::PositiveNumber)->capture_default_str();
  nn_cmd->add_option("--threads", no.threads, "intra-op threads of each backend (poly: micro-batches claimed by a team)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  nn_cmd->add_flag("--no-direct", nargs->no_direct, "do not also time poly's direct convolutions (Winograd off)");
  nn_cmd->add_flag("--json", no.json, "one JSON object per row, then a summary");
  nn_cmd->add_option("--train-batches", nargs->train_batches, "batch sizes of the training step")
      ->delimiter(',')
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  nn_cmd->add_flag("--no-train", nargs->no_train, "forward passes only: do not time the training step");
  nn_cmd->callback([nargs] {
    const auto game = nargs->game.make();
    bench::NnBenchOptions o = nargs->bench;
    o.game = game->spec().to_string();
    o.network = nn::parse_train_config(assemble_train_config(*game, nargs->config_file, nargs->set)).network;
    o.direct = !nargs->no_direct;
    bench::run_nn_bench(o, std::cout);
    if (nargs->no_train) return;
    bench::TrainStepOptions t;
    t.game = o.game;
    t.network = o.network;
    t.batches = nargs->train_batches;
    t.seconds = o.seconds;
    t.threads = o.threads;
    bench::write_training_steps(bench::measure_training_steps(t), o.json, std::cout);
  });
  auto* recsys_cmd = cmd.add_subcommand(
      "recsys", "feature-crossing kernels (FM, DLRM dot, DCN-v2 cross), forward and backward, poly against LibTorch (one thread)");
  auto rargs = std::make_shared<bench::RecsysBenchOptions>();
  recsys_cmd->add_option("--batch", rargs->batch, "examples per call")->check(CLI::PositiveNumber)->capture_default_str();
  recsys_cmd->add_option("--features", rargs->features, "sparse features (embedding vectors per example)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  recsys_cmd->add_option("--dims", rargs->dims, "embedding widths (the cross layer's input is features x dim)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  recsys_cmd->add_option("--kernels", rargs->kernels, "fm, dot, cross")
      ->delimiter(',')
      ->check(CLI::IsMember({"fm", "dot", "cross"}))
      ->capture_default_str();
  recsys_cmd->add_option("--seconds", rargs->seconds, "time per kernel, width and implementation")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  recsys_cmd->add_option("--rounds", rargs->rounds, "interleaved rounds; each implementation reports its best")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  recsys_cmd->add_flag("--json", rargs->json, "one JSON object per row");
  recsys_cmd->callback([rargs] { bench::run_recsys_bench(*rargs, std::cout); });
#ifdef PZ_HAVE_DIST
  auto* dist_cmd = cmd.add_subcommand(
      "distributed", "self-play games/s with 1, 2, 4 actor processes against one learner on Redis, and Redis's cost per game");
  auto dargs = std::make_shared<distributed::DistributedBenchOptions>();
  dist_cmd->add_option("--game,-g", dargs->game, "game spec")->capture_default_str();
  dist_cmd->add_option("--actors", dargs->actors, "actor process counts, measured in turn")
      ->delimiter(',')
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  dist_cmd->add_option("--seconds", dargs->seconds, "measured time per actor count, split over the rounds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  dist_cmd->add_option("--rounds", dargs->rounds, "rounds interleaving the counts; each row is its fastest")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  dist_cmd->add_option("--warmup", dargs->warmup, "seconds after every actor has sent its first game")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  dist_cmd->add_option("--set", dargs->set, "override a config field of the run (as in train)");
  dist_cmd->add_option("--backend", dargs->backend, "the actors' network backend (default: the run's)")
      ->check(CLI::IsMember(nn::backend_names()));
  dist_cmd->add_option("--overhead-games", dargs->overhead_games, "XADD round trips timed for the overhead")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  dist_cmd->add_option("--redis-server", dargs->redis_server, "the redis-server executable (default: on PATH)");
  dist_cmd->add_flag("--json", dargs->json, "one JSON object per row, then the summary");
  dist_cmd->callback([dargs] { distributed::run_distributed_bench(*dargs, std::cout); });
#endif
}

}  // namespace pz::apps
