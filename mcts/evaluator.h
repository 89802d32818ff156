// The search's only view of a network: a batch of positions in, priors and values out.
//
// Conventions (every Evaluator follows them, the search relies on them):
//  * Priors are over the legal actions the search passes in, in that order (action a is
//    policy cell a, so a network backend gathers its policy logits at those indices and
//    normalises them). They should sum to 1; the search renormalises defensively.
//    At a simultaneous-move node `legal` is empty and only values are asked for (the search
//    uses uniform per-player priors there until a game needs more).
//  * Values are per seat — values[p] for p in [0, num_players) — in the game's return
//    units (the same scale as State::returns(): ±1 for win/loss games, the score for scored
//    games). Per-seat values serve two-player, single-player and multi-player games with one
//    convention; a network with a single mover's-view output writes v and -v.
//  * evaluate() may be called from several threads at once; implementations are thread-safe
//    (BatchingEvaluator turns calls from many threads into large batches for one backend).
//
// This file also has the evaluators that need no network: uniform priors with either a
// constant value or the mean return of random playouts (rollouts).
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "games/game.h"
#include "util/rng.h"

namespace pz::mcts {

struct EvalRequest {
  const games::State* state = nullptr;
  std::span<const games::Action> legal;  // priors wanted for these (empty at simultaneous nodes)
  float* priors = nullptr;               // legal.size() floats to fill
  float* values = nullptr;               // num_players floats to fill
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual void evaluate(std::span<const EvalRequest> batch) = 0;
  // How many evaluate() calls make progress at once (each on its caller's thread); a
  // caller beyond that waits for one to finish. BatchingEvaluator cuts a batch without
  // waiting for busy callers while one of these is free.
  virtual int concurrent_calls() const { return 1; }
};

// Uniform priors, and `value` for every seat: the "no knowledge" evaluator (search
// semantics then come from terminal states alone, as in a pure solver).
class UniformEvaluator final : public Evaluator {
 public:
  explicit UniformEvaluator(float value = 0.0f) : value_(value) {}
  void evaluate(std::span<const EvalRequest> batch) override;

 private:
  float value_;
};

// Uniform priors; values are the mean returns of `rollouts` uniformly random playouts from
// the position (chance outcomes drawn by their probabilities, simultaneous nodes by a random
// joint action). Each position's playouts are drawn from the seed and the position's hash,
// so the evaluator is thread-safe and reproducible with any number of threads.
class RolloutEvaluator final : public Evaluator {
 public:
  RolloutEvaluator(int rollouts, std::uint64_t seed) : rollouts_(rollouts < 1 ? 1 : rollouts), seed_(seed) {}
  void evaluate(std::span<const EvalRequest> batch) override;

 private:
  int rollouts_;
  std::uint64_t seed_;
};

// Plays `state` to the end with uniformly random moves (chance by probability) and returns
// the final returns. `legal` and `joint` are scratch buffers reused across calls.
std::vector<double> random_playout(games::State& state, util::Rng& rng, std::vector<games::Action>& legal,
                                   std::vector<games::Action>& joint);

// Draws a chance outcome of `state` (a chance node) by its probability.
games::Action sample_chance_outcome(const games::State& state, util::Rng& rng);

}  // namespace pz::mcts
