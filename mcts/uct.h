// Classic UCT with random rollouts (Kocsis & Szepesvári; the `uct` player): the reference
// opponent every search-based player should beat, kept independent of the PUCT search so
// that a bug in one cannot hide in a comparison with the other.
//
// UCB1 selection Q + c·√(ln N / n) with values normalised to [0, 1] by the game's return
// bounds (single-player games: by the range of returns seen in the tree), unvisited children first (in an order shuffled at expansion); a node's children
// are created on its second visit, its first visit being a rollout from it. Chance nodes
// sample outcomes by probability; simultaneous nodes (two players) select decoupled UCB1
// per seat. A fresh tree each search, in one vector of nodes reused from move to move.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "games/game.h"
#include "mcts/search_config.h"
#include "util/rng.h"

namespace pz::mcts {

struct UctConfig {
  int simulations = 1000;  // per move (0: no limit; then max_seconds must be set)
  double max_seconds = 0;
  double c = 1.0;           // exploration constant (√2 is UCB1's textbook value)
  int rollouts = 1;         // playouts averaged per new leaf
  int worlds = kDefaultWorlds;         // hidden-information games: resampled states the budget is split over
};

class UctSearch {
 public:
  struct Stats {
    std::int64_t simulations = 0;
    std::size_t nodes = 0;
    std::vector<std::pair<games::Action, int>> root_visits;  // for `seat` at the last root
    double root_value = 0;  // for `seat`, in return units
  };

  UctSearch(const games::Game& game, UctConfig config, std::uint64_t seed);

  // Searches from `state` and returns the most visited action of `seat` (the mover, or a
  // seat at a simultaneous node). In hidden-information games it searches `worlds` states
  // resampled from what `seat` has observed and sums their root visits (determinization.h).
  games::Action choose(const games::State& state, games::Player seat);
  const Stats& last_stats() const { return stats_; }

 private:
  enum class Kind : std::uint8_t { kLeaf, kDecision, kChance, kSimultaneous };
  struct Node {
    games::Action action = games::kInvalidAction;
    std::int32_t first_child = -1;
    std::uint16_t num_children = 0;
    std::uint16_t split = 0;  // simultaneous: seat-0 marginals
    std::int8_t value_player = 0;
    Kind kind = Kind::kLeaf;
    float prior = 0;          // chance outcome probability
    std::int32_t visits = 0;
    double value_sum = 0;     // returns for value_player (normalised at selection)
  };

  // One tree on `state`; adds its root statistics to stats_ and root_value_sums_.
  void search_world(const games::State& state, games::Player seat, std::int64_t simulations, double seconds);
  void simulate(const games::State& root);
  void expand(std::int32_t index, const games::State& state);
  std::int32_t select_ucb(std::int32_t first, int count, int parent_visits);
  double norm(double v) const;

  const games::Game& game_;
  UctConfig config_;
  util::Rng rng_;
  int num_players_;
  std::vector<Node> nodes_;
  std::vector<std::int32_t> path_;
  std::vector<games::Action> legal_, joint_;
  std::unique_ptr<games::State> state_, playout_;  // reused every simulation (State::assign_from)
  std::vector<double> values_;
  Stats stats_;
  std::vector<double> root_value_sums_;  // parallel to stats_.root_visits
  // Single-player games: the range of returns backed up in this tree, which normalises Q
  // (a score bound like 2048's is far beyond any real score).
  double seen_lo_ = 0, seen_hi_ = 0;
};

}  // namespace pz::mcts
