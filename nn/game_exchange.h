// Where a learner gets its games from and sends its weights to when the actors are other
// processes (distributed/: Redis), instead of its own actor threads. The trainer (trainer.h) calls
// it from the learner thread only; with TrainOptions::exchange unset nothing here runs.
//
//   poll          hands the games that arrived since the last call to `sink` (which puts them
//                 in the replay buffer); `waiting` says the learner has nothing else to do,
//                 so a short wait for games (tens of ms) is fine. Never throws for a data
//                 plane that is away: it reconnects in later calls.
//   publish       the learner's weights after `step`, for the actors.
//   checkpoint_state / checkpoint_written / restore
//                 the exchange's part of a checkpoint: what it must know after a restart to
//                 hand over every game that is not in the restored replay buffer, and none
//                 that is. checkpoint_state() goes into the checkpoint's state.json;
//                 checkpoint_written() follows once the checkpoint is durable (a game
//                 is acknowledged to the data plane only then); restore() gets the state of
//                 the checkpoint a resumed learner starts from (null when it starts afresh).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>

#include "mcts/selfplay.h"
#include "nn/weights.h"

namespace pz::nn {

struct LearnerProgress {
  std::int64_t step = 0;
  double lr = 0;
  std::int64_t games = 0, samples = 0;
  std::size_t buffer = 0;
};

class GameExchange {
 public:
  virtual ~GameExchange() = default;
  virtual void poll(const LearnerProgress& progress, bool waiting, const std::function<void(mcts::GameRecord&&)>& sink) = 0;
  virtual void publish(const LearnerProgress& progress, const NetWeights& weights) = 0;
  virtual nlohmann::json checkpoint_state() = 0;
  virtual void checkpoint_written(const LearnerProgress& progress) = 0;
  virtual void restore(const nlohmann::json& state) = 0;
};

}  // namespace pz::nn
