// Accuracy against ground truth: the share of labelled positions (position_set.h) where a
// player's move keeps the game-theoretic value (a win stays a win, a draw a draw; in a lost
// position every move keeps the value, so those are not in the sets). Reported with a 95%
// Wilson score interval, overall and broken down by game phase (thirds of the game's
// longest length) and by difficulty: positions that one ply of lookahead settles (an
// immediate win, or every wrong move loses at once) apart from the rest, since a search
// with an immediate-win check gets the former for free.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "games/game.h"
#include "solve/position_set.h"

namespace pz::solve {

struct AccuracyShare {
  std::string name;  // "all", "opening (plies 0-13)", "one ply", "harder", …
  int positions = 0, correct = 0;
  double share = 0, low = 0, high = 0;  // correct / positions and its 95% interval
};

struct AccuracyReport {
  std::string player;
  AccuracyShare all;
  std::vector<AccuracyShare> by_phase, by_difficulty;
  double seconds = 0;
  bool stopped = false;  // `stop` ended it: the shares count the positions played so far
};

// The 95% Wilson score interval of `correct` out of `positions` (Wilson, JASA 1927).
AccuracyShare accuracy_share(std::string name, int positions, int correct);

// Plays `player_spec` (an arena player, made once with `seed`, reset to each position) on
// every position of `set`, or until `stop` is set (from another thread). Throws
// util::UsageError for a bad spec.
AccuracyReport measure_accuracy(const games::Game& game, const PositionSet& set, const std::string& player_spec,
                                std::uint64_t seed = 1, const std::atomic<bool>* stop = nullptr);

}  // namespace pz::solve
