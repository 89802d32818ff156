// Players that search: `uct` (classic UCT with random rollouts, the reference opponent)
// and `mcts` (the PUCT search of mcts/ over an Evaluator; until networks exist, uniform
// priors with random-rollout values). Specs and options are in player_factory.cpp.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arena/player.h"
#include "mcts/evaluator.h"
#include "mcts/report.h"
#include "mcts/search.h"
#include "mcts/uct.h"

namespace pz::arena {

class UctPlayer final : public Player {
 public:
  UctPlayer(std::string name, const games::Game& game, const mcts::UctConfig& config, std::uint64_t seed)
      : name_(std::move(name)), uct_(game, config, seed) {}
  std::string name() const override { return name_; }
  games::Action choose_action(const games::State& state, games::Player seat) override {
    return uct_.choose(state, seat);
  }

 private:
  std::string name_;
  mcts::UctSearch uct_;
};

// Keeps its tree between moves: observe_action advances it (joint actions at simultaneous
// nodes are collected seat by seat, in seat order), so the opponent's reply and our own
// move both reuse what was searched. In hidden-information games it searches `worlds`
// resampled states instead, each on a fresh tree (determinization.h).
class MctsPlayer final : public Player {
 public:
  MctsPlayer(std::string name, const games::Game& game, const mcts::SearchConfig& config,
             const mcts::MoveSelection& selection, std::unique_ptr<mcts::Evaluator> evaluator, std::uint64_t seed,
             int worlds = mcts::kDefaultWorlds);
  std::string name() const override { return name_; }
  games::Action choose_action(const games::State& state, games::Player seat) override;
  void observe_action(const games::State& before, games::Action action) override;
  void reset(const games::State& state) override;
  // The report behind the last choice (the play server's and --verbose's view).
  const mcts::SearchReport& last_report() const { return last_report_; }
  // Runs each search in `steps` parts of its budget on the same tree, calling `on_progress`
  // with the report so far after each part (the play server's live thinking). Games with
  // hidden information search several resampled worlds and report once, at the end.
  using ProgressCallback = std::function<void(const mcts::SearchReport&)>;
  void set_progress(ProgressCallback on_progress, int steps = 10);

 private:
  bool follows(const games::State& state) const;
  mcts::SearchReport search_in_steps(const games::State& state, games::Player seat);

  std::string name_;
  std::unique_ptr<mcts::Evaluator> evaluator_;
  mcts::Search search_;
  mcts::MoveSelection selection_;
  int worlds_;
  util::Rng rng_;
  mcts::SearchReport last_report_;
  std::vector<games::Action> pending_joint_;
  ProgressCallback on_progress_;
  int progress_steps_ = 1;
};

}  // namespace pz::arena
