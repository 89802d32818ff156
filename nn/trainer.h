// The self-play trainer: actors and a learner around one replay buffer.
//
//   actors    `selfplay.threads` threads, each a SelfPlayActor (mcts/) advancing
//             `games_per_thread` games in lockstep; their evaluator calls merge in one
//             BatchingEvaluator in front of an InferenceEngine. Finished games become
//             samples (encoding.h) in the replay buffer and lines in games.jsonl.
//   learner   this thread: minibatches with augmentation → the learner's train_step
//             (training_learner.h: LibTorch's Learner where a build with LibTorch registered
//             it, else the poly learner, whose checkpoints are safetensors files); every
//             `publish_every` steps the weights are hot-swapped into the engine (actors never
//             pause); checkpoints, evaluations, metrics and plots on their schedules. The
//             learner waits while it would train on each sample more than max_replay_ratio
//             times on average, so a fast learner cannot overfit a slow trickle of games.
//
// Synchronous mode (selfplay.synchronous): actors and learner advance in lockstep rounds.
// In a round every actor plays its games_per_thread games with the weights of the previous
// round, while the learner trains on the buffer as it stood when the round began (as far as
// max_replay_ratio allows); then the round's games enter the buffer in actor order and the
// weights are published (publish_every is not used). The learner then sees the same samples
// at every step whatever the machine's load; with one actor thread the whole run is
// reproducible from the seed (with several, batches merged across threads may round
// differently). It costs throughput: a fast side idles while the slow one finishes.
//
// Stopping: the step bound, the time bound, or `stop` (a signal): the current step
// finishes, the engine is cancelled (actors abandon their games in progress, which never
// reach the buffer), a checkpoint is written and train() returns normally.
//
// Resume (`resume`): the newest complete checkpoint restores weights, optimiser, schedule,
// step counter, replay buffer and counters; metric lines written after it are dropped.
// Self-play after a resume draws new random streams (seeded from the run seed and the
// number of resumes): the games differ, the learner's state is exactly the saved one.
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "nn/data_parallel.h"
#include "nn/game_exchange.h"
#include "nn/learner_config.h"
#include "nn/train_config.h"

namespace pz::nn {

struct TrainOptions {
  std::string run_dir;
  bool resume = false;
  std::int64_t max_steps = 0;  // stop at this step (0: config learner.steps)
  double minutes = 0;          // stop after this many minutes of this invocation (0: no limit)
  bool quiet = false;          // no progress line or summaries
  bool log_json = false;       // metrics lines on stdout too
  const std::atomic<bool>* stop = nullptr;
  // Every metrics line (metrics.jsonl) as it is written, on the trainer's threads, in order.
  std::function<void(const nlohmann::json&)> on_metrics;
  // Actors in other processes (distributed/): games come from and weights go to the exchange, and
  // no actor thread or inference engine runs here. Not with selfplay.synchronous or eval.gate.
  GameExchange* exchange = nullptr;
  // Data-parallel learners (data_parallel.h; with `exchange` only): this process is one rank
  // of the group, with its own run directory, replay buffer and games. The ranks agree before
  // every step on whether all may step, whether to stop (any rank's signal or time bound stops
  // all at the same step) and whether to checkpoint (rank 0's clock), so every rank takes the
  // same steps and checkpoints at the same steps; evaluations run on rank 0 only. A games
  // exchange acknowledges a checkpoint's games only once every rank's checkpoint is durable.
  // On resume the ranks restart from the newest checkpoint step that all of them hold, then
  // take rank 0's weights and optimiser state. A rank that is gone fails the others'
  // next collective (GroupError): they stop without a checkpoint, for all to be restarted.
  DataParallelGroup* group = nullptr;
};

struct TrainResult {
  std::int64_t step = 0, games = 0, samples = 0;
  std::string checkpoint;  // the last one written
  bool interrupted = false;
  double seconds = 0;
  std::uint64_t weights_hash = 0;  // Learner::weights_hash at the end
};

TrainResult train(const TrainConfig& config, const TrainOptions& options);

// What `train` would otherwise refuse only once running, checked up front so that
// --print-config and the start of a run fail alike: the optimiser (its parameter-group rules
// against the network's parameters) and the schedule, every evaluation opponent's player
// spec, and the gate's openings. Throws util::UsageError naming the field.
void check_train_config(const TrainConfig& config);

// The learner's part of a run's config: the network, optimiser, schedule, loss weights and
// learner backend (what make_training_learner takes).
LearnerConfig learner_config(const TrainConfig& config);

// The config of an existing run (its config.json).
TrainConfig load_run_config(const std::string& run_dir);

}  // namespace pz::nn
