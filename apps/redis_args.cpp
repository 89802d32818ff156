#include "apps/redis_args.h"

#include "distributed/run_store.h"

namespace pz::apps {

void RedisArgs::add_to(CLI::App& command, bool required) {
  auto* redis = command.add_option("--redis", url, "the run's Redis, redis://HOST[:PORT][/DB]");
  auto* run_option = command.add_option("--run", run, "the run's name in Redis (letters, digits, . _ -)");
  if (required) {
    redis->required();
    run_option->required();
  }
  command.add_option("--redis-password-file", password_file,
                     "file whose first line is the Redis password (else POLYZERO_REDIS_PASSWORD; "
                     "POLYZERO_REDIS_USER names an ACL user)");
  command.add_flag("--insecure", insecure, "allow a Redis on another host without a password");
}

distributed::RedisOptions RedisArgs::resolve() const {
  distributed::RedisOptions o;
  o.endpoint = distributed::parse_redis_url(url);
  distributed::check_run_name(run);
  o.auth = distributed::resolve_redis_auth(o.endpoint, password_file, insecure);
  return o;
}

}  // namespace pz::apps
