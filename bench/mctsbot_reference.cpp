#include "bench/mctsbot_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

namespace pz::bench {
namespace {

using games::Action;
using ActionsAndProbs = std::vector<std::pair<Action, double>>;

// The prior of MCTSBot's random-rollout evaluator: chance outcomes, or every legal move alike.
ActionsAndProbs uniform_prior(const games::State& state) {
  if (state.is_chance_node()) return state.chance_outcomes();
  const std::vector<Action> legal = state.legal_actions();
  ActionsAndProbs prior;
  prior.reserve(legal.size());
  for (Action a : legal) prior.emplace_back(a, 1.0 / static_cast<double>(legal.size()));
  return prior;
}

Action sample(const ActionsAndProbs& outcomes, std::mt19937& rng) {
  double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  for (const auto& [action, p] : outcomes) {
    if (u < p) return action;
    u -= p;
  }
  return outcomes.back().first;
}

}  // namespace

MctsBotReference::MctsBotReference(const games::Game& game, int simulations, std::uint64_t seed, double uct_c)
    : game_(game), simulations_(simulations), uct_c_(uct_c), max_return_(game.info().max_return),
      rng_(static_cast<std::mt19937::result_type>(seed)) {}

double MctsBotReference::Node::uct_value(int parent_explore_count, double c) const {
  if (!outcome.empty()) return outcome[static_cast<std::size_t>(player)];
  if (explore_count == 0) return std::numeric_limits<double>::infinity();
  return total_reward / explore_count + c * std::sqrt(std::log(parent_explore_count) / explore_count);
}

std::unique_ptr<games::State> MctsBotReference::descend(const games::State& state, std::vector<Node*>& path) {
  path.push_back(root_.get());
  std::unique_ptr<games::State> working = state.clone();
  Node* node = root_.get();
  while (!working->is_terminal() && node->explore_count > 0) {
    if (node->children.empty()) {
      ActionsAndProbs prior = uniform_prior(*working);
      std::shuffle(prior.begin(), prior.end(), rng_);  // MCTSBot: against move-order bias
      const games::Player player = working->current_player();
      node->children.reserve(prior.size());
      for (const auto& [action, p] : prior) node->children.emplace_back(action, player, p);
    }
    Node* chosen = nullptr;
    if (working->is_chance_node()) {
      const Action outcome = sample(working->chance_outcomes(), rng_);
      for (Node& child : node->children) {
        if (child.action == outcome) {
          chosen = &child;
          break;
        }
      }
    } else {
      double best = -std::numeric_limits<double>::infinity();
      for (Node& child : node->children) {
        const double value = child.uct_value(node->explore_count, uct_c_);
        if (value > best) {
          best = value;
          chosen = &child;
        }
      }
    }
    working->apply_action(chosen->action);
    node = chosen;
    path.push_back(node);
  }
  return working;
}

std::vector<double> MctsBotReference::rollout(const games::State& state) {
  std::unique_ptr<games::State> working = state.clone();
  while (!working->is_terminal()) {
    if (working->is_chance_node()) {
      working->apply_action(sample(working->chance_outcomes(), rng_));
    } else {
      const std::vector<Action> actions = working->legal_actions();
      working->apply_action(actions[std::uniform_int_distribution<std::size_t>(0, actions.size() - 1)(rng_)]);
    }
  }
  return working->returns();
}

void MctsBotReference::backup(std::vector<Node*>& path, const std::vector<double>& returns, bool solved) {
  while (!path.empty()) {
    std::size_t decider = path.size() - 1;
    Node* node = path[decider];
    // A chance node's value is its parent's mover's.
    while (decider > 0 && path[decider]->player == games::kChancePlayer) --decider;
    const games::Player player = path[decider]->player;
    if (player >= 0) node->total_reward += returns[static_cast<std::size_t>(player)];
    node->explore_count += 1;
    path.pop_back();
    if (!solved || node->children.empty()) continue;
    const games::Player mover = node->children[0].player;
    if (mover == games::kChancePlayer) {
      // Proven only when every outcome leads to the same proven returns.
      const std::vector<double>& first = node->children[0].outcome;
      const bool same = !first.empty() && std::all_of(node->children.begin() + 1, node->children.end(),
                                                      [&](const Node& c) { return c.outcome == first; });
      if (same) {
        node->outcome = first;
      } else {
        solved = false;
      }
      continue;
    }
    const Node* best = nullptr;
    bool all_solved = true;
    for (const Node& child : node->children) {
      if (child.outcome.empty()) {
        all_solved = false;
      } else if (!best || child.outcome[static_cast<std::size_t>(mover)] > best->outcome[static_cast<std::size_t>(mover)]) {
        best = &child;
      }
    }
    if (best && (all_solved || best->outcome[static_cast<std::size_t>(mover)] == max_return_)) {
      node->outcome = best->outcome;
    } else {
      solved = false;
    }
  }
}

int MctsBotReference::search(const games::State& state) {
  root_ = std::make_unique<Node>(games::kInvalidAction, state.current_player(), 1.0);
  std::vector<Node*> path;
  path.reserve(64);
  int done = 0;
  while (done < simulations_) {
    path.clear();
    std::unique_ptr<games::State> working = descend(state, path);
    ++done;
    if (working->is_terminal()) {
      std::vector<double> returns = working->returns();
      path.back()->outcome = returns;
      backup(path, returns, true);
    } else {
      backup(path, rollout(*working), false);
    }
    if (!root_->outcome.empty() || root_->children.size() == 1) break;
  }
  return done;
}

Action MctsBotReference::best_action() const {
  if (!root_ || root_->children.empty()) return games::kInvalidAction;
  // MCTSBot's final choice: proven value, then visits, then total reward.
  const auto key = [](const Node& n) {
    const double proven = n.outcome.empty() ? 0.0 : n.outcome[static_cast<std::size_t>(n.player)];
    return std::make_tuple(proven, n.explore_count, n.total_reward);
  };
  return std::max_element(root_->children.begin(), root_->children.end(),
                          [&](const Node& a, const Node& b) { return key(a) < key(b); })
      ->action;
}

}  // namespace pz::bench
