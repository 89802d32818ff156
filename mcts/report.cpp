#include "mcts/report.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace pz::mcts {

const ChildReport* SearchReport::most_visited() const {
  const ChildReport* best = nullptr;
  for (const auto& c : children) {
    if (!best || c.visits > best->visits || (c.visits == best->visits && c.q > best->q)) best = &c;
  }
  return best;
}

std::vector<std::size_t> SearchReport::by_visits() const {
  std::vector<std::size_t> order(children.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const ChildReport &x = children[a], &y = children[b];
    return x.visits != y.visits ? x.visits > y.visits : x.prior > y.prior;
  });
  return order;
}

double SearchReport::win_probability(double value) const {
  const double span = value_high - value_low;
  if (!(span > 0)) return 0.5;
  return std::clamp((value - value_low) / span, 0.0, 1.0);
}

std::string SearchReport::proven_result(double value) const {
  if (value >= value_high) return "win";
  if (value <= value_low) return "loss";
  return "draw";
}

std::vector<std::string> line_text(const games::State& root, const std::vector<games::Action>& actions) {
  std::vector<std::string> out;
  auto state = root.clone();
  for (const games::Action a : actions) {
    if (state->is_terminal() || state->is_simultaneous_node() || !state->is_legal(a)) break;
    out.push_back(state->action_to_string(state->current_player(), a));
    state->apply_action(a);
  }
  return out;
}

std::string SearchReport::summary(const games::State& root, int max_moves) const {
  if (children.empty()) return "";
  std::string out;
  char buf[96];
  if (root_proven && win_loss) {
    out = "proven " + proven_result(root_proven_value);
  } else {
    std::snprintf(buf, sizeof buf, "win probability %.0f%%", 100 * win_probability(value()));
    out = buf;
  }
  std::snprintf(buf, sizeof buf, ", %lld visits:", static_cast<long long>(root_visits));
  out += buf;
  const auto order = by_visits();
  for (std::size_t k = 0; k < order.size() && static_cast<int>(k) < max_moves; ++k) {
    const ChildReport& c = children[order[k]];
    if (c.visits == 0) break;
    const std::string move = root.action_to_string(player, c.action);
    if (c.proven && win_loss) {
      std::snprintf(buf, sizeof buf, " %s %d (%s)", move.c_str(), c.visits, proven_result(c.proven_value).c_str());
    } else {
      std::snprintf(buf, sizeof buf, " %s %d (%.0f%%)", move.c_str(), c.visits, 100 * win_probability(c.q));
    }
    out += buf;
  }
  const auto pv = line_text(root, children[order.front()].pv);
  if (!pv.empty()) {
    out += "; PV";
    for (const auto& m : pv) out += " " + m;
  }
  return out;
}

std::string SearchReport::to_string(const games::State& root) const {
  const auto order = by_visits();
  std::string out;
  char line[160];
  std::snprintf(line, sizeof line, "visits %lld  simulations %lld  %.3fs  value %+.3f%s  nodes %zu\n",
                static_cast<long long>(root_visits), static_cast<long long>(simulations), seconds, root_value,
                root_proven ? (root_proven_value > 0 ? "  (proven win)" : root_proven_value < 0 ? "  (proven loss)" : "  (proven draw)") : "",
                tree_nodes);
  out += line;
  std::snprintf(line, sizeof line, "%-8s %8s %8s %7s %7s  %s\n", "move", "visits", "Q", "prior", "sd", "pv");
  out += line;
  for (std::size_t i : order) {
    const auto& c = children[i];
    // The PV is printed by replaying it, so each move is named by the seat that makes it.
    std::string pv;
    for (const auto& m : line_text(root, c.pv)) pv += (pv.empty() ? "" : " ") + m;
    const std::string move = root.is_simultaneous_node() ? root.action_to_string(player, c.action)
                                                         : root.action_to_string(root.current_player(), c.action);
    std::string q = c.proven ? (c.proven_value > 0 ? "win" : c.proven_value < 0 ? "loss" : "draw") : "";
    if (q.empty()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%+.3f", c.q);
      q = buf;
    }
    std::snprintf(line, sizeof line, "%-8s %8d %8s %7.3f %7.3f  %s\n", move.c_str(), c.visits, q.c_str(), c.prior, c.stddev,
                  pv.c_str());
    out += line;
  }
  return out;
}

}  // namespace pz::mcts
