// The evaluators an MCTS takes from Python: "uniform", "rollout", a model file, or a Python
// callable (PythonEvaluator) that the C++ search calls with batches of observations.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "arena/player_factory.h"
#include "games/game.h"
#include "mcts/evaluator.h"

namespace pz::python {

// Calls a Python callable `evaluate(observations) -> (priors, values)` for each batch the
// search asks for:
//  * observations: float32 numpy array N×C×H×W, each position seen by the player to move
//    (seat 0 at simultaneous nodes), as State.observation() shows it;
//  * priors: N×A (A = game.num_distinct_actions), non-negative; the search takes each
//    position's legal entries and normalises them (all zero: uniform);
//  * values: N values for the player to move in the game's return units (two-player
//    zero-sum and single-player games), or N×num_players values per seat (any game).
// The GIL is taken only inside evaluate(), so the search itself runs with it released.
// An exception raised by the callable stops the search; rethrow_callback_error() (GIL held)
// raises it again in the caller. A result of the wrong shape is a ValueError.
class PythonEvaluator final : public mcts::Evaluator {
 public:
  PythonEvaluator(const games::Game& game, pybind11::object callable);
  ~PythonEvaluator() override;
  void evaluate(std::span<const mcts::EvalRequest> batch) override;
  // Raises the callable's pending exception, if any, as itself. Needs the GIL.
  void rethrow_callback_error();
  std::int64_t calls() const { return calls_; }

 private:
  // What evaluate() throws through the search when the callable raised.
  struct CallbackFailed : std::runtime_error {
    CallbackFailed() : std::runtime_error("the Python evaluator raised an exception") {}
  };
  void evaluate_with_gil(std::span<const mcts::EvalRequest> batch);
  void fill_priors(const mcts::EvalRequest& request, const float* row) const;
  void fill_values(const mcts::EvalRequest& request, const float* row, int per_row) const;

  const games::Game& game_;
  pybind11::object callable_;
  std::optional<pybind11::error_already_set> pending_error_;
  std::int64_t calls_ = 0;
};

struct EvaluatorChoice {
  int rollouts = 1;                       // "rollout": random playouts per leaf
  std::uint64_t seed = 0;                 // "rollout": playouts' seed
  arena::ModelEvaluatorOptions model;     // a model path: symmetries, backend, threads
};

// The evaluator `spec` names for `game`: "uniform", "rollout", a model file path (.safetensors,
// or .pt where LibTorch is built in), or a callable (PythonEvaluator). ValueError otherwise.
std::unique_ptr<mcts::Evaluator> make_evaluator(const games::Game& game, pybind11::object spec,
                                                const EvaluatorChoice& choice);

}  // namespace pz::python
