#include "nn/inference_engine.h"

#include <algorithm>
#include <cmath>

#include "nn/encoding.h"

namespace pz::nn {

InferenceEngine::InferenceEngine(const games::Game& game, const NetConfig& config, const NetWeights& weights,
                                 InferenceOptions options)
    : game_(game),
      value_info_(value_scale(game.info(), config)),
      obs_size_(game.info().observation_shape.size()),
      policy_size_(game.info().policy_shape.size()),
      value_size_(net_shape(game.info()).value_outputs),
      options_(options) {
  const int available = static_cast<int>(game.symmetries().size());
  symmetries_per_position_ = options_.symmetries <= 0 ? available : std::min(options_.symmetries, available);
  symmetries_per_position_ = std::max(1, symmetries_per_position_);
  for (games::Symmetry sym : game.symmetries()) {
    if (sym != games::Symmetry::kIdentity) other_symmetries_.push_back(sym);
  }
  const int lanes = std::max(1, options_.lanes);
  for (int i = 0; i < lanes; ++i) {
    auto lane = std::make_unique<Lane>();
    lane->active = make_backend(options.backend, config, net_shape(game.info()));
    lane->standby = make_backend(options.backend, config, net_shape(game.info()));
    lane->active->load(weights);
    lane->standby->load(weights);
    lane->input.resize(static_cast<std::size_t>(std::max(1, options_.max_batch)) * static_cast<std::size_t>(obs_size_));
    lane->seat_values.resize(static_cast<std::size_t>(game.info().num_players));
    lane->observation.resize(static_cast<std::size_t>(obs_size_));
    lane->mapped_logits.resize(static_cast<std::size_t>(policy_size_));
    lane->mean_logits.resize(static_cast<std::size_t>(policy_size_));
    lane->mean_values.resize(static_cast<std::size_t>(value_size_));
    lanes_.push_back(std::move(lane));
  }
  lane_busy_.assign(lanes_.size(), false);
  backend_name_ = lanes_.front()->active->name();
  if (options_.cache_entries > 0) {
    cache_keys_.assign(options_.cache_entries, 0);
    cache_generation_.assign(options_.cache_entries, 0);
    cache_data_.assign(options_.cache_entries * static_cast<std::size_t>(policy_size_ + value_size_), 0.0f);
  }
}

InferenceEngine::Lane& InferenceEngine::acquire_lane() {
  std::unique_lock lock(lanes_mutex_);
  for (;;) {
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
      if (!lane_busy_[i]) {
        lane_busy_[i] = true;
        return *lanes_[i];
      }
    }
    lane_freed_.wait(lock);
  }
}

InferenceEngine::Lane& InferenceEngine::acquire_lane(std::size_t index) {
  std::unique_lock lock(lanes_mutex_);
  lane_freed_.wait(lock, [&] { return !lane_busy_[index]; });
  lane_busy_[index] = true;
  return *lanes_[index];
}

void InferenceEngine::release_lane(Lane& lane) {
  {
    std::lock_guard lock(lanes_mutex_);
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
      if (lanes_[i].get() == &lane) lane_busy_[i] = false;
    }
  }
  lane_freed_.notify_all();
}

void InferenceEngine::forward(Lane& lane, int rows) {
  lane.logits.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(policy_size_));
  lane.values.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(value_size_));
  lane.active->forward(lane.input.data(), rows, lane.logits.data(), lane.values.data());
}

void InferenceEngine::choose_symmetries(std::uint64_t hash, std::vector<games::Symmetry>& out) const {
  out.clear();
  out.push_back(games::Symmetry::kIdentity);
  const std::vector<games::Symmetry>& others = other_symmetries_;
  // A window of consecutive others starting where the hash says: every symmetry is used
  // equally often over many positions.
  const std::size_t start = others.empty() ? 0 : static_cast<std::size_t>(hash % others.size());
  for (int k = 0; k + 1 < symmetries_per_position_; ++k) out.push_back(others[(start + k) % others.size()]);
}

namespace {

void fill_request(const games::GameInfo& info, const mcts::EvalRequest& req, const float* logits, const float* values,
                  std::vector<float>& seat_values) {
  if (!req.legal.empty()) {
    float best = -INFINITY;
    for (games::Action a : req.legal) best = std::max(best, logits[a]);
    float sum = 0;
    for (std::size_t i = 0; i < req.legal.size(); ++i) {
      req.priors[i] = std::exp(logits[req.legal[i]] - best);
      sum += req.priors[i];
    }
    for (std::size_t i = 0; i < req.legal.size(); ++i) req.priors[i] /= sum;
  }
  values_for_seats(info, viewer_of(*req.state), values, seat_values.data());
  std::copy(seat_values.begin(), seat_values.end(), req.values);
}

}  // namespace

void InferenceEngine::evaluate(std::span<const mcts::EvalRequest> batch) {
  if (cancelled_.load()) throw Cancelled();
  Lane& lane = acquire_lane();
  struct Release {
    InferenceEngine& engine;
    Lane& lane;
    ~Release() { engine.release_lane(lane); }
  } release{*this, lane};
  if (cancelled_.load()) throw Cancelled();
  read_cache(lane, batch);
  const std::vector<std::size_t>& misses = lane.misses;
  const auto rows = static_cast<std::int64_t>(misses.size());
  const int per = symmetries_per_position_;
  const std::int64_t input_rows = rows * per;
  {
    std::lock_guard lock(stats_mutex_);
    ++stats_.calls;
    stats_.positions += static_cast<std::int64_t>(batch.size());
    stats_.cache_hits += static_cast<std::int64_t>(batch.size()) - rows;
    if (rows > 0) {
      ++stats_.forwards;
      stats_.forward_rows += input_rows;
    }
  }
  if (misses.empty()) return;
  if (static_cast<std::size_t>(input_rows) * static_cast<std::size_t>(obs_size_) > lane.input.size())
    lane.input.resize(static_cast<std::size_t>(input_rows) * static_cast<std::size_t>(obs_size_));
  float* in = lane.input.data();
  const games::Shape& obs_shape = game_.info().observation_shape;
  for (std::size_t r = 0; r < misses.size(); ++r) {
    const games::State& state = *batch[misses[r]].state;
    float* row = in + r * per * static_cast<std::size_t>(obs_size_);
    if (per == 1) {
      state.observation(viewer_of(state), row);
      continue;
    }
    state.observation(viewer_of(state), lane.observation.data());
    choose_symmetries(state.hash(), lane.chosen);
    for (int k = 0; k < per; ++k) {
      game_.transform_planes(lane.chosen[k], obs_shape, lane.observation.data(), row + k * static_cast<std::size_t>(obs_size_));
    }
  }
  forward(lane, static_cast<int>(input_rows));
  for (std::size_t r = 0; r < misses.size(); ++r) {
    const mcts::EvalRequest& req = batch[misses[r]];
    const float* logits = &lane.logits[r * per * static_cast<std::size_t>(policy_size_)];
    const float* values = &lane.values[r * per * static_cast<std::size_t>(value_size_)];
    if (per > 1) {
      average_over_symmetries(lane, req.state->hash(), logits, values);
      logits = lane.mean_logits.data();
      values = lane.mean_values.data();
    }
    if (!cache_keys_.empty()) write_cache(req.state->hash(), logits, values);
    fill_request(value_info_, req, logits, values, lane.seat_values);
  }
}

void InferenceEngine::read_cache(Lane& lane, std::span<const mcts::EvalRequest> batch) {
  lane.misses.clear();
  if (cache_keys_.empty()) {
    for (std::size_t i = 0; i < batch.size(); ++i) lane.misses.push_back(i);
    return;
  }
  const std::size_t row_size = static_cast<std::size_t>(policy_size_ + value_size_);
  std::lock_guard lock(cache_mutex_);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const mcts::EvalRequest& req = batch[i];
    const std::uint64_t key = req.state->hash();
    const std::size_t slot = key % cache_keys_.size();
    if (cache_keys_[slot] == key && cache_generation_[slot] == generation_) {
      const float* row = &cache_data_[slot * row_size];
      fill_request(value_info_, req, row, row + policy_size_, lane.seat_values);
    } else {
      lane.misses.push_back(i);
    }
  }
}

// Called by a lane holding the weights it evaluated with: publish() moves the generation on
// only after swapping every lane, so this entry's generation is its network's.
void InferenceEngine::write_cache(std::uint64_t key, const float* logits, const float* values) {
  const std::size_t row_size = static_cast<std::size_t>(policy_size_ + value_size_);
  const std::size_t slot = key % cache_keys_.size();
  std::lock_guard lock(cache_mutex_);
  cache_keys_[slot] = key;
  cache_generation_[slot] = generation_;
  float* row = &cache_data_[slot * row_size];
  std::copy_n(logits, policy_size_, row);
  std::copy_n(values, value_size_, row + policy_size_);
}

void InferenceEngine::average_over_symmetries(Lane& lane, std::uint64_t hash, const float* logits,
                                              const float* values) const {
  const int per = symmetries_per_position_;
  choose_symmetries(hash, lane.chosen);
  std::fill(lane.mean_logits.begin(), lane.mean_logits.end(), 0.0f);
  std::fill(lane.mean_values.begin(), lane.mean_values.end(), 0.0f);
  for (int k = 0; k < per; ++k) {
    // The network saw the board transformed by chosen[k]: its policy maps back through the
    // inverse symmetry; values do not depend on orientation.
    const float* row_logits = logits + k * static_cast<std::size_t>(policy_size_);
    game_.transform_policy(games::inverse(lane.chosen[k]), row_logits, lane.mapped_logits.data());
    for (int a = 0; a < policy_size_; ++a) lane.mean_logits[a] += lane.mapped_logits[a] / static_cast<float>(per);
    for (int v = 0; v < value_size_; ++v) lane.mean_values[v] += values[k * value_size_ + v] / static_cast<float>(per);
  }
}

void InferenceEngine::publish(const NetWeights& weights) {
  std::lock_guard publishing(publish_mutex_);
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    lanes_[i]->standby->load(weights);  // while the lane keeps evaluating
    Lane& lane = acquire_lane(i);
    std::swap(lane.active, lane.standby);
    release_lane(lane);
  }
  std::lock_guard lock(cache_mutex_);
  ++generation_;
}

void InferenceEngine::clear_cache() {
  std::lock_guard lock(cache_mutex_);
  ++generation_;
}

InferenceEngine::Stats InferenceEngine::stats() const {
  std::lock_guard lock(stats_mutex_);
  return stats_;
}

InferenceOptions selfplay_inference_options(const TrainConfig& config, int actor_threads) {
  InferenceOptions io;
  io.max_batch = actor_threads * config.selfplay.games_per_actor * config.selfplay.leaves_per_tree;
  io.cache_entries = config.cache_entries;
  io.backend.name = config.backend;
  io.backend.threads = config.backend_threads;
  io.lanes = config.backend_threads > 1 ? 1 : actor_threads;
  return io;
}

}  // namespace pz::nn
