// A run's state in Redis: what actors, learners and `polyzero status` read and write.
// Every key of run NAME starts with "pz:NAME:" (one Redis can hold many runs):
//
//   pz:NAME:meta            hash   game (canonical spec), config (the resolved training config,
//                                  JSON), created (unix seconds), format ("1")
//   pz:NAME:games           stream the finished games: field "g" a codec.h game record, "actor"
//                                  the actor's id, "v" the model version it was played with;
//                                  capped (XADD MAXLEN ~) so a stopped learner cannot fill memory
//     group "learners"             the learners' consumer group: each entry goes to one learner,
//                                  and stays pending until that learner acknowledges it (XACK),
//                                  which it does once a checkpoint holds it
//   pz:NAME:model:latest    string the newest model version (1, 2, ...)
//   pz:NAME:model:counter   string the last version number handed out (INCR)
//   pz:NAME:model:V         hash   weights (codec.h), meta (JSON: version, step, lr, time);
//                                  the newest kModelsKept versions are kept
//   pz:NAME:learner         hash   step, lr, games, samples, buffer, version, updated (unix ms)
//   pz:NAME:learner:alive   string with a TTL: a learner's heartbeat (and :alive:CONSUMER, each
//                                  learner's own: its pending games are not claimed while it lives)
//   pz:NAME:actor:ID        hash   with a TTL: an actor's heartbeat (host, pid, threads,
//                                  games, games_per_s, version, started, updated)
//
// A model version is written in one MULTI/EXEC (its hash, latest, the expiry of the oldest),
// so a reader that sees "latest" = V always finds pz:NAME:model:V.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "distributed/redis_client.h"

namespace pz::distributed {

// Throws util::UsageError unless `name` is 1-64 of [A-Za-z0-9._-].
void check_run_name(const std::string& name);

inline constexpr const char* kLearnerGroup = "learners";
inline constexpr int kModelsKept = 3;

struct RunMeta {
  std::string game;
  nlohmann::json config;
  std::int64_t created = 0;
};

struct StreamEntry {
  std::string id;  // "1700000000000-0"
  std::map<std::string, std::string> fields;
  bool deleted = false;  // pending, but trimmed from the stream (its data is gone)
};

struct ModelVersion {
  std::int64_t version = 0;
  std::string weights;  // codec.h bytes
  nlohmann::json meta;
};

class RunStore {
 public:
  RunStore(RedisClient& redis, std::string run);

  const std::string& run() const { return run_; }
  std::string key(const std::string& suffix) const { return "pz:" + run_ + ":" + suffix; }

  std::optional<RunMeta> read_meta();
  // Registers the run, or checks that the registered one is of the same game; throws
  // util::UsageError when it is another game's.
  void register_run(const std::string& game, const nlohmann::json& config);
  // The meta of an existing run; util::UsageError naming the run and the server when absent.
  RunMeta require_meta();

  // Models.
  std::int64_t publish_model(const std::string& weights, nlohmann::json meta);
  std::int64_t latest_version();  // 0: none yet
  std::optional<ModelVersion> fetch_model(std::int64_t version);

  // The games stream.
  std::string add_game(const std::string& record, const std::string& actor, std::int64_t version, std::int64_t max_len);
  void ensure_group();
  // XREADGROUP: `from` ">" for new entries, "0" for this consumer's pending ones.
  std::vector<StreamEntry> read_group(const std::string& consumer, const std::string& from, int count, int block_ms);
  // Entries pending for over `min_idle_ms` on other consumers whose learner heartbeat is gone
  // (XPENDING, then XCLAIM), now this consumer's. A live learner's pending entries (read,
  // waiting for its next checkpoint) are never taken, nor this consumer's own.
  std::vector<StreamEntry> claim_from_dead(const std::string& consumer, std::int64_t min_idle_ms, int count);
  void ack(const std::vector<std::string>& ids);
  // Games in the stream that no learner has read yet (the group's lag, Redis 7). When Redis
  // cannot tell (an entry deleted in between), the stream's length, an upper bound. 0 when
  // there is no stream or group yet.
  std::int64_t backlog();

  // Heartbeats.
  void actor_heartbeat(const std::string& id, const std::map<std::string, std::string>& fields, int ttl_seconds);
  void remove_actor(const std::string& id);
  // With a TTL, pz:RUN:learner:alive:CONSUMER; and when `shared` (one learner, or rank 0 of
  // several), pz:RUN:learner (the fields) and pz:RUN:learner:alive.
  void learner_heartbeat(const std::string& consumer, bool shared, const std::map<std::string, std::string>& fields,
                         int ttl_seconds);

  // Everything `polyzero status` shows (JSON; see status_text).
  nlohmann::json status();

 private:
  std::vector<StreamEntry> parse_entries(const RedisReply& entries);

  RedisClient& redis_;
  std::string run_;
};

// `status` as the lines `polyzero status` prints.
std::string status_text(const nlohmann::json& status);

// Milliseconds since the epoch (heartbeat times).
std::int64_t unix_ms();

}  // namespace pz::distributed
