#include "solve/minimax_solver.h"

#include <algorithm>
#include <stdexcept>

namespace pz::solve {

namespace {

constexpr std::size_t kMaxTableEntries = std::size_t{1} << 24;  // ~0.5 GiB at most

int sign(double x) { return (x > 0) - (x < 0); }

}  // namespace

MinimaxSolver::MinimaxSolver(const games::Game& game) {
  const games::GameInfo& info = game.info();
  if (info.num_players != 2 || !info.zero_sum || info.max_chance_outcomes > 0 || !info.perfect_information ||
      info.simultaneous)
    throw std::invalid_argument("no exact solver for " + info.name +
                                ": the generic solver takes two-player, zero-sum, deterministic games with perfect "
                                "information");
}

int MinimaxSolver::child_value(const games::State& child, games::Player mover, int alpha, int beta) {
  if (child.current_player() == games::kTerminalPlayer) return sign(child.returns()[static_cast<std::size_t>(mover)]);
  if (child.current_player() == mover) return negamax(child, alpha, beta);  // the same player moves again
  return -negamax(child, -beta, -alpha);
}

int MinimaxSolver::negamax(const games::State& state, int alpha, int beta) {
  if (budget_.spend()) return 0;
  const int alpha0 = alpha;
  const std::uint64_t key = state.hash();
  if (auto it = table_.find(key); it != table_.end()) {
    const Entry e = it->second;
    if (e.bound == Bound::kExact) return e.value;
    if (e.bound == Bound::kLower) alpha = std::max(alpha, static_cast<int>(e.value));
    else beta = std::min(beta, static_cast<int>(e.value));
    if (alpha >= beta) return e.value;
  }
  std::vector<games::Action> legal;
  state.legal_actions(legal);
  // Moves that may end the game first: a win is found without searching the rest.
  std::stable_partition(legal.begin(), legal.end(), [&](games::Action a) { return state.may_end_game(a); });
  const games::Player mover = state.current_player();
  int best = -2;
  auto child = state.clone();
  for (games::Action a : legal) {
    if (!child->assign_from(state)) child = state.clone();
    child->apply_action(a);
    const int v = child_value(*child, mover, alpha, beta);
    if (budget_.exhausted()) return 0;
    best = std::max(best, v);
    alpha = std::max(alpha, v);
    if (alpha >= beta) break;
  }
  if (table_.size() < kMaxTableEntries)
    table_[key] = Entry{static_cast<std::int8_t>(best),
                        best <= alpha0 ? Bound::kUpper : best >= beta ? Bound::kLower : Bound::kExact};
  return best;
}

Solution MinimaxSolver::solve(const games::State& state, const SolveOptions& options) {
  if (state.current_player() < 0) throw std::invalid_argument("solver: the position is not a decision node");
  budget_.start(options);
  Solution s;
  s.value = negamax(state, -1, 1);
  if (options.each_move && !budget_.exhausted()) {
    std::vector<games::Action> legal;
    state.legal_actions(legal);
    for (games::Action a : legal) {
      auto child = state.clone();
      child->apply_action(a);
      MoveValue m;
      m.action = a;
      m.value = child_value(*child, state.current_player(), -1, 1);
      if (budget_.exhausted()) break;
      s.moves.push_back(m);
    }
  }
  budget_.finish(s);
  return s;
}

}  // namespace pz::solve
