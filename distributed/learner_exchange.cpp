#include "distributed/learner_exchange.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "distributed/codec.h"
#include "util/error.h"

namespace pz::distributed {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

RedisGameExchange::RedisGameExchange(const LearnerExchangeOptions& options, const std::string& game, const json& config)
    : options_(options),
      game_(game),
      config_(config),
      consumer_("learner-" + std::to_string(options.rank)),
      redis_(options.redis),
      store_(redis_, options.run),
      progress_(options.quiet) {
  connect_at_start(redis_);
  register_run();
}

// Rank 0 registers the run (its meta is the run's shared state); the other ranks only check
// that a registered run is of their game. Every rank makes sure the group exists: each
// reads through it.
void RedisGameExchange::register_run() {
  if (options_.rank == 0) {
    store_.register_run(game_, config_);
  } else if (const auto meta = store_.read_meta(); meta && meta->game != game_) {
    throw util::UsageError("run '" + options_.run + "' on " + redis_.describe() + " is a run of " + meta->game +
                           ", not of " + game_ + ": learner " + consumer_ + " was started with another game than rank 0");
  }
  store_.ensure_group();
}

bool RedisGameExchange::ensure_connection() {
  if (!redis_.try_reconnect()) return false;
  if (away_) {
    away_ = false;
    progress_.message("reconnected to " + redis_.describe());
    registered_ = false;
  }
  if (!registered_) {  // Redis may have come back empty: register the run and the group again
    register_run();
    if (store_.latest_version() == 0 && !unsent_weights_ && version_ > 0) {
      progress_.warning("the run's models are gone from " + redis_.describe() +
                        " (restarted without persistence?); the next publish registers one");
    }
    registered_ = true;
  }
  return true;
}

void RedisGameExchange::handle(const RedisError& e) {
  if (e.kind() == RedisError::Kind::kAuth) throw util::UsageError(e.what());
  if (e.kind() == RedisError::Kind::kServer) {
    const std::string what = e.what();
    if (what.find("NOGROUP") != std::string::npos) {
      registered_ = false;  // the stream or the group vanished: create them again
      return;
    }
    progress_.warning(what);
    return;
  }
  if (!away_) progress_.warning(std::string(e.what()) + "; training goes on with the games it has, reconnecting with backoff");
  away_ = true;
}

void RedisGameExchange::take(const std::vector<StreamEntry>& entries, bool pending,
                             const std::function<void(mcts::GameRecord&&)>& sink) {
  for (const auto& e : entries) {
    if (e.deleted) {  // trimmed by the stream's cap before any checkpoint held it
      to_ack_now_.push_back(e.id);
      continue;
    }
    if (pending && in_checkpoint_.count(e.id)) {  // the restored buffer holds it already
      to_ack_now_.push_back(e.id);
      continue;
    }
    const auto it = e.fields.find("g");
    mcts::GameRecord record;
    try {
      if (it == e.fields.end()) throw CodecError("the entry has no field g");
      record = decode_game(it->second);
      if (record.game != game_) throw CodecError("a game of " + record.game + ", not " + game_);
    } catch (const std::exception& ex) {
      if (rejected_++ < 10) progress_.warning("stream entry " + e.id + " skipped: " + ex.what());
      to_ack_now_.push_back(e.id);
      continue;
    }
    sink(std::move(record));
    unacked_.push_back(e.id);
    ++received_;
  }
}

void RedisGameExchange::flush_acks() {
  if (to_ack_now_.empty()) return;
  store_.ack(to_ack_now_);
  to_ack_now_.clear();
}

void RedisGameExchange::poll(const nn::LearnerProgress& progress, bool waiting,
                             const std::function<void(mcts::GameRecord&&)>& sink) {
  try {
    if (!ensure_connection()) {
      if (waiting) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      return;
    }
    if (unsent_weights_) {
      auto [p, bytes] = *unsent_weights_;
      send_weights(p, bytes);
    }
    flush_acks();
    if (!pending_read_) {  // this consumer's entries from before a restart
      std::string from = "0";
      for (;;) {
        const auto entries = store_.read_group(consumer_, from, 256, 0);
        if (entries.empty()) break;
        take(entries, true, sink);
        from = entries.back().id;
      }
      flush_acks();
      pending_read_ = true;
      in_checkpoint_.clear();
    }
    // Looked for every 10 s, or every claim_idle_ms when that is shorter.
    if (seconds_since(last_claim_) >= std::min(10.0, static_cast<double>(options_.claim_idle_ms) / 1000.0)) {
      last_claim_ = Clock::now();
      take(store_.claim_from_dead(consumer_, options_.claim_idle_ms, 256), false, sink);
    }
    take(store_.read_group(consumer_, ">", 256, waiting ? 50 : 0), false, sink);
    flush_acks();
    if (seconds_since(last_heartbeat_) >= 2) heartbeat(progress);
  } catch (const RedisError& e) {
    handle(e);
    if (waiting) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void RedisGameExchange::heartbeat(const nn::LearnerProgress& p) {
  last_heartbeat_ = Clock::now();
  char lr[32];
  std::snprintf(lr, sizeof lr, "%.9g", p.lr);
  store_.learner_heartbeat(consumer_, options_.rank == 0, {{"step", std::to_string(p.step)},
                            {"lr", lr},
                            {"games", std::to_string(p.games)},
                            {"samples", std::to_string(p.samples)},
                            {"buffer", std::to_string(p.buffer)},
                            {"version", std::to_string(version_)},
                            {"checkpoint_step", std::to_string(checkpoint_step_)},
                            {"consumer", consumer_},
                            {"updated", std::to_string(unix_ms())}},
                           // Evaluations run in the learner thread between polls: 30 s covers
                           // the usual ones without a heartbeat thread.
                           30);
}

void RedisGameExchange::send_weights(const nn::LearnerProgress& p, const std::string& bytes) {
  json meta = {{"step", p.step}, {"lr", p.lr}, {"games", p.games}, {"learner", consumer_}};
  version_ = store_.publish_model(bytes, meta);
  unsent_weights_.reset();
}

void RedisGameExchange::publish(const nn::LearnerProgress& progress, const nn::NetWeights& weights) {
  if (options_.rank != 0) return;  // one publisher: every rank holds the same weights
  std::string bytes = encode_weights(weights);
  try {
    if (!ensure_connection()) {
      unsent_weights_ = {progress, std::move(bytes)};
      return;
    }
    send_weights(progress, bytes);
    heartbeat(progress);
  } catch (const RedisError& e) {
    unsent_weights_ = {progress, std::move(bytes)};
    handle(e);
  }
}

json RedisGameExchange::checkpoint_state() {
  // Everything read and not yet acknowledged (acknowledgements that failed included): what a
  // learner restarted from this checkpoint must not add again.
  std::vector<std::string> ids = unacked_;
  ids.insert(ids.end(), to_ack_now_.begin(), to_ack_now_.end());
  return {{"consumer", consumer_}, {"unacknowledged", ids}};
}

void RedisGameExchange::checkpoint_written(const nn::LearnerProgress& progress) {
  checkpoint_step_ = progress.step;
  // Durable now: acknowledge (now, or at the next poll when Redis is away).
  to_ack_now_.insert(to_ack_now_.end(), unacked_.begin(), unacked_.end());
  unacked_.clear();
  try {
    if (ensure_connection()) {
      flush_acks();
      heartbeat(progress);
    }
  } catch (const RedisError& e) {
    handle(e);
  }
}

void RedisGameExchange::restore(const json& state) {
  in_checkpoint_.clear();
  unacked_.clear();
  to_ack_now_.clear();
  pending_read_ = false;
  if (state.is_object() && state.contains("unacknowledged")) {
    for (const auto& id : state["unacknowledged"]) in_checkpoint_.insert(id.get<std::string>());
    if (state.value("consumer", consumer_) != consumer_) {
      progress_.warning("the checkpoint was written by " + state.value("consumer", std::string()) + ", this learner is " +
                        consumer_ + ": its unacknowledged games are read again by their consumer");
    }
  }
}

}  // namespace pz::distributed
