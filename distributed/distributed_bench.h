// `polyzero bench distributed`: what the Redis data plane costs and how self-play scales
// over actor processes, on this machine.
//
// It starts its own redis-server (a free loopback port, no persistence), one learner
// (`polyzero train --redis`) and then 1, 2, 4 ... actor processes (`polyzero selfplay`,
// one self-play thread each) against it, in turn. For each actor count, after a warm-up
// (every actor has sent a game, then `warmup` seconds), games/s is the growth of the
// stream's entries-added counter over `seconds` (split into `rounds` rounds that interleave
// the counts, each row its fastest round; the actors do not pause for the learner here,
// --max-backlog 0, so its intake does not pace them), and the ratio to one actor's is printed:
// on an idle machine with C cores it approaches min(actors, C), less what the learner and
// Redis take. Then the overhead of Redis per game, from games the actors sent: the bytes an
// entry carries (the compressed game) and the stream's memory per entry; the milliseconds of
// one XADD round trip (this process sends the same payloads to a scratch stream) and of
// decoding a game; and both against the milliseconds an actor spends playing a game (one
// actor's games/s), as the share of an actor's time that the data plane takes.
//
// The processes are this executable (`polyzero`, found through /proc/self/exe unless
// `polyzero` is set) and redis-server from PATH unless `redis_server` is set; everything is
// stopped and removed at the end, also when a step fails.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace pz::distributed {

struct DistributedBenchOptions {
  std::string game = "tictactoe";
  std::vector<int> actors = {1, 2, 4};  // actor process counts, measured in this order
  double seconds = 10;                  // measured per actor count, split over the rounds
  int rounds = 2;                       // rounds interleaving the counts; each row is its fastest
  double warmup = 3;                    // after every actor has sent its first game
  std::vector<std::string> set;         // config overrides for the run (--set FIELD=VALUE)
  std::string backend;                  // the actors' network backend (empty: the run's)
  int overhead_games = 200;             // XADD round trips timed for the overhead
  std::string redis_server;             // default: redis-server on PATH
  std::string polyzero;                 // default: this executable
  bool json = false;                    // one JSON object per row, then the summary
};

struct DistributedBenchRow {
  int actors = 0;
  std::int64_t games = 0;
  double seconds = 0;
  double load = 0;  // the machine's 1-minute load average at the end (other processes count)
  double games_per_s() const { return seconds > 0 ? static_cast<double>(games) / seconds : 0; }
};

struct DistributedBenchResult {
  std::vector<DistributedBenchRow> rows;
  double bytes_per_game = 0;          // the compressed game an entry carries
  double stream_bytes_per_game = 0;   // Redis's memory for the stream per entry
  double xadd_ms = 0;                 // one XADD round trip of such a game
  double decode_ms = 0;               // decoding one game (codec.h)
  double play_ms = 0;                 // an actor's time per game (1 / one actor's games/s)
};

// Runs the measurement and prints it. Throws util::UsageError (a bad option, no
// redis-server) or util::RunError (a process that would not start or died).
DistributedBenchResult run_distributed_bench(const DistributedBenchOptions& options, std::ostream& out);

}  // namespace pz::distributed
