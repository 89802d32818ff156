#include "mcts/uct.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "mcts/determinization.h"
#include "mcts/evaluator.h"

namespace pz::mcts {

UctSearch::UctSearch(const games::Game& game, UctConfig config, std::uint64_t seed)
    : game_(game), config_(config), rng_(seed), num_players_(game.info().num_players) {
  if (config_.simulations <= 0 && config_.max_seconds <= 0) throw std::invalid_argument("uct: no budget");
  if (num_players_ > 2 && game.info().simultaneous) throw std::invalid_argument("uct: simultaneous nodes need two players");
  if (config_.rollouts < 1) config_.rollouts = 1;
}

double UctSearch::norm(double v) const {
  const bool solo = num_players_ == 1;
  const double lo = solo ? seen_lo_ : game_.info().min_return, hi = solo ? seen_hi_ : game_.info().max_return;
  return hi > lo ? (v - lo) / (hi - lo) : 0.5;
}

void UctSearch::expand(std::int32_t index, const games::State& state) {
  const auto first = static_cast<std::int32_t>(nodes_.size());
  const games::Player mover = state.current_player();
  const std::int8_t inherited = nodes_[static_cast<std::size_t>(index)].value_player;
  Kind kind;
  std::uint16_t split = 0;
  if (mover == games::kChancePlayer) {
    kind = Kind::kChance;
    for (const auto& [action, p] : state.chance_outcomes()) {
      Node n;
      n.action = action;
      n.prior = static_cast<float>(p);
      n.value_player = inherited;
      nodes_.push_back(n);
    }
  } else if (mover == games::kSimultaneousPlayer) {
    kind = Kind::kSimultaneous;
    std::size_t counts[2];
    for (int seat = 0; seat < 2; ++seat) {
      state.legal_actions(seat, legal_);
      counts[seat] = legal_.size();
      for (games::Action a : legal_) {
        Node n;
        n.action = a;
        n.value_player = static_cast<std::int8_t>(seat);
        nodes_.push_back(n);
      }
    }
    split = static_cast<std::uint16_t>(counts[0]);
    for (std::size_t j = 0; j < counts[0] * counts[1]; ++j) {
      Node n;
      n.action = static_cast<games::Action>(j);
      nodes_.push_back(n);
    }
  } else {
    kind = Kind::kDecision;
    state.legal_actions(legal_);
    // Shuffled so that "first unvisited child" is a random one.
    for (std::size_t i = legal_.size(); i > 1; --i) std::swap(legal_[i - 1], legal_[rng_.below(static_cast<std::uint32_t>(i))]);
    for (games::Action a : legal_) {
      Node n;
      n.action = a;
      n.value_player = static_cast<std::int8_t>(mover);
      nodes_.push_back(n);
    }
  }
  Node& node = nodes_[static_cast<std::size_t>(index)];
  node.kind = kind;
  node.first_child = first;
  node.num_children = static_cast<std::uint16_t>(nodes_.size() - static_cast<std::size_t>(first));
  node.split = split;
}

std::int32_t UctSearch::select_ucb(std::int32_t first, int count, int parent_visits) {
  const double log_n = std::log(static_cast<double>(std::max(parent_visits, 1)));
  std::int32_t best = first;
  double best_score = -1;
  for (std::int32_t i = first; i < first + count; ++i) {
    const Node& c = nodes_[static_cast<std::size_t>(i)];
    if (c.visits == 0) return i;
    const double score = norm(c.value_sum / c.visits) + config_.c * std::sqrt(log_n / c.visits);
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  return best;
}

void UctSearch::simulate(const games::State& root) {
  if (!state_ || !state_->assign_from(root)) state_ = root.clone();
  games::State* state = state_.get();
  path_.clear();
  std::int32_t index = 0;
  path_.push_back(0);
  values_.assign(static_cast<std::size_t>(num_players_), 0.0);
  for (;;) {
    if (state->is_terminal()) {
      const auto r = state->returns();
      for (int p = 0; p < num_players_; ++p) values_[static_cast<std::size_t>(p)] = r[static_cast<std::size_t>(p)];
      break;
    }
    if (nodes_[static_cast<std::size_t>(index)].kind == Kind::kLeaf) {
      if (index != 0 && nodes_[static_cast<std::size_t>(index)].visits == 0) {
        for (int r = 0; r < config_.rollouts; ++r) {
          games::State* playout = state;
          if (r + 1 < config_.rollouts) {
            if (!playout_ || !playout_->assign_from(*state)) playout_ = state->clone();
            playout = playout_.get();
          }
          const auto ret = random_playout(*playout, rng_, legal_, joint_);
          for (int p = 0; p < num_players_; ++p) values_[static_cast<std::size_t>(p)] += ret[static_cast<std::size_t>(p)];
        }
        for (double& v : values_) v /= config_.rollouts;
        break;
      }
      expand(index, *state);
    }
    const Node node = nodes_[static_cast<std::size_t>(index)];  // a copy: expansions move the vector
    std::int32_t child;
    switch (node.kind) {
      case Kind::kDecision:
        child = select_ucb(node.first_child, node.num_children, node.visits);
        state->apply_action(nodes_[static_cast<std::size_t>(child)].action);
        break;
      case Kind::kChance: {
        double u = rng_.uniform();
        child = node.first_child + node.num_children - 1;
        for (std::int32_t i = node.first_child; i < node.first_child + node.num_children; ++i) {
          if (u < nodes_[static_cast<std::size_t>(i)].prior) {
            child = i;
            break;
          }
          u -= nodes_[static_cast<std::size_t>(i)].prior;
        }
        state->apply_action(nodes_[static_cast<std::size_t>(child)].action);
        break;
      }
      case Kind::kSimultaneous: {
        const int n0 = node.split, n1 = (node.num_children - n0) / (n0 + 1);
        const std::int32_t m0 = select_ucb(node.first_child, n0, node.visits);
        const std::int32_t m1 = select_ucb(node.first_child + n0, n1, node.visits);
        path_.push_back(m0);
        path_.push_back(m1);
        joint_.assign({nodes_[static_cast<std::size_t>(m0)].action, nodes_[static_cast<std::size_t>(m1)].action});
        state->apply_joint_action(joint_);
        child = node.first_child + n0 + n1 + (m0 - node.first_child) * n1 + (m1 - node.first_child - n0);
        break;
      }
      case Kind::kLeaf:
      default:
        throw std::logic_error("uct: selection at an unexpanded node");
    }
    path_.push_back(child);
    index = child;
  }
  if (num_players_ == 1) {
    seen_lo_ = std::min(seen_lo_, values_[0]);
    seen_hi_ = std::max(seen_hi_, values_[0]);
  }
  for (std::int32_t i : path_) {
    Node& n = nodes_[static_cast<std::size_t>(i)];
    ++n.visits;
    n.value_sum += values_[static_cast<std::size_t>(n.value_player)];
  }
}

void UctSearch::search_world(const games::State& state, games::Player seat, std::int64_t simulations, double seconds) {
  nodes_.clear();
  seen_lo_ = std::numeric_limits<double>::infinity();
  seen_hi_ = -std::numeric_limits<double>::infinity();
  Node root;
  root.value_player = static_cast<std::int8_t>(seat >= 0 ? seat : 0);
  nodes_.push_back(root);
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::int64_t sims = 0;
  for (;;) {
    if (simulations > 0 && sims >= simulations) break;
    if (seconds > 0 && (sims & 15) == 0 && Clock::now() >= deadline) break;
    simulate(state);
    ++sims;
  }
  const Node& r = nodes_[0];
  std::int32_t first = r.first_child;
  int count = r.num_children;
  if (r.kind == Kind::kSimultaneous) {
    const int n0 = r.split;
    if (seat == 1) {
      first += n0;
      count = (r.num_children - n0) / (n0 + 1);
    } else {
      count = n0;
    }
  }
  stats_.simulations += sims;
  stats_.nodes = std::max(stats_.nodes, nodes_.size());
  for (std::int32_t i = first; i < first + count; ++i) {
    const Node& c = nodes_[static_cast<std::size_t>(i)];
    auto it = std::find_if(stats_.root_visits.begin(), stats_.root_visits.end(),
                           [&](const auto& entry) { return entry.first == c.action; });
    if (it == stats_.root_visits.end()) {
      stats_.root_visits.emplace_back(c.action, 0);
      root_value_sums_.push_back(0);
      it = stats_.root_visits.end() - 1;
    }
    it->second += c.visits;
    root_value_sums_[static_cast<std::size_t>(it - stats_.root_visits.begin())] += c.value_sum;
  }
}

games::Action UctSearch::choose(const games::State& state, games::Player seat) {
  stats_ = Stats{};
  root_value_sums_.clear();
  // Hidden information: split the budget over resampled worlds (determinization.h).
  const bool hidden = needs_worlds(state);
  const int worlds = hidden ? std::max(1, config_.worlds) : 1;
  const std::int64_t sims = config_.simulations > 0 ? std::max<std::int64_t>(1, config_.simulations / worlds) : 0;
  for (int w = 0; w < worlds; ++w) {
    if (hidden) {
      search_world(*world_for(state, seat, rng_), seat, sims, config_.max_seconds / worlds);
    } else {
      search_world(state, seat, sims, config_.max_seconds);
    }
  }
  games::Action best = games::kInvalidAction;
  int best_visits = -1;
  double best_value = 0;
  for (std::size_t i = 0; i < stats_.root_visits.size(); ++i) {
    const auto [action, visits] = stats_.root_visits[i];
    const double value = visits > 0 ? root_value_sums_[i] / visits : 0;
    if (visits > best_visits || (visits == best_visits && value > best_value)) {
      best = action;
      best_visits = visits;
      best_value = value;
    }
  }
  stats_.root_value = best_value;
  if (best == games::kInvalidAction) throw std::logic_error("uct: no move to choose (terminal or chance root?)");
  return best;
}

}  // namespace pz::mcts
