#include "distributed/distributed_bench.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "distributed/codec.h"
#include "distributed/redis_client.h"
#include "distributed/run_store.h"
#include "util/error.h"
#include "util/subprocess.h"

namespace pz::distributed {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (fd >= 0) ::close(fd);
    throw util::RunError("bench distributed: no free loopback port");
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::string tail_of(const std::string& path, std::size_t lines = 5) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += "\n  " + all[i];
  return out.empty() ? " (no output)" : out;
}

// The processes and the directory of one measurement; all stopped and removed on the way out.
struct Stage {
  std::string dir;
  std::unique_ptr<util::Subprocess> redis, learner;
  std::vector<std::unique_ptr<util::Subprocess>> actors;

  ~Stage() {
    stop_actors();
    interrupt(learner, 10);
    if (redis) redis->stop(0.5);
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
  // SIGINT (a clean stop: actors send what they finished, the learner checkpoints), then stop().
  static void interrupt(std::unique_ptr<util::Subprocess>& p, double grace) {
    if (!p) return;
    if (p->running()) ::kill(p->pid(), SIGINT);
    p->stop(grace);
    p.reset();
  }
  void stop_actors() {
    for (auto& a : actors) {
      if (a && a->running()) ::kill(a->pid(), SIGINT);
    }
    for (auto& a : actors) interrupt(a, 5);
    actors.clear();
  }
};

std::int64_t entries_added(RedisClient& redis, const std::string& stream) {
  const RedisReply r = redis.command({"XINFO", "STREAM", stream});
  for (std::size_t i = 0; i + 1 < r.size(); i += 2) {
    if (r[i].str() == "entries-added") return r[i + 1].integer();
  }
  return redis.command({"XLEN", stream}).integer();  // Redis before 7: no trimming here, so the same
}

template <class Ready>
void wait_until(const std::string& what, double seconds, const std::string& log, Ready ready) {
  const auto start = Clock::now();
  while (!ready()) {
    if (seconds_since(start) > seconds) {
      throw util::RunError("bench distributed: " + what + " within " + std::to_string(static_cast<int>(seconds)) +
                           " s; last lines of " + log + ":" + tail_of(log));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

DistributedBenchResult run_distributed_bench(const DistributedBenchOptions& options, std::ostream& out) {
  if (options.actors.empty()) throw util::UsageError("bench distributed: no actor counts to measure");
  for (const int n : options.actors) {
    if (n < 1 || n > 64) throw util::UsageError("bench distributed: actor count " + std::to_string(n) + " is not in 1..64");
  }
  if (!(options.seconds > 0) || options.warmup < 0) throw util::UsageError("bench distributed: --seconds must be positive");
  const std::string redis_server = options.redis_server.empty() ? find_on_path("redis-server") : options.redis_server;
  if (redis_server.empty() || ::access(redis_server.c_str(), X_OK) != 0) {
    throw util::UsageError("bench distributed: no redis-server " +
                           (options.redis_server.empty() ? std::string("on PATH") : "at " + options.redis_server) +
                           " (scripts/setup.sh installs it)");
  }
  std::string pz = options.polyzero;
  if (pz.empty()) {
    std::error_code ec;
    pz = fs::read_symlink("/proc/self/exe", ec).string();
    if (ec) throw util::RunError("bench distributed: cannot find this executable (/proc/self/exe); give its path");
  }

  Stage stage;
  char dir_template[] = "/tmp/pz-bench-distributed-XXXXXX";
  if (::mkdtemp(dir_template) == nullptr) throw util::RunError("bench distributed: cannot create a directory in /tmp");
  stage.dir = dir_template;
  const int port = free_port();
  const std::string url = "redis://127.0.0.1:" + std::to_string(port), run = "bench";
  stage.redis = std::make_unique<util::Subprocess>("exec " + quote(redis_server) + " --port " + std::to_string(port) +
                                                       " --bind 127.0.0.1 --save '' --appendonly no --dir " + quote(stage.dir),
                                                   stage.dir + "/redis.log");
  RedisOptions ro;
  ro.endpoint = parse_redis_url(url);
  RedisClient redis(ro);
  wait_until("redis-server did not start", 20, stage.dir + "/redis.log", [&] {
    try {
      redis.connect();
      return true;
    } catch (const RedisError&) {
      return false;
    }
  });
  RunStore store(redis, run);

  std::string learner = "exec " + quote(pz) + " train --quiet --redis " + url + " --run " + run + " --run-dir " +
                        quote(stage.dir + "/run") + " --game " + quote(options.game) +
                        " --steps 1000000000 --set eval.every_steps=0";
  for (const auto& s : options.set) learner += " --set " + quote(s);
  stage.learner = std::make_unique<util::Subprocess>(learner, stage.dir + "/learner.log");
  wait_until("the learner published no model", 180, stage.dir + "/learner.log", [&] {
    if (!stage.learner->running()) {
      throw util::UsageError("bench distributed: the learner stopped:" + tail_of(stage.dir + "/learner.log"));
    }
    return store.latest_version() > 0;
  });

  const std::string stream = store.key("games");
  DistributedBenchResult result;
  char buf[256];
  if (!options.json) {
    out << "distributed self-play: " << options.game << ", one learner, Redis on loopback, one thread per actor process ("
        << std::thread::hardware_concurrency() << " hardware threads here)\n";
    out << "actors     games   seconds   games/s   vs 1 actor   load (1 min, at the end)\n";
  }
  // One measurement: n actor processes, their warm-up, `seconds` of counting, their stop.
  const auto measure = [&](int round, int n, double seconds) {
    const auto id = [&](int i) {
      return "bench-" + std::to_string(round) + "-" + std::to_string(n) + "-" + std::to_string(i);
    };
    for (int i = 0; i < n; ++i) {
      // --max-backlog 0: the learner's intake must not pace the actors here.
      std::string cmd = "exec " + quote(pz) + " selfplay --quiet --max-backlog 0 --redis " + url + " --run " + run +
                        " --id " + id(i);
      if (!options.backend.empty()) cmd += " --backend " + quote(options.backend);
      stage.actors.push_back(std::make_unique<util::Subprocess>(cmd, stage.dir + "/actor-" + std::to_string(i) + ".log"));
    }
    wait_until("the actors sent no games", 180, stage.dir + "/actor-0.log", [&] {
      for (int i = 0; i < n; ++i) {
        if (!stage.actors[static_cast<std::size_t>(i)]->running()) {
          throw util::RunError("bench distributed: actor " + std::to_string(i) + " stopped:" +
                               tail_of(stage.dir + "/actor-" + std::to_string(i) + ".log"));
        }
        const RedisReply g = redis.command({"HGET", store.key("actor:" + id(i)), "games"});
        if (g.is_nil() || g.integer() <= 0) return false;
      }
      return true;
    });
    std::this_thread::sleep_for(std::chrono::duration<double>(options.warmup));
    const std::int64_t a0 = entries_added(redis, stream);
    const auto t0 = Clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    DistributedBenchRow row;
    row.actors = n;
    row.games = entries_added(redis, stream) - a0;
    row.seconds = seconds_since(t0);
    double load[1] = {0};
    if (::getloadavg(load, 1) == 1) row.load = load[0];
    stage.stop_actors();
    return row;
  };
  // Rounds interleave the actor counts (the machine's other load drifts); each count's row is
  // its fastest round.
  const int rounds = std::max(1, options.rounds);
  std::vector<DistributedBenchRow> best;
  for (const int n : options.actors) best.push_back({n, 0, 0, 0});
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t k = 0; k < options.actors.size(); ++k) {
      const DistributedBenchRow row = measure(round, options.actors[k], options.seconds / rounds);
      if (row.games_per_s() > best[k].games_per_s()) best[k] = row;
    }
  }
  for (const auto& row : best) {
    const int n = row.actors;
    result.rows.push_back(row);
    const double base = result.rows.front().games_per_s();
    if (options.json) {
      out << json{{"kind", "distributed"}, {"game", options.game}, {"actors", n}, {"games", row.games},
                  {"seconds", row.seconds}, {"games_per_s", row.games_per_s()},
                  {"vs_first", base > 0 ? row.games_per_s() / base : 0.0}, {"load_average", row.load}}
                 .dump()
          << std::endl;
    } else {
      std::snprintf(buf, sizeof buf, "%6d %9lld %9.1f %9.1f %10.2fx %8.2f\n", n, static_cast<long long>(row.games),
                    row.seconds, row.games_per_s(), base > 0 ? row.games_per_s() / base : 0.0, row.load);
      out << buf << std::flush;
    }
  }

  // The overhead per game, on games the actors sent.
  const RedisReply entries =
      redis.command({"XREVRANGE", stream, "+", "-", "COUNT", std::to_string(std::max(1, options.overhead_games))});
  std::vector<std::string> payloads;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const RedisReply fields = entries[i][1];
    for (std::size_t f = 0; f + 1 < fields.size(); f += 2) {
      if (fields[f].str() == "g") payloads.push_back(fields[f + 1].str());
    }
  }
  if (payloads.empty()) throw util::RunError("bench distributed: the stream holds no games to measure the overhead on");
  const std::int64_t length = redis.command({"XLEN", stream}).integer();
  const RedisReply memory = redis.command({"MEMORY", "USAGE", stream, "SAMPLES", "0"});
  std::size_t bytes = 0;
  for (const auto& p : payloads) bytes += p.size();
  result.bytes_per_game = static_cast<double>(bytes) / static_cast<double>(payloads.size());
  result.stream_bytes_per_game = length > 0 ? static_cast<double>(memory.integer()) / static_cast<double>(length) : 0;
  const std::string scratch = store.key("bench-scratch");
  auto t = Clock::now();
  for (const auto& p : payloads) {
    redis.command({"XADD", scratch, "MAXLEN", "~", "1000", "*", "g", p, "actor", "bench", "v", "0"});
  }
  result.xadd_ms = 1000 * seconds_since(t) / static_cast<double>(payloads.size());
  redis.command({"DEL", scratch});
  t = Clock::now();
  std::size_t moves = 0;
  for (const auto& p : payloads) moves += decode_game(p).actions.size();
  result.decode_ms = 1000 * seconds_since(t) / static_cast<double>(payloads.size());
  const double one = result.rows.front().games_per_s() / static_cast<double>(result.rows.front().actors);
  result.play_ms = one > 0 ? 1000 / one : 0;
  const double share = result.play_ms > 0 ? result.xadd_ms / result.play_ms : 0;
  if (options.json) {
    json summary = {{"kind", "distributed_overhead"}, {"game", options.game},
                    {"bytes_per_game", result.bytes_per_game}, {"stream_bytes_per_game", result.stream_bytes_per_game},
                    {"xadd_ms", result.xadd_ms}, {"decode_ms", result.decode_ms}, {"play_ms", result.play_ms},
                    {"xadd_share_of_play", share}, {"games_measured", payloads.size()}};
    json scaling = json::object();
    for (const auto& row : result.rows) {
      scaling[std::to_string(row.actors)] = result.rows.front().games_per_s() > 0
                                                 ? row.games_per_s() / result.rows.front().games_per_s()
                                                 : 0.0;
    }
    summary["games_per_s_vs_first"] = scaling;
    out << summary.dump() << std::endl;
  } else {
    std::snprintf(buf, sizeof buf,
                  "redis per game (%zu games, %.1f moves each): %.0f bytes compressed, %.0f bytes of stream memory per "
                  "entry;\n",
                  payloads.size(), static_cast<double>(moves) / static_cast<double>(payloads.size()), result.bytes_per_game,
                  result.stream_bytes_per_game);
    out << buf;
    std::snprintf(buf, sizeof buf,
                  "  XADD round trip %.3f ms, decode %.3f ms; an actor plays a game in %.2f ms: XADD/play = %.4f "
                  "(%.2f%% of an actor's time)\n",
                  result.xadd_ms, result.decode_ms, result.play_ms, share, 100 * share);
    out << buf;
  }
  return result;
}

}  // namespace pz::distributed
