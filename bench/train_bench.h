// `polyzero bench train`: the trainer's three rates, measured separately on a fresh network
// of the game's training config.
//
//   self-play   actors (threads × games) through BatchingEvaluator and InferenceEngine, as in
//               training: positions (moves searched, counted as they are played, so
//               games still running count too) per second, network evaluations per second
//               and their mean batch size, cache hits
//   learner     minibatch optimiser steps on self-play samples: samples per second
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <cstdint>
#include <string>

#include "nn/train_config.h"

namespace pz::bench {

struct TrainBenchResult {
  std::string game;
  int threads = 0, games_per_thread = 0, simulations = 0, batch_size = 0;
  double selfplay_seconds = 0;
  std::int64_t positions = 0, games = 0, leaf_evaluations = 0, net_evaluations = 0, forwards = 0, cache_hits = 0;
  double learner_seconds = 0;
  std::int64_t learner_steps = 0;

  double positions_per_second() const { return positions / selfplay_seconds; }
  double leaf_evaluations_per_second() const { return leaf_evaluations / selfplay_seconds; }
  double net_evaluations_per_second() const { return net_evaluations / selfplay_seconds; }
  double mean_batch() const { return forwards > 0 ? static_cast<double>(net_evaluations) / forwards : 0; }
  double learner_samples_per_second() const { return learner_steps * batch_size / learner_seconds; }
};

TrainBenchResult measure_training(const nn::TrainConfig& config, double seconds);

struct TrainBenchOptions {
  std::vector<std::string> backends{"torch", "poly"};  // self-play network backends, one after the other
  double seconds = 10.0;  // self-play time per backend (the learner gets half of it, at least 1 s)
  bool json = false;      // one JSON object per backend instead of text
};

// `polyzero bench train`: the rates of `config` with each backend in turn.
void run_train_bench(nn::TrainConfig config, const TrainBenchOptions& options, std::ostream& out);

}  // namespace pz::bench
