// polyzero status: what a distributed run is doing, from its Redis keys (dist/run_store.h).
#include <iostream>

#include "apps/commands.h"
#include "apps/redis_args.h"
#include "dist/run_store.h"
#include "util/error.h"

namespace pz::apps {

void add_status_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("status", "a distributed run's actors, learner, model version and stream backlog");
  struct Args {
    RedisArgs redis;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  args->redis.add_to(*cmd, true);
  cmd->add_flag("--json", args->json, "one JSON object");
  cmd->callback([args] {
    dist::RedisClient redis(args->redis.resolve());
    dist::connect_at_start(redis);
    dist::RunStore store(redis, args->redis.run);
    nlohmann::json status;
    try {
      status = store.status();
    } catch (const dist::RedisError& e) {
      dist::throw_for_user(e);
    }
    if (args->json) {
      std::cout << status.dump() << std::endl;
    } else {
      std::cout << dist::status_text(status);
    }
  });
}

}  // namespace pz::apps
