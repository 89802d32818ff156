// The single-thread comparison point of `bench mcts`: a UCT search built the way
// OpenSpiel's MCTSBot is (algorithms/mcts.cc, with its RandomRolloutEvaluator and the
// solver on), written here against polyzero's Game API so that it runs in the same process,
// on the same game code, as the search it is compared with.
//
// OpenSpiel cannot be installed on the development machine (no PyPI, no network for its
// sources), so the benchmark reproduces the design's costs instead of linking the library:
// a tree of nodes that each own a std::vector of children, every child's outcome a
// std::vector of returns; a clone of the root state per simulation; at a new node, the legal
// moves as a fresh vector turned into a vector of (action, prior) pairs and shuffled with a
// Mersenne twister; UCB1 with c = 2 (log and square root per child, infinity for unvisited
// ones); one random rollout on a further clone per leaf, a fresh legal-move vector per
// rollout step; backup through the visited path with MCTS-solver propagation. What it does
// not reproduce is OpenSpiel's own game implementations (its Connect Four keeps a move
// history and answers legal moves and terminal tests through virtual calls of its own),
// so the ratio measures the search design, not the whole library.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "games/game.h"

namespace pz::bench {

class MctsBotReference {
 public:
  MctsBotReference(const games::Game& game, int simulations, std::uint64_t seed, double uct_c = 2.0);

  // Searches from `state` with a fresh tree; returns the simulations run (fewer than the
  // budget when the root is solved or has one move, as MCTSBot stops then).
  int search(const games::State& state);
  // The root's child with the most visits after the last search (proven wins first).
  games::Action best_action() const;

 private:
  struct Node {
    Node(games::Action a, games::Player p, double pr) : action(a), player(p), prior(pr) {}
    games::Action action;
    games::Player player;  // who chose `action`
    double prior;
    int explore_count = 0;
    double total_reward = 0;
    std::vector<double> outcome;  // the exact returns once proven
    std::vector<Node> children;
    double uct_value(int parent_explore_count, double c) const;
  };

  std::unique_ptr<games::State> descend(const games::State& state, std::vector<Node*>& path);
  std::vector<double> rollout(const games::State& state);
  void backup(std::vector<Node*>& path, const std::vector<double>& returns, bool solved);

  const games::Game& game_;
  int simulations_;
  double uct_c_;
  double max_return_;
  std::mt19937 rng_;
  std::unique_ptr<Node> root_;
};

}  // namespace pz::bench
