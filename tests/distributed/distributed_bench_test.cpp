// `bench distributed` (distributed/distributed_bench.h) end to end on a short schedule: its own
// redis-server, a learner and 1 then 2 actor processes of the polyzero built here; every row
// counts games and the overhead per game is measured. PZ_DIST_BENCH_SECONDS=S runs the full
// measurement instead (1, 2 and 4 actors, S seconds each, the game's own config) and prints it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include "distributed/distributed_bench.h"

namespace pz::distributed {
namespace {

TEST(DistributedBench, MeasuresActorScalingAndRedisOverhead) {
  DistributedBenchOptions o;
  o.polyzero = PZ_POLYZERO;
  o.backend = "torch";
  o.set = {"selfplay.simulations=8", "selfplay.games_per_thread=2", "learner.batch_size=16", "replay.min_samples=64"};
  if (const char* s = std::getenv("PZ_DIST_BENCH_SECONDS"); s != nullptr && *s != '\0') {
    o.seconds = std::atof(s);
    o.warmup = 2;
    o.set.clear();  // the game's own config, as a run would have it
  } else {
    o.actors = {1, 2};
    o.rounds = 1;
    o.seconds = 2;
    o.warmup = 0.5;
    o.overhead_games = 50;
  }
  std::ostringstream out;
  const DistributedBenchResult r = run_distributed_bench(o, out);
  std::cout << out.str();
  ASSERT_EQ(r.rows.size(), o.actors.size());
  for (const auto& row : r.rows) EXPECT_GT(row.games, 0) << row.actors << " actors";
  EXPECT_GT(r.bytes_per_game, 50);
  EXPECT_GT(r.stream_bytes_per_game, r.bytes_per_game * 0.5);
  EXPECT_GT(r.xadd_ms, 0);
  EXPECT_GT(r.play_ms, 0);
  EXPECT_NE(out.str().find("vs 1 actor"), std::string::npos);
}

}  // namespace
}  // namespace pz::distributed
