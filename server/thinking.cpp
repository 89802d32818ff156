#include "server/thinking.h"

#include <algorithm>

namespace pz::server {
namespace {

using nlohmann::json;

json proven_result(const mcts::SearchReport& report, double value) {
  // Between the bounds of a game that is not win/loss, a proven value is a score, not a draw.
  const bool inside = value > report.value_low && value < report.value_high;
  return inside && !report.win_loss ? json(value) : json(report.proven_result(value));
}

}  // namespace

json thinking_json(const mcts::SearchReport& report, const games::State& root, bool done, int max_moves) {
  const auto order = report.by_visits();
  std::int64_t visits = 0;
  for (const auto& c : report.children) visits += c.visits;
  json moves = json::array();
  for (std::size_t k = 0; k < order.size() && static_cast<int>(k) < max_moves; ++k) {
    const auto& c = report.children[order[k]];
    json move{{"move", root.action_to_string(report.player, c.action)},
              {"visits", c.visits},
              {"share", visits > 0 ? static_cast<double>(c.visits) / static_cast<double>(visits) : 0.0},
              {"prior", c.prior},
              {"value", c.q},
              {"win_probability", c.visits > 0 ? json(report.win_probability(c.q)) : json(nullptr)}};
    if (c.proven) move["proven_result"] = proven_result(report, c.proven_value);
    moves.push_back(move);
  }
  const mcts::ChildReport* best = order.empty() ? nullptr : &report.children[order.front()];
  const double value = report.value();
  return {{"seat", report.player},
          {"ply", root.move_number()},
          {"simulations", report.simulations},
          {"visits", report.root_visits},
          {"seconds", report.seconds},
          {"done", done},
          {"value", value},
          {"win_probability", report.win_probability(value)},
          {"proven", report.root_proven},
          {"proven_result", report.root_proven ? proven_result(report, report.root_proven_value) : json(nullptr)},
          {"moves", moves},
          {"pv", best ? json(mcts::line_text(root, best->pv)) : json::array()}};
}

}  // namespace pz::server
