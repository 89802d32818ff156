// The shape of a policy-value network, as configs and checkpoints spell it:
//
//   {"type": "resnet", "blocks": 4, "channels": 48, "policy_channels": 2,
//    "value_channels": 2, "value_hidden": 64, "value_head": "scalar"}
//
// type      "resnet": one residual tower of `blocks` blocks (two 3×3 conv + batch-norm
//           layers and a skip each) of `channels` channels after a 3×3 stem, and heads that
//           flatten the board (weights sized for one board size).
//           "pooled": fully convolutional, KataGo-style: every second block is a global
//           pooling block (`global_channels` channels pooled into a per-channel bias), and
//           both heads pool the board globally, so one set of weights evaluates any board
//           size of a game (network.h).
// value_head "scalar": tanh output, MSE against the outcome. "wdl": win/draw/loss logits,
//           cross-entropy against the outcome; the value is P(win) − P(loss).
// value_range [lo, hi] (optional): the returns that the value's [-1, 1] stands for, instead
//           of the game's [min_return, max_return]. For scored games whose true bound is far
//           beyond real scores (2048's is 3.9 million, games score thousands): there every
//           target would sit at -1, where tanh is flat, and the value would learn nothing.
//           Returns outside the range are clamped.
// ownership, score (optional, default false): KataGo's auxiliary heads, for games scored on
//           their board (GameInfo::board_ownership: Go, Othello). "ownership" predicts who owns
//           each cell at the end (a 1×1 conv on the value head's features, one tanh per cell),
//           "score" the final margin divided by the board's cells (a linear layer on the value
//           head's hidden layer). They are trained, not searched: the learner weighs their
//           losses (train_config.h) and inference ignores them.
//
// network.h says how each head adapts to the game. Torch-free, so configs are read and
// checked without loading LibTorch.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "games/game.h"

namespace pz::nn {

struct NetConfig {
  std::string type = "resnet";
  int blocks = 4;
  int channels = 48;
  int policy_channels = 2;  // 1×1 conv in front of a linear policy head (non-spatial games)
  int value_channels = 2;   // 1×1 conv in front of the value MLP
  int value_hidden = 64;
  int global_channels = 16;  // "pooled" only: channels of each global pooling branch
  std::string value_head = "scalar";
  std::vector<double> value_range;  // {lo, hi}; empty: the game's return bounds
  bool ownership = false;
  bool score = false;

  bool pooled() const { return type == "pooled"; }
  bool wdl() const { return value_head == "wdl"; }
  bool auxiliary() const { return ownership || score; }
  // "scalar value head", "wdl value head, ownership and score heads": for messages.
  std::string describe_heads() const;
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
  bool board_ownership = false;  // GameInfo::board_ownership: the auxiliary heads may be built
};
NetShape net_shape(const games::GameInfo& info);

// Throws util::UsageError when `config` asks for auxiliary heads the game (`info`) has no
// targets for.
void check_net_config(const NetConfig& config, const games::GameInfo& info);

}  // namespace pz::nn
