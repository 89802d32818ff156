#include "arena/search_players.h"

#include "mcts/determinization.h"
#include "mcts/move_choice.h"

namespace pz::arena {

MctsPlayer::MctsPlayer(std::string name, const games::Game& game, const mcts::SearchConfig& config,
                       const mcts::MoveSelection& selection, std::unique_ptr<mcts::Evaluator> evaluator, std::uint64_t seed,
                       int worlds)
    : name_(std::move(name)), evaluator_(std::move(evaluator)), search_(game, config, seed), selection_(selection), worlds_(worlds),
      rng_(seed ^ 0xA5A5A5A5A5A5A5A5ULL) {}

bool MctsPlayer::follows(const games::State& state) const {
  return search_.has_root() && search_.root_state().hash() == state.hash() &&
         search_.root_state().move_number() == state.move_number();
}

games::Action MctsPlayer::choose_action(const games::State& state, games::Player seat) {
  last_report_ = mcts::search_worlds(search_, *evaluator_, state, seat, worlds_, rng_);
  return mcts::choose_move(last_report_, selection_, state.move_number(), rng_);
}

void MctsPlayer::observe_action(const games::State& before, games::Action action) {
  if (!follows(before)) {
    pending_joint_.clear();
    return;  // out of step (first move, undo, ...): the next choose_action starts afresh
  }
  if (before.is_simultaneous_node()) {
    pending_joint_.push_back(action);
    if (static_cast<int>(pending_joint_.size()) == before.game().info().num_players) {
      search_.advance_joint(pending_joint_);
      pending_joint_.clear();
    }
    return;
  }
  search_.advance(action);
}

void MctsPlayer::reset(const games::State& state) {
  pending_joint_.clear();
  search_.set_root(state);
  search_.clear_tree();
}

}  // namespace pz::arena
