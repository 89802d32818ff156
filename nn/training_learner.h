// What the trainer (trainer.h) drives: a learner of either kind behind one interface, so
// that the trainer itself needs no LibTorch.
//
//   "poly"   PolyLearner (nn/poly/learner.h): the kernels polyc generates for the forward and
//            backward pass, the optimisers on plain arrays; no LibTorch. Its state is a
//            safetensors file (learner.safetensors).
//   "torch"  Learner (learner.h): LibTorch's ops, autograd and optimisers, in a build with
//            LibTorch; its state is a LibTorch archive (learner.pt).
//
// Both take LearnerConfig and report StepStats (learner_config.h) with the same loss,
// clipping, schedule and divergence checks, and both hold network.h's weights by name, so
// the model files a run writes are the same either way (model_file.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "games/game.h"
#include "nn/data_parallel.h"
#include "nn/learner_config.h"
#include "nn/replay_buffer.h"
#include "nn/weights.h"

namespace pz::nn {

class TrainingLearner {
 public:
  virtual ~TrainingLearner() = default;

  virtual StepStats train_step(const Batch& batch) = 0;
  virtual std::int64_t step() const = 0;
  virtual double lr() const = 0;  // the lr the next step trains with

  // The parameters and batch-norm statistics under network.h's names (a copy).
  virtual NetWeights current_weights() const = 0;
  // Replaces them; throws util::UsageError when a tensor is missing or has another size.
  virtual void set_weights(const NetWeights& weights) = 0;
  // FNV-1a over the weights' bytes in the network's order: equal on ranks whose weights are.
  virtual std::uint64_t weights_hash() const = 0;

  // The learner state's file name in a checkpoint.
  virtual std::string state_file_name() const = 0;
  virtual void save_state(const std::string& path) const = 0;
  // Throws util::UsageError when the file is unreadable or made for another optimiser.
  virtual void load_state(const std::string& path) = 0;

  // Data-parallel training (data_parallel.h); a learner without it throws util::UsageError
  // for a group.
  virtual void set_group(DataParallelGroup* group) = 0;
  virtual void broadcast_from_root() = 0;
};

// Makes a learner with LibTorch (learner.h's Learner); a build with LibTorch installs one
// (learner.h's register_torch_learner).
using TorchLearnerMaker = std::unique_ptr<TrainingLearner> (*)(const games::Game& game, const LearnerConfig& config,
                                                               std::uint64_t seed);
void set_torch_learner_maker(TorchLearnerMaker maker);

// The learner `config.backend` names: a PolyLearner for "poly"; the installed Learner for
// "torch" (without one, a util::UsageError that says how to get it); for "auto" a
// PolyLearner, or the Learner with a warning on stderr when the poly kernels cannot be
// built (no C compiler) and one is installed. `seed` draws the initial weights.
std::unique_ptr<TrainingLearner> make_training_learner(const games::Game& game, const LearnerConfig& config,
                                                       std::uint64_t seed);

// Checks what a learner would refuse only once built — the optimiser (its parameter-group
// rules against the network's parameters) and the schedule — without building one (no
// kernels compiled). Throws util::UsageError naming the field.
void check_learner_config(const games::Game& game, const LearnerConfig& config);

}  // namespace pz::nn
