#include "mcts/evaluator.h"

#include <stdexcept>

namespace pz::mcts {
namespace {

void fill_uniform(const EvalRequest& request) {
  const auto n = request.legal.size();
  const float p = n > 0 ? 1.0f / static_cast<float>(n) : 0.0f;
  for (std::size_t i = 0; i < n; ++i) request.priors[i] = p;
}

}  // namespace

void UniformEvaluator::evaluate(std::span<const EvalRequest> batch) {
  for (const auto& request : batch) {
    fill_uniform(request);
    const int players = request.state->game().info().num_players;
    for (int p = 0; p < players; ++p) request.values[p] = value_;
  }
}

void RolloutEvaluator::evaluate(std::span<const EvalRequest> batch) {
  thread_local std::vector<games::Action> legal, joint;
  thread_local std::unique_ptr<games::State> playout;  // reused: see State::assign_from
  for (const auto& request : batch) {
    // Seeded by the position, not by a shared call counter: threads searching one tree would
    // otherwise bounce that counter's cache line on every leaf. A position thus always gets
    // the same playouts, whichever thread and whenever it is evaluated.
    util::Rng rng(seed_ ^ (request.state->hash() * 0xD1B54A32D192ED03ULL) ^
                  (static_cast<std::uint64_t>(request.state->move_number()) << 48));
    fill_uniform(request);
    const int players = request.state->game().info().num_players;
    for (int p = 0; p < players; ++p) request.values[p] = 0.0f;
    for (int r = 0; r < rollouts_; ++r) {
      if (!playout || !playout->assign_from(*request.state)) playout = request.state->clone();
      const auto returns = random_playout(*playout, rng, legal, joint);
      for (int p = 0; p < players; ++p) request.values[p] += static_cast<float>(returns[static_cast<std::size_t>(p)]);
    }
    for (int p = 0; p < players; ++p) request.values[p] /= static_cast<float>(rollouts_);
  }
}

games::Action sample_chance_outcome(const games::State& state, util::Rng& rng) {
  const auto outcomes = state.chance_outcomes();
  double u = rng.uniform();
  for (const auto& [action, probability] : outcomes) {
    if (u < probability) return action;
    u -= probability;
  }
  return outcomes.back().first;  // rounding: the probabilities summed to slightly under 1
}

std::vector<double> random_playout(games::State& state, util::Rng& rng, std::vector<games::Action>& legal,
                                   std::vector<games::Action>& joint) {
  const int players = state.game().info().num_players;
  for (;;) {
    const games::Player mover = state.current_player();
    if (mover == games::kTerminalPlayer) return state.returns();
    if (mover == games::kChancePlayer) {
      state.apply_action(sample_chance_outcome(state, rng));
    } else if (mover == games::kSimultaneousPlayer) {
      joint.clear();
      for (int p = 0; p < players; ++p) {
        state.legal_actions(p, legal);
        joint.push_back(legal[rng.below(static_cast<std::uint32_t>(legal.size()))]);
      }
      state.apply_joint_action(joint);
    } else {
      state.legal_actions(legal);
      if (legal.empty()) throw std::logic_error(state.game().info().name + ": no legal action at a decision node");
      state.apply_action(legal[rng.below(static_cast<std::uint32_t>(legal.size()))]);
    }
  }
}

}  // namespace pz::mcts
