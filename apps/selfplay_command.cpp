// polyzero selfplay: an actor process of a distributed run (distributed/actor.h). This file only
// reads the options, handles signals and prints the summary.
#include <iostream>

#include "apps/commands.h"
#include "apps/redis_args.h"
#include "distributed/actor.h"
#include "nn/backend.h"
#include "util/stop_signal.h"

namespace pz::apps {

void add_selfplay_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("selfplay", "an actor of a distributed run: self-play games into the run's Redis stream");
  struct Args {
    RedisArgs redis;
    distributed::ActorOptions actor;
  };
  auto args = std::make_shared<Args>();
  args->redis.add_to(*cmd, true);
  cmd->add_option("--threads", args->actor.threads, "self-play threads")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--games", args->actor.games, "stop after sending this many games")->check(CLI::PositiveNumber);
  cmd->add_option("--minutes", args->actor.minutes, "stop after this many minutes")->check(CLI::PositiveNumber);
  cmd->add_option("--backend", args->actor.backend, "network backend (default: the run's selfplay.backend)")
      ->check(CLI::IsMember(nn::backend_names()));
  cmd->add_option("--id", args->actor.id, "this actor's name in `polyzero status` (default HOST-PID)");
  cmd->add_option("--stream-cap", args->actor.stream_cap, "games the run's stream keeps at most (XADD MAXLEN ~)")
      ->check(CLI::Range(std::int64_t{100}, std::int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--max-backlog", args->actor.max_backlog,
                  "pause sending while this many games of the stream wait unread by the learners (0: never pause); "
                  "below --stream-cap")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_flag("--quiet,-q", args->actor.quiet, "no progress messages");
  cmd->footer(
      "The run must exist: its learner (polyzero train --redis URL --run NAME) registers it. The actor plays with\n"
      "the newest model version, switches when a newer one appears, keeps playing while Redis is away (up to\n"
      "10000 games are held) and reconnects with backoff. Ctrl-C sends what is finished and exits.");
  cmd->callback([args] {
    args->actor.redis = args->redis.resolve();
    args->actor.run = args->redis.run;
    args->actor.stop = &util::install_stop_signal_handlers();
    distributed::ActorResult result;
    try {
      result = distributed::run_actor(args->actor);
    } catch (const distributed::RedisError& e) {
      distributed::throw_for_user(e);
    }
    if (!args->actor.quiet) {
      std::cerr << "sent " << result.games_sent << " games in " << static_cast<long long>(result.seconds) << " s, "
                << result.model_updates << " model update(s), last version " << result.last_version;
      if (result.games_dropped > 0) std::cerr << ", " << result.games_dropped << " games dropped (Redis away too long)";
      if (result.reconnects > 0) std::cerr << ", " << result.reconnects << " reconnect(s)";
      if (result.pauses > 0) {
        std::cerr << ", paused " << result.pauses << " time(s) for " << static_cast<long long>(result.paused_seconds)
                  << " s (learners behind)";
      }
      std::cerr << "\n";
    }
  });
}

}  // namespace pz::apps
