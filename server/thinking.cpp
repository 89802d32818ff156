#include "server/thinking.h"

#include <algorithm>

namespace pz::server {
namespace {

using nlohmann::json;

double probability(const mcts::SearchReport& report, double value) {
  const double span = report.value_high - report.value_low;
  if (!(span > 0)) return 0.5;
  return std::clamp((value - report.value_low) / span, 0.0, 1.0);
}

json proven_result(const mcts::SearchReport& report, double value) {
  if (value >= report.value_high) return "win";
  if (value <= report.value_low) return "loss";
  return report.win_loss ? json("draw") : json(value);
}

json moves_text(const games::State& root, const std::vector<games::Action>& actions) {
  json out = json::array();
  auto state = root.clone();
  for (const games::Action a : actions) {
    if (state->is_terminal() || state->is_simultaneous_node() || !state->is_legal(a)) break;
    out.push_back(state->action_to_string(state->current_player(), a));
    state->apply_action(a);
  }
  return out;
}

}  // namespace

json thinking_json(const mcts::SearchReport& report, const games::State& root, bool done, int max_moves) {
  std::vector<const mcts::ChildReport*> order;
  std::int64_t visits = 0;
  for (const auto& c : report.children) {
    order.push_back(&c);
    visits += c.visits;
  }
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->visits != b->visits ? a->visits > b->visits : a->prior > b->prior;
  });
  json moves = json::array();
  for (std::size_t k = 0; k < order.size() && static_cast<int>(k) < max_moves; ++k) {
    const auto& c = *order[k];
    json move{{"move", root.action_to_string(report.player, c.action)},
              {"visits", c.visits},
              {"share", visits > 0 ? static_cast<double>(c.visits) / static_cast<double>(visits) : 0.0},
              {"prior", c.prior},
              {"value", c.q},
              {"win_probability", c.visits > 0 ? json(probability(report, c.q)) : json(nullptr)}};
    if (c.proven) move["proven_result"] = proven_result(report, c.proven_value);
    moves.push_back(move);
  }
  const auto* best = order.empty() ? nullptr : order.front();
  const double value = report.root_proven ? report.root_proven_value : report.root_value;
  return {{"seat", report.player},
          {"ply", root.move_number()},
          {"simulations", report.simulations},
          {"visits", report.root_visits},
          {"seconds", report.seconds},
          {"done", done},
          {"value", value},
          {"win_probability", probability(report, value)},
          {"proven", report.root_proven},
          {"proven_result", report.root_proven ? proven_result(report, report.root_proven_value) : json(nullptr)},
          {"moves", moves},
          {"pv", best ? moves_text(root, best->pv) : json::array()}};
}

}  // namespace pz::server
