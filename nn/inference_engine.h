// The network behind the search: an mcts::Evaluator over a network backend (backend.h:
// LibTorch's modules, or the forward pass the polyhedral compiler generated).
//
// Each evaluate() call is one forward pass over the positions that miss the cache, written
// into an input buffer allocated once (grown only if a larger batch arrives). Batching
// across actor threads is BatchingEvaluator's job (mcts/). The engine has `lanes` backends
// with their own buffers: up to that many evaluate() calls run their forward passes at once,
// each on its caller's thread (one backend thread each by default, so two actor threads
// keep two cores busy instead of queueing behind one forward); a caller beyond that waits
// for a lane. Priors are the softmax of the policy logits over the legal actions only.
//
// Symmetry averaging (`symmetries` > 1): each position is also evaluated as the game's
// symmetric boards, and the logits (mapped back to the board as it is) and values are
// averaged — an ensemble for the price of a larger batch that removes the network's
// orientation bias. With fewer than all symmetries, the identity plus others drawn by the
// position's hash, so a position always gets the same answer (and the cache stays exact).
//
// Evaluation cache: a direct-mapped table keyed by State::hash (which covers the player to
// move and rule state), holding logits and values; transpositions and the shared openings
// of self-play games are evaluated once; the lanes share it. publish() hot-swaps the
// weights: each lane's standby backend loads them while its lane keeps evaluating, and is
// swapped in between two of its batches; once every lane has the new weights the cache
// generation moves on, so no entry of the old network is served after publish() returns
// (a lane still on the old weights never writes an entry of the new generation). Searches
// in flight never pause.
//
// cancel() makes every later evaluate() throw Cancelled: the trainer's way to stop actors
// in the middle of their games.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <string>
#include <cstdint>
#include <mutex>
#include <span>
#include <stdexcept>
#include <vector>

#include "games/game.h"
#include "mcts/evaluator.h"
#include "nn/backend.h"
#include "nn/train_config.h"

namespace pz::nn {

class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("evaluation cancelled") {}
};

struct InferenceOptions {
  int max_batch = 256;             // initial input buffer rows (grows on demand)
  std::size_t cache_entries = 0;   // 0: no cache
  int symmetries = 1;              // boards averaged per position (1: as it is; 0 or more than
                                   // the game has: all of the game's symmetries)
  BackendOptions backend;          // which backend runs the network ("torch", "poly")
  int lanes = 1;                   // forward passes that may run at once (one backend each)
};

class InferenceEngine final : public mcts::Evaluator {
 public:
  struct Stats {
    std::int64_t calls = 0, positions = 0, forwards = 0, forward_rows = 0, cache_hits = 0;
    double mean_batch() const { return forwards > 0 ? static_cast<double>(forward_rows) / static_cast<double>(forwards) : 0; }
  };

  // `game` must outlive the engine; `config` is the network's shape and `weights` its
  // parameters (network.h export_weights), which the engine's backends copy.
  InferenceEngine(const games::Game& game, const NetConfig& config, const NetWeights& weights, InferenceOptions options = {});

  void evaluate(std::span<const mcts::EvalRequest> batch) override;
  int concurrent_calls() const override { return static_cast<int>(lanes_.size()); }
  void publish(const NetWeights& weights);
  std::string backend_name() const { return backend_name_; }
  void cancel() { cancelled_.store(true); }
  void clear_cache();
  Stats stats() const;

 private:
  // One forward pass at a time: a backend (and a standby for publish()) with its buffers.
  struct Lane {
    std::unique_ptr<Backend> active, standby;
    std::vector<float> input;
    std::vector<float> logits, values;  // outputs of the last forward pass
    std::vector<float> seat_values;
    std::vector<float> observation, mapped_logits, mean_logits, mean_values;
    std::vector<games::Symmetry> chosen;
    std::vector<std::size_t> misses;
  };
  Lane& acquire_lane();                 // waits for a free lane
  Lane& acquire_lane(std::size_t index);  // waits for that lane
  void release_lane(Lane& lane);
  // Fills the requests found in the cache; the others' indices go to lane.misses.
  void read_cache(Lane& lane, std::span<const mcts::EvalRequest> batch);
  void write_cache(std::uint64_t key, const float* logits, const float* values);
  void forward(Lane& lane, int rows);
  // The symmetries position `hash` is averaged over (the identity first).
  void choose_symmetries(std::uint64_t hash, std::vector<games::Symmetry>& out) const;
  // Means of the `symmetries_per_position_` output rows at logits/values (one position) into
  // lane.mean_logits/mean_values, in the untransformed board's action space.
  void average_over_symmetries(Lane& lane, std::uint64_t hash, const float* logits, const float* values) const;

  const games::Game& game_;
  const games::GameInfo value_info_;  // the game's info, returns scaled as the network's values are
  const int obs_size_, policy_size_, value_size_;
  InferenceOptions options_;
  std::string backend_name_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::mutex lanes_mutex_;
  std::condition_variable lane_freed_;
  std::vector<bool> lane_busy_;  // under lanes_mutex_
  std::mutex publish_mutex_;
  int symmetries_per_position_ = 1;
  std::vector<games::Symmetry> other_symmetries_;  // the game's, identity left out
  // Cache rows: key, generation, then policy_size_ logits and value_size_ values each; all
  // under cache_mutex_.
  mutable std::mutex cache_mutex_;
  std::vector<std::uint64_t> cache_keys_;
  std::vector<std::uint32_t> cache_generation_;
  std::vector<float> cache_data_;
  std::uint32_t generation_ = 1;
  std::atomic<bool> cancelled_{false};
  mutable std::mutex stats_mutex_;
  Stats stats_;
};

// The self-play engine of `config` for `actor_threads` actors: a batch of every actor's
// games, the config's cache and backend, and one lane per actor (each actor's forward pass
// on its own thread) unless one evaluation already takes several threads.
InferenceOptions selfplay_inference_options(const TrainConfig& config, int actor_threads);

}  // namespace pz::nn
