#include "games/perft.h"

#include <vector>

namespace pz::games {
namespace {

// One action buffer per depth, so the recursion allocates nothing after warm-up.
std::uint64_t perft_rec(State& state, int depth, std::vector<std::vector<Action>>& buffers) {
  if (depth == 0) return 1;
  if (state.is_terminal()) return 0;
  if (state.is_simultaneous_node()) {
    const int n = state.game().info().num_players;
    std::vector<std::vector<Action>> per_player(static_cast<size_t>(n));
    for (int p = 0; p < n; ++p) state.legal_actions(p, per_player[static_cast<size_t>(p)]);
    std::vector<size_t> index(static_cast<size_t>(n), 0);
    for (const auto& a : per_player) {
      if (a.empty()) return 0;
    }
    std::uint64_t total = 0;
    while (true) {
      std::vector<Action> joint(static_cast<size_t>(n));
      for (int p = 0; p < n; ++p) joint[static_cast<size_t>(p)] = per_player[static_cast<size_t>(p)][index[static_cast<size_t>(p)]];
      auto child = state.clone();
      child->apply_joint_action(joint);
      total += depth == 1 ? 1 : perft_rec(*child, depth - 1, buffers);
      int p = 0;
      while (p < n && ++index[static_cast<size_t>(p)] == per_player[static_cast<size_t>(p)].size()) index[static_cast<size_t>(p++)] = 0;
      if (p == n) break;
    }
    return total;
  }
  auto& actions = buffers[static_cast<size_t>(depth)];
  state.legal_actions(actions);
  if (depth == 1) return actions.size();
  std::uint64_t total = 0;
  for (Action a : actions) {
    auto child = state.clone();
    child->apply_action(a);
    total += perft_rec(*child, depth - 1, buffers);
  }
  return total;
}

}  // namespace

std::uint64_t perft(const State& state, int depth) {
  std::vector<std::vector<Action>> buffers(static_cast<size_t>(depth) + 1);
  auto copy = state.clone();
  return perft_rec(*copy, depth, buffers);
}

}  // namespace pz::games
