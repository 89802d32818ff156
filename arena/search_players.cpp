#include "arena/search_players.h"

#include <algorithm>

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

void MctsPlayer::set_progress(ProgressCallback on_progress, int steps) {
  on_progress_ = std::move(on_progress);
  progress_steps_ = std::max(1, steps);
}

mcts::SearchReport MctsPlayer::search_in_steps(const games::State& state, games::Player seat) {
  const mcts::SearchConfig whole = search_.config();
  mcts::SearchConfig part = whole;
  search_.set_root(state);
  std::int64_t simulations = 0;
  double seconds = 0;
  try {
    for (int step = 0; step < progress_steps_; ++step) {
      // Each part takes its share of what is left, so the parts add up to the whole budget.
      if (whole.simulations > 0) part.simulations = (whole.simulations * (step + 1)) / progress_steps_ -
                                                    (whole.simulations * step) / progress_steps_;
      if (whole.max_seconds > 0) part.max_seconds = whole.max_seconds / progress_steps_;
      if (whole.simulations > 0 && part.simulations == 0) continue;
      search_.set_config(part);
      search_.run(*evaluator_);
      auto report = search_.report(seat);
      simulations += report.simulations;
      seconds += report.seconds;
      report.simulations = simulations;
      report.seconds = seconds;
      if (on_progress_ && step + 1 < progress_steps_) on_progress_(report);
      if (report.root_proven && whole.stop_when_proven) break;
    }
  } catch (...) {
    search_.set_config(whole);
    throw;
  }
  search_.set_config(whole);
  auto report = search_.report(seat);
  report.simulations = simulations;  // over all the parts
  report.seconds = seconds;
  return report;
}

games::Action MctsPlayer::choose_action(const games::State& state, games::Player seat) {
  if (on_progress_ && progress_steps_ > 1 && !mcts::needs_worlds(state)) {
    last_report_ = search_in_steps(state, seat);
  } else {
    last_report_ = mcts::search_worlds(search_, *evaluator_, state, seat, worlds_, rng_);
  }
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
