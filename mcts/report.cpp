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

std::string SearchReport::to_string(const games::State& root) const {
  std::vector<std::size_t> order(children.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return children[a].visits > children[b].visits; });
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
    auto state = root.clone();
    std::string pv;
    for (games::Action a : c.pv) {
      if (state->is_terminal() || state->is_simultaneous_node()) break;
      if (!pv.empty()) pv += ' ';
      pv += state->action_to_string(state->current_player(), a);
      state->apply_action(a);
    }
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
