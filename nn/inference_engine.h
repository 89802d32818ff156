// The network behind the search: an mcts::Evaluator over a network backend (backend.h:
// LibTorch's modules, or the forward pass the polyhedral compiler generated).
//
// Each evaluate() call is one forward pass over the positions that miss the cache, written
// into an input buffer allocated once (grown only if a larger batch arrives). Batching across actor threads is BatchingEvaluator's job (mcts/); this class
// serialises its callers with a mutex, so it is also safe to call directly from several
// threads. Priors are the softmax of the policy logits over the legal actions only.
//
// Symmetry averaging (`symmetries` > 1): each position is also evaluated as the game's
// symmetric boards, and the logits (mapped back to the board as it is) and values are
// averaged — an ensemble for the price of a larger batch that removes the network's
// orientation bias. With fewer than all symmetries, the identity plus others drawn by the
// position's hash, so a position always gets the same answer (and the cache stays exact).
//
// Evaluation cache: a direct-mapped table keyed by State::hash (which covers the player to
// move and rule state), holding logits and values; transpositions and the shared openings
// of self-play games are evaluated once. publish() hot-swaps the weights: they are loaded
// into a standby backend outside the lock and swapped in between two batches, and the
// cache generation moves on so no stale entry is served. Searches in flight never pause.
//
// cancel() makes every later evaluate() throw Cancelled: the trainer's way to stop actors
// in the middle of their games.
#pragma once

#include <atomic>
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
  void publish(const NetWeights& weights);
  std::string backend_name() const { return active_->name(); }
  void cancel() { cancelled_.store(true); }
  void clear_cache();
  Stats stats() const;

 private:
  void forward(int rows);
  // The symmetries position `hash` is averaged over (the identity first).
  void choose_symmetries(std::uint64_t hash, std::vector<games::Symmetry>& out) const;
  // Means of the `symmetries_per_position_` output rows at logits/values (one position) into
  // mean_logits_/mean_values_, in the untransformed board's action space.
  void average_over_symmetries(std::uint64_t hash, const float* logits, const float* values);

  const games::Game& game_;
  const games::GameInfo value_info_;  // the game's info, returns scaled as the network's values are
  const int obs_size_, policy_size_, value_size_;
  InferenceOptions options_;
  mutable std::mutex mutex_;
  std::mutex publish_mutex_;
  std::unique_ptr<Backend> active_, standby_;
  std::vector<float> input_;
  std::vector<float> logits_, values_;  // outputs of the last forward pass
  std::vector<float> seat_values_;
  int symmetries_per_position_ = 1;
  std::vector<float> observation_, mapped_logits_, mean_logits_, mean_values_;
  std::vector<games::Symmetry> chosen_;
  std::vector<games::Symmetry> other_symmetries_;  // the game's, identity left out
  // Cache rows: key, generation, then policy_size_ logits and value_size_ values each.
  std::vector<std::uint64_t> cache_keys_;
  std::vector<std::uint32_t> cache_generation_;
  std::vector<float> cache_data_;
  std::uint32_t generation_ = 1;
  std::atomic<bool> cancelled_{false};
  Stats stats_;
};

}  // namespace pz::nn
