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
      options_(options),
      active_(make_backend(options.backend, config, net_shape(game.info()))),
      standby_(make_backend(options.backend, config, net_shape(game.info()))) {
  active_->load(weights);
  standby_->load(weights);
  input_.resize(static_cast<std::size_t>(std::max(1, options_.max_batch)) * static_cast<std::size_t>(obs_size_));
  seat_values_.resize(static_cast<std::size_t>(game.info().num_players));
  const int available = static_cast<int>(game.symmetries().size());
  symmetries_per_position_ = options_.symmetries <= 0 ? available : std::min(options_.symmetries, available);
  symmetries_per_position_ = std::max(1, symmetries_per_position_);
  observation_.resize(static_cast<std::size_t>(obs_size_));
  for (games::Symmetry sym : game.symmetries()) {
    if (sym != games::Symmetry::kIdentity) other_symmetries_.push_back(sym);
  }
  mapped_logits_.resize(static_cast<std::size_t>(policy_size_));
  mean_logits_.resize(static_cast<std::size_t>(policy_size_));
  mean_values_.resize(static_cast<std::size_t>(value_size_));
  if (options_.cache_entries > 0) {
    cache_keys_.assign(options_.cache_entries, 0);
    cache_generation_.assign(options_.cache_entries, 0);
    cache_data_.assign(options_.cache_entries * static_cast<std::size_t>(policy_size_ + value_size_), 0.0f);
  }
}

void InferenceEngine::forward(int rows) {
  logits_.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(policy_size_));
  values_.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(value_size_));
  active_->forward(input_.data(), rows, logits_.data(), values_.data());
  ++stats_.forwards;
  stats_.forward_rows += rows;
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
  std::lock_guard lock(mutex_);
  if (cancelled_.load()) throw Cancelled();
  ++stats_.calls;
  stats_.positions += static_cast<std::int64_t>(batch.size());
  const games::GameInfo& info = value_info_;
  const std::size_t row_size = static_cast<std::size_t>(policy_size_ + value_size_);
  std::vector<std::size_t> misses;
  misses.reserve(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const mcts::EvalRequest& req = batch[i];
    if (!cache_keys_.empty()) {
      const std::uint64_t key = req.state->hash();
      const std::size_t slot = key % cache_keys_.size();
      if (cache_keys_[slot] == key && cache_generation_[slot] == generation_) {
        const float* row = &cache_data_[slot * row_size];
        fill_request(info, req, row, row + policy_size_, seat_values_);
        ++stats_.cache_hits;
        continue;
      }
    }
    misses.push_back(i);
  }
  if (misses.empty()) return;
  const auto rows = static_cast<std::int64_t>(misses.size());
  const int per = symmetries_per_position_;
  const std::int64_t input_rows = rows * per;
  if (static_cast<std::size_t>(input_rows) * static_cast<std::size_t>(obs_size_) > input_.size())
    input_.resize(static_cast<std::size_t>(input_rows) * static_cast<std::size_t>(obs_size_));
  float* in = input_.data();
  const games::Shape& obs_shape = game_.info().observation_shape;
  for (std::size_t r = 0; r < misses.size(); ++r) {
    const games::State& state = *batch[misses[r]].state;
    float* row = in + r * per * static_cast<std::size_t>(obs_size_);
    if (per == 1) {
      state.observation(viewer_of(state), row);
      continue;
    }
    state.observation(viewer_of(state), observation_.data());
    choose_symmetries(state.hash(), chosen_);
    for (int k = 0; k < per; ++k) {
      game_.transform_planes(chosen_[k], obs_shape, observation_.data(), row + k * static_cast<std::size_t>(obs_size_));
    }
  }
  forward(static_cast<int>(input_rows));
  for (std::size_t r = 0; r < misses.size(); ++r) {
    const mcts::EvalRequest& req = batch[misses[r]];
    const float* logits = &logits_[r * per * static_cast<std::size_t>(policy_size_)];
    const float* values = &values_[r * per * static_cast<std::size_t>(value_size_)];
    if (per > 1) {
      average_over_symmetries(req.state->hash(), logits, values);
      logits = mean_logits_.data();
      values = mean_values_.data();
    }
    if (!cache_keys_.empty()) {
      const std::uint64_t key = req.state->hash();
      const std::size_t slot = key % cache_keys_.size();
      cache_keys_[slot] = key;
      cache_generation_[slot] = generation_;
      float* row = &cache_data_[slot * row_size];
      std::copy_n(logits, policy_size_, row);
      std::copy_n(values, value_size_, row + policy_size_);
    }
    fill_request(info, req, logits, values, seat_values_);
  }
}

void InferenceEngine::average_over_symmetries(std::uint64_t hash, const float* logits, const float* values) {
  const int per = symmetries_per_position_;
  choose_symmetries(hash, chosen_);
  std::fill(mean_logits_.begin(), mean_logits_.end(), 0.0f);
  std::fill(mean_values_.begin(), mean_values_.end(), 0.0f);
  for (int k = 0; k < per; ++k) {
    // The network saw the board transformed by chosen_[k]: its policy maps back through the
    // inverse symmetry; values do not depend on orientation.
    const float* row_logits = logits + k * static_cast<std::size_t>(policy_size_);
    game_.transform_policy(games::inverse(chosen_[k]), row_logits, mapped_logits_.data());
    for (int a = 0; a < policy_size_; ++a) mean_logits_[a] += mapped_logits_[a] / static_cast<float>(per);
    for (int v = 0; v < value_size_; ++v) mean_values_[v] += values[k * value_size_ + v] / static_cast<float>(per);
  }
}

void InferenceEngine::publish(const NetWeights& weights) {
  std::lock_guard publishing(publish_mutex_);
  standby_->load(weights);  // outside the evaluation lock: searches keep running
  std::lock_guard lock(mutex_);
  std::swap(active_, standby_);
  ++generation_;
}

void InferenceEngine::clear_cache() {
  std::lock_guard lock(mutex_);
  ++generation_;
}

InferenceEngine::Stats InferenceEngine::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace pz::nn
