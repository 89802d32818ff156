// polyzero train: the self-play trainer (nn/trainer.h). This file only assembles the config
// (defaults ← configs/<game>.json ← --config ← --set ← --steps), handles signals and prints.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "apps/train_config_args.h"
#include "games/registry.h"
#include "nn/backend.h"
#include "nn/files.h"
#include "nn/train_config.h"
#include "nn/trainer.h"
#include "util/error.h"
#include "util/spec.h"
#include "util/stop_signal.h"
#ifdef PZ_HAVE_DIST
#include "apps/redis_args.h"
#include "dist/learner_exchange.h"
#include "dist/learner_group.h"
#endif

namespace pz::apps {

namespace {

std::string default_run_dir(const std::string& game_name) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &local);
  return "runs/" + game_name + "-" + buf;
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "self-play training run (AlphaZero-style actors and learner)");
  struct Args {
    GameArgs game;
    std::string config_file, run_dir, resume, backend;
    std::vector<std::string> set;
    std::int64_t steps = 0;
    double minutes = 0;
    bool quiet = false, log_json = false, print_config = false;
#ifdef PZ_HAVE_DIST
    RedisArgs redis;
    int rank = 0, world_size = 1;
    std::string master;
    double group_timeout = 300, claim_idle = 60;
#endif
  };
  auto args = std::make_shared<Args>();
  args->game.add_to(*cmd, "connect4");
  cmd->add_option("--config", args->config_file, "JSON config file (or inline JSON starting with '{') merged over the game's defaults (configs/<game>.json)");
  cmd->add_option("--set", args->set, "override one config field, e.g. --set learner.batch_size=128 (repeatable)");
  cmd->add_option("--steps", args->steps, "learner steps: a new run's length (its schedule is sized to it); on --resume, where to stop")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--minutes", args->minutes, "stop after this many minutes (checkpoint included)")->check(CLI::PositiveNumber);
  cmd->add_option("--backend", args->backend,
                  "the actors' network backend (selfplay.backend): auto (poly, or torch without a C compiler), torch or poly; also on --resume")
      ->check(CLI::IsMember(nn::backend_names()));
  cmd->add_option("--run-dir", args->run_dir, "directory of a new run (default runs/<game>-<date>-<time>)");
  cmd->add_option("--resume", args->resume, "continue the run in this directory from its newest checkpoint");
  cmd->add_flag("--quiet,-q", args->quiet, "no progress line or summaries");
  cmd->add_flag("--log-json", args->log_json, "print every metrics line (JSON) on stdout");
  cmd->add_flag("--print-config", args->print_config, "print the resolved config and exit");
#ifdef PZ_HAVE_DIST
  // A learner of a distributed run (dist/): the games come from `polyzero selfplay` actors.
  args->redis.add_to(*cmd, false);
  cmd->get_option("--redis")->description(
      "learn from the actors of a distributed run in this Redis (polyzero selfplay), redis://HOST[:PORT][/DB]; "
      "needs --run; the run directory defaults to runs/RUN and is resumed when it holds the run");
  cmd->add_option("--claim-idle", args->claim_idle,
                  "with --redis: seconds a game may wait read-but-unacknowledged by a learner without a heartbeat (one "
                  "that died and is not coming back as its rank) before this learner takes it over")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  // Data-parallel learners of one run (dist/learner_group.h, nn/data_parallel.h).
  cmd->add_option("--rank", args->rank,
                  "with --redis: this learner's rank among --world-size learners (default $RANK, else $SLURM_PROCID, else 0); "
                  "rank R > 0 keeps its files in RUN_DIR/rank-R");
  cmd->add_option("--world-size", args->world_size,
                  "with --redis: the number of data-parallel learners (default $WORLD_SIZE, else $SLURM_NTASKS, else 1)");
  cmd->add_option("--master", args->master,
                  "with --redis and several learners: HOST:PORT where rank 0 listens and the others meet it "
                  "(default $MASTER_ADDR:$MASTER_PORT)");
  cmd->add_option("--group-timeout", args->group_timeout,
                  "with several learners: seconds a learner waits for the others (joining, each step; rank 0's "
                  "evaluations included) before it stops with an error")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
#endif
  cmd->footer(
      "A run directory holds config.json, metrics.jsonl, games.jsonl, checkpoints/, models/latest.pt and plots/.\n"
      "Ctrl-C finishes the current step, writes a checkpoint and exits; --resume RUN_DIR continues it.\n"
      "Play the result: polyzero play --game connect4 --p1 human --p2 mcts:model=RUN_DIR/models/latest.pt,sims=200");
  cmd->callback([args, cmd] {
    nn::TrainConfig config;
    nn::TrainOptions options;
#ifdef PZ_HAVE_DIST
    const bool remote = !args->redis.url.empty();
    if (remote != !args->redis.run.empty()) {
      throw util::UsageError(remote ? "--redis needs --run NAME (the run's name in Redis)"
                                    : "--run names a distributed run and needs --redis URL");
    }
    dist::LearnerGroupSpec group_spec;
    if (!remote) {
      for (const char* flag : {"--rank", "--world-size", "--master", "--group-timeout", "--claim-idle"}) {
        if (cmd->count(flag) > 0) throw util::UsageError(std::string(flag) + " applies to the learners of a distributed run: it needs --redis URL --run NAME");
      }
    } else {
      dist::LearnerGroupFlags flags;
      if (cmd->count("--rank") > 0) flags.rank = args->rank;
      if (cmd->count("--world-size") > 0) flags.world_size = args->world_size;
      flags.master = args->master;
      group_spec = dist::resolve_learner_group(flags);
      if (group_spec.world_size > 1 && !dist::learner_groups_supported()) {
        dist::connect_learner_group(group_spec, args->redis.run, std::chrono::milliseconds(0));  // throws what to do
      }
    }
    if (remote && args->resume.empty()) {
      // A learner started again with the same command continues its run. Rank R > 0 keeps
      // its own files (checkpoints: its replay buffer and games) in RUN_DIR/rank-R.
      std::string dir = args->run_dir.empty() ? "runs/" + args->redis.run : args->run_dir;
      if (group_spec.rank > 0) dir += "/rank-" + std::to_string(group_spec.rank);
      dist::check_run_name(args->redis.run);
      if (std::filesystem::exists(dir + "/config.json")) {
        // The same command again resumes: what it asks for must be what the run has (its
        // learner.steps aside: --steps is then where to stop).
        if (cmd->count("--game") + cmd->count("--options") > 0 || !args->config_file.empty() || !args->set.empty()) {
          const nn::TrainConfig saved = nn::load_run_config(dir);
          nlohmann::json asked = assemble_train_config(*args->game.make(), args->config_file, args->set);
          asked["learner"]["steps"] = saved.resolved["learner"]["steps"];
          if (!args->backend.empty()) asked["selfplay"]["backend"] = args->backend;
          if (nn::parse_train_config(asked).resolved != saved.resolved) {
            throw util::UsageError(dir + " already holds run " + args->redis.run +
                                   " with another config (its config.json): drop --game, --config and --set to "
                                   "continue it as it is, or give another --run or --run-dir");
          }
        }
        args->resume = dir;
        args->run_dir.clear();
        args->config_file.clear();
        args->set.clear();
      } else {
        args->run_dir = dir;
      }
    }
#endif
    options.quiet = args->quiet;
    options.log_json = args->log_json;
    options.minutes = args->minutes;
    if (!args->resume.empty()) {
      if (!args->run_dir.empty() || !args->config_file.empty() || !args->set.empty()) {
        throw util::UsageError("--resume continues a run with its own config.json: --run-dir, --config and --set do not apply");
      }
      config = nn::load_run_config(args->resume);
      if (cmd->count("--game") + cmd->count("--options") > 0) {
        GameArgs named = args->game;  // --options alone applies to the run's game
        if (cmd->count("--game") == 0) named.game = util::parse_spec(config.game).name;
        const std::string asked = named.make()->spec().to_string();
        const std::string has = games::make_game(config.game)->spec().to_string();
        if (asked != has) {
          throw util::UsageError("--resume " + args->resume + " continues a run of " + has + ", but --game/--options ask for " +
                                 asked + "; drop --game and --options (a resumed run keeps its game)");
        }
      }
      options.run_dir = args->resume;
      options.resume = true;
      options.max_steps = args->steps;
      if (!args->backend.empty()) config.backend = args->backend;
    } else {
      const auto game = args->game.make();
      nlohmann::json j = assemble_train_config(*game, args->config_file, args->set);
      if (args->steps > 0) j["learner"]["steps"] = args->steps;
      if (!args->backend.empty()) j["selfplay"]["backend"] = args->backend;
      config = nn::parse_train_config(j);
      options.run_dir = args->run_dir.empty() ? default_run_dir(game->info().name) : args->run_dir;
    }
    if (args->print_config) {
      nn::check_train_config(config);  // a run checks it when it starts (nn::train)
      std::cout << config.resolved.dump(2) << std::endl;
      return;
    }
    options.stop = &util::install_stop_signal_handlers();
#ifdef PZ_HAVE_DIST
    std::unique_ptr<dist::RedisGameExchange> exchange;
    std::unique_ptr<nn::DataParallelGroup> group;
    if (remote) {
      dist::LearnerExchangeOptions eo;
      eo.redis = args->redis.resolve();
      eo.run = args->redis.run;
      eo.rank = group_spec.rank;
      eo.claim_idle_ms = static_cast<std::int64_t>(args->claim_idle * 1000);
      eo.quiet = args->quiet;
      try {
        exchange = std::make_unique<dist::RedisGameExchange>(eo, games::make_game(config.game)->spec().to_string(),
                                                             config.resolved);
      } catch (const dist::RedisError& e) {
        dist::throw_for_user(e);
      }
      options.exchange = exchange.get();
      if (group_spec.world_size > 1) {
        const auto timeout = std::chrono::milliseconds(static_cast<std::int64_t>(args->group_timeout * 1000));
        try {
          group = dist::connect_learner_group(group_spec, args->redis.run, timeout);
        } catch (const nn::GroupError& e) {
          throw util::RunError(e.what());
        }
        options.group = group.get();
      }
    }
#endif
    nn::TrainResult result;
    try {
      result = nn::train(config, options);
    } catch (const nn::GroupError& e) {
      throw util::RunError(e.what());
    }
    if (args->quiet && !args->log_json) {
      std::cout << (result.interrupted ? "interrupted" : "finished") << " at step " << result.step << "; "
                << result.checkpoint << "\n";
    }
  });
}

}  // namespace pz::apps
