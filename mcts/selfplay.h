// Self-play: actors that generate training games with the search.
//
// An actor is one thread that plays many games at once, advancing all their searches in
// lockstep: each step gathers leaves from every tree into one batch and makes one
// evaluator call, so a network sees (games × leaves per tree) positions per call even
// from a single thread; run_selfplay puts several actors in front of one BatchingEvaluator
// so the batches also merge across threads (Polygames' and KataGo's design).
//
// Per move, KataGo's self-play helpers:
//  * playout-cap randomisation — with probability full_search_probability a full search
//    (root noise, forced playouts, recorded as a policy target), otherwise a fast search
//    with fast_simulations (no noise, not a policy target) that only moves the game on;
//  * forced playouts with policy-target pruning (search_config.h, move_choice.h);
//  * resignation when the mover's root value stays below resign_threshold for
//    resign_consecutive of its moves, except in a no_resign_fraction of games, which are
//    played out and report whether resigning would have been wrong (to tune the threshold).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "games/game.h"
#include "mcts/evaluator.h"
#include "mcts/search.h"
#include "mcts/search_config.h"

namespace pz::mcts {

struct SelfPlayConfig {
  SearchConfig search;                   // simulations and noise are set per move from below
  int full_simulations = 800;
  int fast_simulations = 0;              // 0: playout-cap randomisation off (every move full)
  double full_search_probability = 0.25;
  bool prune_policy_target = true;       // with search.forced_playouts
  MoveSelection move_selection{MoveSelection::Method::kVisits, 1.96, 0.1, {1.0, 0.0, 30, 0.0}};
  bool resign = true;
  double resign_threshold = -0.9;        // mover's root value, return units
  int resign_consecutive = 3;
  double no_resign_fraction = 0.1;
  int games_per_actor = 16;              // trees in lockstep per thread
  int leaves_per_tree = 1;               // leaves gathered from each tree per step
  int max_moves = 0;                     // 0: the game's own bound
};

struct TrainingSample {
  std::string state;       // State::serialize() of the position searched
  games::Player player = 0;  // the seat this target is for
  int move_number = 0;
  std::vector<std::pair<games::Action, float>> policy;
  double root_value = 0;   // for `player`: the search's value, exact when its solver proved the root
  bool full_search = true; // false: a fast move; the position is not a policy target
};

struct GameRecord {
  std::string game;                  // canonical spec
  std::vector<games::Action> actions;  // every action applied (chance outcomes included; joint actions seat by seat)
  std::vector<TrainingSample> samples;
  std::vector<double> returns;       // final, or decided by resignation
  int resigned = -1;                 // seat that resigned
  bool no_resign = false;            // played out for checking
  int would_have_resigned = -1;      // in a no-resign game: the first seat that crossed the threshold
  // A no-resign game in which the seat that would have resigned did not lose.
  bool false_resignation() const;
};

class SelfPlayActor {
 public:
  // `game` and `evaluator` must outlive the actor.
  SelfPlayActor(const games::Game& game, SelfPlayConfig config, Evaluator& evaluator, std::uint64_t seed);
  ~SelfPlayActor();

  // Plays `games` games, config.games_per_actor at a time, handing each to `sink` as it ends.
  void play(int games, const std::function<void(GameRecord&&)>& sink);

  std::int64_t evaluator_calls() const { return evaluator_calls_; }
  std::int64_t leaves_evaluated() const { return leaves_evaluated_; }
  // Adds one to `*counter` for every move searched and played (joint moves count once), as
  // it is played: throughput over a short window, where few games finish, needs this.
  void count_positions(std::atomic<std::int64_t>* counter) { positions_ = counter; }

 private:
  struct Slot;
  void start_game(Slot& slot);
  bool prepare_move(Slot& slot);  // false when the game ended
  void make_move(Slot& slot);
  void finish(Slot& slot, std::vector<double> returns);

  const games::Game& game_;
  SelfPlayConfig config_;
  Evaluator& evaluator_;
  util::Rng rng_;
  std::vector<std::unique_ptr<Slot>> slots_;
  const std::function<void(GameRecord&&)>* sink_ = nullptr;
  int games_to_start_ = 0;
  std::int64_t evaluator_calls_ = 0, leaves_evaluated_ = 0;
  std::atomic<std::int64_t>* positions_ = nullptr;
};

// `threads` actors playing `games` games in total through one BatchingEvaluator over
// `evaluator`; `sink` is called under a lock, from the actor threads.
void run_selfplay(const games::Game& game, const SelfPlayConfig& config, Evaluator& evaluator, int threads, int games,
                  std::uint64_t seed, const std::function<void(GameRecord&&)>& sink);

}  // namespace pz::mcts
