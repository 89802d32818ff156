// Model checkpoints: one file holding the weights, the network config, the game with its
// options, and provenance (training step, time, polyzero version, run directory).
//
// Two forms, read by content: a LibTorch archive (a zip; `.pt`), key "polyzero" holding the
// description as JSON text and key "weights" the module's parameters and buffers; or a
// safetensors file (model_file.h), readable without LibTorch, written when the path ends in
// ".safetensors". It is what `mcts:model=…`,
// `policy:model=…` and `polyzero info` read; training checkpoints (trainer.h) keep one beside
// the optimiser, scheduler and replay buffer. Errors a user can cause — a missing file,
// something that is not a checkpoint, a truncated or corrupt one, one made for another game
// — are util::UsageError with the file's name, never a crash.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>

#include "games/game.h"
#include "nn/model_info.h"
#include "nn/net_config.h"
#include "nn/network.h"

namespace pz::nn {

// Writes atomically (files.h).
void save_model(const std::string& path, PolicyValueNetImpl& net, const ModelInfo& info);

struct LoadedModel {
  ModelInfo info;
  std::shared_ptr<const games::Game> game;
  PolicyValueNet net{nullptr};  // in eval mode
};

LoadedModel load_model(const std::string& path);
// Also checks that the checkpoint was made for `game` (same canonical spec).
LoadedModel load_model_for(const std::string& path, const games::Game& game);

}  // namespace pz::nn
