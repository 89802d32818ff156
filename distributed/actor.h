// `polyzero selfplay`: an actor process. It plays self-play games with the run's newest model
// and appends each finished game to the run's stream (run_store.h).
//
//   threads   SelfPlayActor threads (mcts/) in front of one BatchingEvaluator and one
//             InferenceEngine (nn/), as in the local trainer, configured by the run's config
//             as the learner registered it (selfplay.*, network).
//   this      the network thread: sends finished games (XADD), checks the newest model
//             version every second and hot-swaps it into the engine (searches never pause),
//             and refreshes the actor's heartbeat every 2 s.
//
// The search threads never touch the network: a finished game is encoded and queued in
// memory (queue_cap games; when Redis stays away longer than that, the oldest are dropped and
// counted). A lost connection is retried with exponential backoff (redis_client.h) while
// self-play goes on.
//
// Back-pressure: before each burst of sends the network thread reads the stream's backlog
// (games no learner has read yet, RunStore::backlog) and sends at most max_backlog minus it.
// At the limit the actor pauses sending; its threads play on until the in-memory queue is
// full (queue_cap games), then wait in their game sink until sending resumes. So a learner
// that falls behind slows its actors instead of having the stream's cap (stream_cap, MAXLEN ~)
// trim games it has not read: with A actors the backlog overshoots the limit by at most
// A x 256 games (one burst each), so max_backlog + A x 256 < stream_cap keeps every game. A game reaches the stream whole or not at all (one XADD), so an actor
// killed mid-game leaves nothing partial behind. Stopping (signal, --games, --minutes):
// games in progress are abandoned, the queue is sent (for up to 5 s), the heartbeat removed.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "distributed/redis_client.h"

namespace pz::distributed {

struct ActorOptions {
  RedisOptions redis;
  std::string run;
  std::string id;        // default HOST-PID
  int threads = 1;       // self-play threads
  std::int64_t games = 0;  // stop after sending this many games (0: no limit)
  double minutes = 0;    // stop after this many minutes (0: no limit)
  std::string backend;   // network backend (empty: the run's selfplay.backend)
  std::int64_t stream_cap = 100000;  // XADD MAXLEN ~
  std::size_t queue_cap = 10000;     // games held while Redis is away or sending is paused
  std::int64_t max_backlog = 20000;  // unread games in the stream above which sending pauses (0: none)
  bool quiet = false;
  const std::atomic<bool>* stop = nullptr;
};

struct ActorResult {
  std::int64_t games_sent = 0, games_dropped = 0;
  std::int64_t model_updates = 0, last_version = 0;
  std::int64_t pauses = 0;  // times sending paused at max_backlog
  double paused_seconds = 0;
  int reconnects = 0;
  double seconds = 0;
};

// Throws util::UsageError (bad run, wrong password) or util::RunError (Redis unreachable at
// the start).
ActorResult run_actor(const ActorOptions& options);

// "host-pid": unique enough for heartbeats and logs.
std::string default_actor_id();

}  // namespace pz::distributed
