#include "python/search_result.h"

namespace pz::python {

namespace {

// A proven value at the bounds of a win/loss game is a result; between the bounds of a
// scored game it is a score.
std::string proven_text(const mcts::SearchReport& report, double value) {
  const bool inside = value > report.value_low && value < report.value_high;
  return inside && !report.win_loss ? std::to_string(value) : report.proven_result(value);
}

MoveAnalysis move_analysis(const mcts::SearchReport& report, const mcts::ChildReport& child, const games::State& root,
                           long long child_visits) {
  MoveAnalysis m;
  m.action = child.action;
  m.move = root.action_to_string(report.player, child.action);
  m.visits = child.visits;
  m.share = child_visits > 0 ? static_cast<double>(child.visits) / static_cast<double>(child_visits) : 0.0;
  m.prior = child.prior;
  m.value = child.q;
  if (child.visits > 0) m.win_probability = report.win_probability(child.q);
  if (child.proven) m.proven_result = proven_text(report, child.proven_value);
  m.pv = child.pv;
  m.pv_text = mcts::line_text(root, child.pv);
  return m;
}

}  // namespace

SearchResult search_result(const mcts::SearchReport& report, const games::State& root) {
  SearchResult r;
  r.player = report.player;
  r.value = report.value();
  r.win_probability = report.win_probability(r.value);
  if (report.root_proven) r.proven_result = proven_text(report, report.root_proven_value);
  r.simulations = report.simulations;
  r.visits = report.root_visits;
  r.seconds = report.seconds;
  r.tree_nodes = static_cast<long long>(report.tree_nodes);
  long long child_visits = 0;
  for (const auto& c : report.children) child_visits += c.visits;
  r.policy.assign(static_cast<std::size_t>(root.game().info().num_distinct_actions), 0.0f);
  for (const std::size_t k : report.by_visits()) {
    const auto& child = report.children[k];
    r.moves.push_back(move_analysis(report, child, root, child_visits));
    if (child.action >= 0 && child.action < static_cast<games::Action>(r.policy.size()) && child_visits > 0) {
      r.policy[child.action] = static_cast<float>(child.visits) / static_cast<float>(child_visits);
    }
  }
  if (!r.moves.empty()) {
    r.action = r.moves.front().action;
    // A root proven on arrival (a move that wins at once) has unvisited children.
    if (child_visits == 0 && r.action >= 0 && r.action < static_cast<games::Action>(r.policy.size())) {
      r.policy[r.action] = 1.0f;
    }
    r.move = r.moves.front().move;
    r.pv = r.moves.front().pv_text;
  }
  return r;
}

}  // namespace pz::python
