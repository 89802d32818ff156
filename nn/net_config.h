// The shape of a policy-value network, as configs and checkpoints spell it:
//
//   {"type": "resnet", "blocks": 4, "channels": 48, "policy_channels": 2,
//    "value_channels": 2, "value_hidden": 64}
//
// One residual tower of `blocks` blocks (two 3×3 conv + batch-norm layers and a skip each)
// of `channels` channels after a 3×3 stem; a policy head and a value head (network.h says
// how each head adapts to the game). Torch-free, so configs are read and checked without
// loading LibTorch.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "games/game.h"

namespace pz::nn {

struct NetConfig {
  std::string type = "resnet";
  int blocks = 4;
  int channels = 48;
  int policy_channels = 2;  // 1×1 conv in front of a linear policy head (non-spatial games)
  int value_channels = 2;   // 1×1 conv in front of the value MLP
  int value_hidden = 64;

  nlohmann::json to_json() const;
  bool operator==(const NetConfig&) const = default;
};

// Throws util::UsageError naming the field ("network.blocks: must be an integer >= 1").
NetConfig parse_net_config(const nlohmann::json& config, const std::string& path = "network");

// What the network predicts for a game.
struct NetShape {
  games::Shape input;       // observation planes
  games::Shape policy;      // policy planes; the head emits policy.size() logits
  bool spatial_policy;      // policy planes are board-sized: the head is a 1×1 conv to A planes
  int value_outputs;        // 1 for one- and two-player zero-sum games, else one per seat
};
NetShape net_shape(const games::GameInfo& info);

}  // namespace pz::nn
