#include "distributed/actor.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "distributed/codec.h"
#include "distributed/run_store.h"
#include "games/registry.h"
#include "mcts/batching_evaluator.h"
#include "mcts/selfplay.h"
#include "nn/inference_engine.h"
#include "nn/libtorch.h"
#include "nn/progress.h"
#include "nn/train_config.h"
#include "util/error.h"

namespace pz::distributed {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct QueuedGame {
  std::string bytes;
  std::int64_t version = 0;
  std::uint64_t sequence = 0;
};

class Actor {
 public:
  explicit Actor(const ActorOptions& options)
      : options_(options), id_(options.id.empty() ? default_actor_id() : options.id), redis_(options.redis),
        store_(redis_, options.run), progress_(options.quiet) {}

  ActorResult run();

 private:
  bool must_stop() const;
  // One round of network work; false when Redis is away.
  void network_round(bool flush_only);
  void check_model();
  void heartbeat();
  void on_disconnect(const RedisError& e);
  // How many games may be sent now under max_backlog (pauses and resumes sending).
  int send_budget();
  void stop_threads();
  nn::NetWeights wait_for_first_model();

  const ActorOptions& options_;
  std::string id_;
  RedisClient redis_;
  RunStore store_;
  nn::Progress progress_;
  nn::TrainConfig config_;
  std::shared_ptr<const games::Game> game_;
  std::unique_ptr<nn::InferenceEngine> engine_;
  std::unique_ptr<mcts::BatchingEvaluator> batching_;
  std::vector<std::unique_ptr<mcts::SelfPlayActor>> actors_;
  std::vector<std::thread> threads_;

  std::mutex queue_mutex_, error_mutex_;
  std::condition_variable queue_space_;  // a sink waiting for room while sending is paused
  std::deque<QueuedGame> queue_;
  std::atomic<bool> paused_{false}, stopping_{false};
  std::int64_t backlog_ = 0;
  Clock::time_point paused_since_{};
  std::uint64_t next_sequence_ = 0;
  std::exception_ptr actor_error_;
  std::atomic<bool> failed_{false};
  std::atomic<std::int64_t> version_{0};
  std::int64_t bad_version_ = 0;  // a version whose weights did not fit: not retried
  ActorResult result_;
  std::atomic<std::int64_t> dropped_{0};
  bool away_ = false;
  Clock::time_point started_ = Clock::now(), last_model_check_{}, last_heartbeat_{};
  std::int64_t games_at_last_heartbeat_ = 0;
  Clock::time_point last_rate_time_ = Clock::now();
  double games_per_s_ = 0;
};

bool Actor::must_stop() const {
  if (options_.stop != nullptr && options_.stop->load()) return true;
  if (failed_) return true;
  if (options_.games > 0 && result_.games_sent >= options_.games) return true;
  return options_.minutes > 0 && seconds_since(started_) >= options_.minutes * 60;
}

void Actor::on_disconnect(const RedisError& e) {
  if (!away_) progress_.warning(std::string(e.what()) + "; self-play goes on, reconnecting with backoff");
  away_ = true;
  if (paused_) {  // the backlog is unknown while away: the queue's own bound applies (oldest dropped)
    result_.paused_seconds += seconds_since(paused_since_);
    paused_ = false;
    queue_space_.notify_all();
  }
}

nn::NetWeights Actor::wait_for_first_model() {
  bool told = false;
  while (!(options_.stop != nullptr && options_.stop->load())) {
    try {
      if (redis_.try_reconnect()) {
        const std::int64_t v = store_.latest_version();
        if (v > 0) {
          if (auto m = store_.fetch_model(v)) {
            version_ = v;
            return decode_weights(m->weights);
          }
        }
        if (!told) progress_.message("waiting for the learner's first model of run " + options_.run);
        told = true;
      }
    } catch (const RedisError& e) {
      if (e.kind() == RedisError::Kind::kAuth) throw util::UsageError(e.what());
      if (e.kind() == RedisError::Kind::kServer) throw;
      on_disconnect(e);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return {};
}

void Actor::check_model() {
  const std::int64_t v = store_.latest_version();
  if (v <= 0 || v == version_.load() || v == bad_version_) return;
  const auto m = store_.fetch_model(v);
  if (!m) return;  // replaced meanwhile: the next check finds the newer one
  try {
    engine_->publish(decode_weights(m->weights));
  } catch (const std::exception& e) {  // CodecError, or weights that do not fit the network
    progress_.warning("model version " + std::to_string(v) + " is unusable (" + e.what() + "); keeping version " +
                      std::to_string(version_.load()));
    bad_version_ = v;
    return;
  }
  version_ = v;
  ++result_.model_updates;
  result_.last_version = v;
  progress_.message("model version " + std::to_string(v) + " (learner step " +
                    std::to_string(m->meta.value("step", std::int64_t{0})) + ")");
}

void Actor::heartbeat() {
  const double dt = seconds_since(last_rate_time_);
  if (dt >= 1.0) {
    const double rate = static_cast<double>(result_.games_sent - games_at_last_heartbeat_) / dt;
    games_per_s_ = games_at_last_heartbeat_ == 0 && result_.games_sent == 0 ? 0 : rate;
    games_at_last_heartbeat_ = result_.games_sent;
    last_rate_time_ = Clock::now();
  }
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  std::size_t queued = 0;
  {
    std::lock_guard lock(queue_mutex_);
    queued = queue_.size();
  }
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.3f", games_per_s_);
  store_.actor_heartbeat(id_,
                         {{"host", host},
                          {"pid", std::to_string(::getpid())},
                          {"threads", std::to_string(options_.threads)},
                          {"games", std::to_string(result_.games_sent)},
                          {"games_per_s", rate},
                          {"version", std::to_string(version_.load())},
                          {"queued", std::to_string(queued)},
                          {"dropped", std::to_string(dropped_.load())},
                          {"paused", paused_ ? "1" : "0"},
                          {"backlog", std::to_string(backlog_)},
                          {"max_backlog", std::to_string(options_.max_backlog)},
                          {"updated", std::to_string(unix_ms())}},
                         10);
}

int Actor::send_budget() {
  if (options_.max_backlog <= 0) return 256;
  backlog_ = store_.backlog();
  const std::int64_t room = options_.max_backlog - backlog_;
  const bool pause = room <= 0;
  if (pause != paused_.load()) {
    if (pause) {
      ++result_.pauses;
      paused_since_ = Clock::now();
      progress_.message("sending paused: " + std::to_string(backlog_) + " games wait for the learners (--max-backlog " +
                        std::to_string(options_.max_backlog) + ")");
    } else {
      result_.paused_seconds += seconds_since(paused_since_);
      progress_.message("sending resumed after " + std::to_string(static_cast<long long>(seconds_since(paused_since_))) +
                        " s (backlog " + std::to_string(backlog_) + ")");
    }
    paused_ = pause;
    queue_space_.notify_all();
  }
  return static_cast<int>(std::clamp<std::int64_t>(room, 0, 256));
}

void Actor::stop_threads() {
  stopping_ = true;
  queue_space_.notify_all();
  engine_->cancel();
  for (auto& t : threads_) t.join();
}

void Actor::network_round(bool flush_only) {
  if (!redis_.try_reconnect()) return;
  if (away_) {
    away_ = false;
    ++result_.reconnects;
    progress_.message("reconnected to " + redis_.describe());
  }
  try {
    const int budget = send_budget();
    for (int sent = 0; sent < budget; ++sent) {
      QueuedGame g;
      {
        std::lock_guard lock(queue_mutex_);
        if (queue_.empty()) break;
        g = queue_.front();
      }
      store_.add_game(g.bytes, id_, g.version, options_.stream_cap);
      {
        std::lock_guard lock(queue_mutex_);
        // Unless the sink dropped it meanwhile (queue full), the front is still this game.
        if (!queue_.empty() && queue_.front().sequence == g.sequence) queue_.pop_front();
      }
      queue_space_.notify_one();
      ++result_.games_sent;
      if (options_.games > 0 && result_.games_sent >= options_.games) break;
    }
    if (flush_only) return;
    if (seconds_since(last_model_check_) >= 1.0) {
      last_model_check_ = Clock::now();
      check_model();
    }
    if (seconds_since(last_heartbeat_) >= 2.0) {
      last_heartbeat_ = Clock::now();
      heartbeat();
    }
  } catch (const RedisError& e) {
    if (e.kind() == RedisError::Kind::kAuth) throw util::UsageError(e.what());
    on_disconnect(e);
  }
}

ActorResult Actor::run() {
  connect_at_start(redis_);
  const RunMeta meta = store_.require_meta();
  config_ = nn::parse_train_config(meta.config);
  game_ = games::make_game(config_.game);
  if (!options_.backend.empty()) config_.backend = options_.backend;
  progress_.message("actor " + id_ + ": run " + options_.run + " (" + game_->spec().to_string() + ") on " +
                    redis_.describe() + ", " + std::to_string(options_.threads) + " thread(s) x " +
                    std::to_string(config_.selfplay.games_per_actor) + " games, " +
                    std::to_string(config_.selfplay.full_simulations) + " simulations per move");
  nn::NetWeights weights = wait_for_first_model();
  if (options_.stop != nullptr && options_.stop->load()) return result_;
  result_.last_version = version_;

  const nn::InferenceOptions io = nn::selfplay_inference_options(config_, options_.threads);
  engine_ = std::make_unique<nn::InferenceEngine>(*game_, config_.network, weights, io);
  progress_.message("model version " + std::to_string(version_.load()) + ", network backend " + engine_->backend_name());
  batching_ = std::make_unique<mcts::BatchingEvaluator>(*engine_, static_cast<std::size_t>(io.max_batch),
                                                        std::chrono::microseconds(2000), options_.threads);
  const auto sink = [this](mcts::GameRecord&& record) {
    QueuedGame g{encode_game(record), version_.load(), 0};
    std::unique_lock lock(queue_mutex_);
    // Paused by back-pressure: wait for room (the game is kept). Redis away: drop the oldest.
    queue_space_.wait(lock, [this] { return queue_.size() < options_.queue_cap || !paused_ || stopping_; });
    if (stopping_) return;
    g.sequence = next_sequence_++;
    if (queue_.size() >= options_.queue_cap) {
      queue_.pop_front();
      ++dropped_;
    }
    queue_.push_back(std::move(g));
  };
  const std::uint64_t seed_base = static_cast<std::uint64_t>(::getpid()) * 0x9E3779B97F4A7C15ULL ^
                                  static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
  for (int t = 0; t < options_.threads; ++t) {
    actors_.push_back(std::make_unique<mcts::SelfPlayActor>(*game_, config_.selfplay, *batching_,
                                                            seed_base + static_cast<std::uint64_t>(t) * 7919));
  }
  for (int t = 0; t < options_.threads; ++t) {
    threads_.emplace_back([this, t, &sink] {
      try {
        actors_[static_cast<std::size_t>(t)]->play(std::numeric_limits<int>::max() / 2, sink);
      } catch (const nn::Cancelled&) {
      } catch (...) {
        std::lock_guard lock(error_mutex_);
        if (!actor_error_) actor_error_ = std::current_exception();
        failed_ = true;
      }
    });
  }
  std::int64_t reported = 0;
  auto last_report = Clock::now();
  try {
    while (!must_stop()) {
      network_round(false);
      if (seconds_since(last_report) >= 30 && result_.games_sent > reported) {
        progress_.message(std::to_string(result_.games_sent) + " games sent (model version " +
                          std::to_string(version_.load()) + ")");
        reported = result_.games_sent;
        last_report = Clock::now();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  } catch (...) {
    stop_threads();
    throw;
  }
  stop_threads();
  {
    std::lock_guard lock(error_mutex_);
    if (actor_error_) std::rethrow_exception(actor_error_);
  }
  // Send what is queued, for a few seconds at most (unless the game limit is reached).
  const auto flush_start = Clock::now();
  while (seconds_since(flush_start) < 5 && !(options_.games > 0 && result_.games_sent >= options_.games)) {
    {
      std::lock_guard lock(queue_mutex_);
      if (queue_.empty()) break;
    }
    network_round(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  {
    std::lock_guard lock(queue_mutex_);
    result_.games_dropped = dropped_.load() + static_cast<std::int64_t>(queue_.size());
  }
  try {
    if (redis_.connected()) store_.remove_actor(id_);
  } catch (const RedisError&) {
  }
  if (paused_) result_.paused_seconds += seconds_since(paused_since_);
  result_.last_version = version_.load();
  result_.seconds = seconds_since(started_);
  return result_;
}

}  // namespace

std::string default_actor_id() {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  std::string h = host;
  for (char& c : h) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')) c = '_';
  }
  return (h.empty() ? std::string("host") : h) + "-" + std::to_string(::getpid());
}

ActorResult run_actor(const ActorOptions& options) {
  nn::register_libtorch();
  const std::string& id = options.id;
  if (!id.empty() && (id.size() > 64 || !std::all_of(id.begin(), id.end(), [](unsigned char c) {
                        return std::isalnum(c) != 0 || c == '.' || c == '_' || c == '-';
                      }))) {
    throw util::UsageError("--id '" + (id.size() <= 40 ? id : id.substr(0, 37) + "...") +
                           "': an actor's id is 1 to 64 letters, digits, '.', '_' or '-' (e.g. --id gpu3-a)");
  }
  if (options.max_backlog >= options.stream_cap) {
    throw util::UsageError("--max-backlog " + std::to_string(options.max_backlog) + " must be below --stream-cap " +
                           std::to_string(options.stream_cap) +
                           ": the stream's cap would trim games no learner has read; lower --max-backlog (e.g. " +
                           std::to_string(options.stream_cap / 5) + ") or raise --stream-cap");
  }
  if (options.max_backlog < 0) {
    throw util::UsageError("--max-backlog " + std::to_string(options.max_backlog) + ": a number of games, 0 for no limit");
  }
  Actor actor(options);
  return actor.run();
}

}  // namespace pz::distributed
