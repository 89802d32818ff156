// polyzero status: what a distributed run is doing, from its Redis keys (distributed/run_store.h).
#include <iostream>

#include "apps/commands.h"
#include "apps/redis_args.h"
#include "distributed/run_store.h"
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
    distributed::RedisClient redis(args->redis.resolve());
    distributed::connect_at_start(redis);
    distributed::RunStore store(redis, args->redis.run);
    nlohmann::json status;
    try {
      status = store.status();
    } catch (const distributed::RedisError& e) {
      distributed::throw_for_user(e);
    }
    if (args->json) {
      std::cout << status.dump() << std::endl;
    } else {
      std::cout << distributed::status_text(status);
    }
  });
}

}  // namespace pz::apps
