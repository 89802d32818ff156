// Between games and networks: what a position looks like to the network, what the
// network's values mean in the game's units, and training samples with their symmetries.
//
// Conventions (decided here, used by the inference engine, the learner and the trainer):
//  * The network sees observation(viewer), the viewer being the player to move (seat 0 at a
//    simultaneous node, where every seat moves).
//  * Values live in [-1, 1] inside the network: the game's return bounds [min_return,
//    max_return] map linearly onto it, so a scored single-player game is normalised like a
//    win/loss game. Output k is the value of seat (viewer + k) mod players; one- and
//    two-player zero-sum games have one output, the viewer's (the opponent's is its negation).
//  * Policy targets are dense over the policy planes (policy_shape.size() cells, zero where
//    no move was searched).
#pragma once

#include <span>
#include <vector>

#include "games/game.h"
#include "mcts/selfplay.h"
#include "nn/net_config.h"

namespace pz::nn {

games::Player viewer_of(const games::State& state);

// `info` with the return bounds the network's values stand for (net_config.h value_range):
// what the functions below take as their GameInfo wherever a network is involved.
games::GameInfo value_scale(const games::GameInfo& info, const NetConfig& network);

// [min_return, max_return] → [-1, 1] (clamped) and back.
float normalize_return(const games::GameInfo& info, double value);
double denormalize_value(const games::GameInfo& info, float value);

// Per-seat values in return units (what mcts::Evaluator hands back) from the network's
// `net_values` (NetShape::value_outputs of them) for a position seen by `viewer`.
void values_for_seats(const games::GameInfo& info, games::Player viewer, const float* net_values, float* seat_values);

// The value target of a finished game for a position seen by `viewer`.
std::vector<float> value_target(const games::GameInfo& info, games::Player viewer, const std::vector<double>& returns);

struct Sample {
  std::vector<float> observation;  // observation_shape.size() floats, the viewer's side
  std::vector<float> policy;       // policy_shape.size() floats; empty: no policy target (fast search)
  std::vector<float> value;        // value_outputs floats in [-1, 1]
  // The auxiliary targets (net_config.h ownership, score), from the game's final state: one
  // plane of observation cells, State::final_ownership from the viewer's side, and
  // State::final_score over the number of cells. Empty: none (the network has no auxiliary
  // heads, or the game ended by resignation, before its board was decided).
  std::vector<float> ownership;
  float score = 0;
};

// One sample per searched position of a self-play game. `q_mix` in [0, 1] blends the root's
// search value into the outcome target ((1 - q_mix)·z + q_mix·q, single-output games only):
// it lowers the target's variance when games are long and noisy.
// Value targets are scaled for `network` (value_scale). When `network` has auxiliary heads,
// the game is replayed from record.actions to its final state for their targets.
std::vector<Sample> samples_from_game(const games::Game& game, const mcts::GameRecord& record, double q_mix = 0.0,
                                      const NetConfig& network = {});

// The sample as it would be for the board transformed by `symmetry`: observation and
// ownership through transform_planes, policy through transform_policy, value and score
// unchanged.
Sample transform_sample(const games::Game& game, games::Symmetry symmetry, const Sample& sample);

}  // namespace pz::nn
