// The learner's side of the Redis data plane: nn::GameExchange (nn/game_exchange.h) over a
// run's stream and model registry (run_store.h), for `polyzero train --redis`.
//
// Games: read through the consumer group "learners" as consumer "learner-RANK" (XREADGROUP),
// decoded and handed to the trainer, which puts them in the replay buffer. An entry is
// acknowledged (XACK) only after a checkpoint that holds it is durable; until then it stays
// pending on this consumer. The checkpoint records the ids it holds that were not yet
// acknowledged, so a learner restarted from it (same rank) re-reads its pending entries
// (XREADGROUP from 0) and adds exactly those the checkpoint does not hold: no acknowledged
// game is lost and none enters the buffer twice. Entries pending for longer than
// `claim_idle_ms` on another consumer whose heartbeat is gone (a learner that died and is
// not coming back as that rank) are claimed (XPENDING + XCLAIM). Entries that
// do not decode, or are of another game, are reported, acknowledged and skipped.
//
// Weights: published as a new model version every publish_every steps and at the start (the
// trainer's schedule); while Redis is away the newest weights wait and go out on reconnect.
// The learner's step, lr and counters go to pz:RUN:learner with a heartbeat every 2 s.
// Data-parallel learners (rank > 0): only rank 0 registers the run, publishes model versions
// and writes pz:RUN:learner; every rank reads its own share of the games as learner-RANK and
// beats on pz:RUN:learner:alive:learner-RANK (its pending games are not claimed while it lives).
// When Redis comes back empty (restarted without persistence), the run, the group and the
// newest weights are registered again.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "distributed/redis_client.h"
#include "distributed/run_store.h"
#include "nn/game_exchange.h"
#include "nn/progress.h"

namespace pz::distributed {

struct LearnerExchangeOptions {
  RedisOptions redis;
  std::string run;
  int rank = 0;
  std::int64_t claim_idle_ms = 60000;
  bool quiet = false;
};

class RedisGameExchange final : public nn::GameExchange {
 public:
  // Connects and registers the run (game spec and resolved config); throws util::UsageError
  // or util::RunError like connect_at_start, and when the run name belongs to another game.
  RedisGameExchange(const LearnerExchangeOptions& options, const std::string& game, const nlohmann::json& config);

  void poll(const nn::LearnerProgress& progress, bool waiting, const std::function<void(mcts::GameRecord&&)>& sink) override;
  void publish(const nn::LearnerProgress& progress, const nn::NetWeights& weights) override;
  nlohmann::json checkpoint_state() override;
  void checkpoint_written(const nn::LearnerProgress& progress) override;
  void restore(const nlohmann::json& state) override;

  std::int64_t games_received() const { return received_; }
  std::int64_t version() const { return version_; }

 private:
  void register_run();
  bool ensure_connection();
  void handle(const RedisError& e);
  void take(const std::vector<StreamEntry>& entries, bool pending, const std::function<void(mcts::GameRecord&&)>& sink);
  void flush_acks();
  void send_weights(const nn::LearnerProgress& progress, const std::string& bytes);
  void heartbeat(const nn::LearnerProgress& progress);

  LearnerExchangeOptions options_;
  std::string game_;
  nlohmann::json config_;
  std::string consumer_;
  RedisClient redis_;
  RunStore store_;
  nn::Progress progress_;

  bool away_ = false, registered_ = true, pending_read_ = false;
  std::set<std::string> in_checkpoint_;   // restored: ids the checkpoint's buffer holds
  std::vector<std::string> unacked_;      // ids in the buffer, not yet acknowledged
  std::vector<std::string> to_ack_now_;   // held by a durable checkpoint: acknowledge
  std::optional<std::pair<nn::LearnerProgress, std::string>> unsent_weights_;
  std::int64_t version_ = 0, checkpoint_step_ = 0, received_ = 0, rejected_ = 0;
  std::chrono::steady_clock::time_point last_heartbeat_{}, last_claim_{};
};

}  // namespace pz::distributed
