#include "mcts/determinization.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace pz::mcts {

bool needs_worlds(const games::State& state) { return !state.game().info().perfect_information; }

std::unique_ptr<games::State> world_for(const games::State& state, games::Player seat, util::Rng& rng) {
  if (!needs_worlds(state)) return state.clone();
  return state.resample(seat >= 0 ? seat : 0, rng);
}

SearchReport merge_world_reports(std::span<const SearchReport> reports) {
  SearchReport merged;
  if (reports.empty()) return merged;
  merged.player = reports.front().player;
  merged.value_low = reports.front().value_low;
  merged.value_high = reports.front().value_high;
  merged.win_loss = reports.front().win_loss;
  struct Sums {
    ChildReport child;
    double prior_sum = 0, q_sum = 0, q_norm_sum = 0, var_sum = 0;
    int worlds = 0, best_world_visits = -1;
  };
  std::map<games::Action, Sums> by_action;
  std::vector<games::Action> order;  // first-seen order keeps the legal-action order
  double root_value_sum = 0;
  std::int64_t root_value_weight = 0;
  for (const SearchReport& r : reports) {
    merged.root_visits += r.root_visits;
    merged.simulations += r.simulations;
    merged.collisions += r.collisions;
    merged.bursts += r.bursts;
    merged.seconds += r.seconds;
    merged.tree_nodes = std::max(merged.tree_nodes, r.tree_nodes);
    merged.value_low = std::min(merged.value_low, r.value_low);
    merged.value_high = std::max(merged.value_high, r.value_high);
    const std::int64_t weight = std::max<std::int64_t>(1, r.simulations);
    root_value_sum += r.root_value * static_cast<double>(weight);
    root_value_weight += weight;
    for (const ChildReport& c : r.children) {
      auto [it, fresh] = by_action.try_emplace(c.action);
      if (fresh) order.push_back(c.action);
      Sums& s = it->second;
      s.child.action = c.action;
      s.child.visits += c.visits;
      s.prior_sum += c.prior;
      s.q_sum += c.q * c.visits;
      s.var_sum += c.stddev * c.stddev * c.visits;
      ++s.worlds;
      if (c.visits > s.best_world_visits) {
        s.best_world_visits = c.visits;
        s.child.pv = c.pv;
      }
    }
  }
  merged.root_value = root_value_weight > 0 ? root_value_sum / static_cast<double>(root_value_weight) : 0;
  const double range = merged.value_high - merged.value_low;
  for (games::Action action : order) {
    Sums& s = by_action[action];
    ChildReport c = std::move(s.child);
    c.prior = static_cast<float>(s.prior_sum / s.worlds);
    if (c.visits > 0) {
      c.q = s.q_sum / c.visits;
      c.stddev = std::sqrt(s.var_sum / c.visits);
    }
    c.q_normalized = range > 0 ? (c.q - merged.value_low) / range : 0.5;
    c.proven = false;
    merged.children.push_back(std::move(c));
  }
  return merged;
}

SearchReport search_worlds(Search& search, Evaluator& evaluator, const games::State& state, games::Player seat,
                           int worlds, util::Rng& rng) {
  if (!needs_worlds(state)) {
    search.set_root(state);
    search.run(evaluator);
    return search.report(seat);
  }
  worlds = std::max(1, worlds);
  const SearchConfig original = search.config();
  SearchConfig per_world = original;
  if (original.simulations > 0) per_world.simulations = std::max(1, original.simulations / worlds);
  if (original.max_visits > 0) per_world.max_visits = std::max(1, original.max_visits / worlds);
  if (original.max_seconds > 0) per_world.max_seconds = original.max_seconds / worlds;
  search.set_config(per_world);
  std::vector<SearchReport> reports;
  reports.reserve(static_cast<std::size_t>(worlds));
  try {
    for (int w = 0; w < worlds; ++w) {
      search.set_root(*world_for(state, seat, rng));
      search.clear_tree();
      search.run(evaluator);
      reports.push_back(search.report(seat));
    }
  } catch (...) {
    search.set_config(original);
    throw;
  }
  search.set_config(original);
  return merge_world_reports(reports);
}

}  // namespace pz::mcts
