#include "python/evaluators.h"

#include <pybind11/numpy.h>

#include <cmath>
#include <string>
#include <vector>

#include "nn/model_players.h"
#include "python/errors.h"
#include "python/numpy_views.h"
#include "util/error.h"

namespace py = pybind11;

namespace pz::python {

namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

std::string shape_text(const FloatArray& a) {
  std::string out = "(";
  for (py::ssize_t d = 0; d < a.ndim(); ++d) out += (d ? ", " : "") + std::to_string(a.shape(d));
  return out + (a.ndim() == 1 ? ",)" : ")");
}

}  // namespace

PythonEvaluator::PythonEvaluator(const games::Game& game, py::object callable)
    : game_(game), callable_(std::move(callable)) {}

PythonEvaluator::~PythonEvaluator() {
  // The callable is a Python object: drop the reference under the GIL.
  py::gil_scoped_acquire gil;
  callable_ = py::object();
  pending_error_.reset();
}

void PythonEvaluator::evaluate(std::span<const mcts::EvalRequest> batch) {
  if (batch.empty()) return;
  py::gil_scoped_acquire gil;
  try {
    evaluate_with_gil(batch);
  } catch (py::error_already_set& e) {
    pending_error_.emplace(std::move(e));
    throw CallbackFailed();
  }
}

void PythonEvaluator::rethrow_callback_error() {
  if (!pending_error_) return;
  py::error_already_set error = std::move(*pending_error_);
  pending_error_.reset();
  throw error;
}

void PythonEvaluator::evaluate_with_gil(std::span<const mcts::EvalRequest> batch) {
  ++calls_;
  std::vector<const games::State*> states;
  states.reserve(batch.size());
  for (const auto& request : batch) states.push_back(request.state);
  const py::object result = callable_(observation_batch(game_, states));
  if (!py::isinstance<py::sequence>(result) || py::len(result) != 2) {
    throw_value_error("the evaluator must return (priors, values)");
  }
  const auto n = static_cast<py::ssize_t>(batch.size());
  const int actions = game_.info().num_distinct_actions;
  const int players = game_.info().num_players;
  const auto priors = result[py::int_(0)].cast<FloatArray>();
  const auto values = result[py::int_(1)].cast<FloatArray>();
  if (priors.ndim() != 2 || priors.shape(0) != n || priors.shape(1) != actions) {
    throw_value_error("the evaluator's priors must be shaped (" + std::to_string(n) + ", " + std::to_string(actions) +
                      ") (batch, num_distinct_actions), got " + shape_text(priors));
  }
  const bool per_seat = values.ndim() == 2;
  if (!((values.ndim() == 1 && values.shape(0) == n) || (per_seat && values.shape(0) == n && values.shape(1) == players))) {
    throw_value_error("the evaluator's values must be shaped (" + std::to_string(n) + ",) or (" + std::to_string(n) +
                      ", " + std::to_string(players) + "), got " + shape_text(values));
  }
  const bool mover_view_fits = players == 1 || (players == 2 && game_.info().zero_sum);
  if (!per_seat && !mover_view_fits) {
    throw_value_error("the evaluator's values for " + game_.spec().to_string() + " must be one per seat: shaped (" +
                      std::to_string(n) + ", " + std::to_string(players) + ")");
  }
  for (py::ssize_t i = 0; i < n; ++i) {
    fill_priors(batch[i], priors.data(i, 0));
    fill_values(batch[i], per_seat ? values.data(i, 0) : values.data(i), per_seat ? players : 1);
  }
}

void PythonEvaluator::fill_priors(const mcts::EvalRequest& request, const float* row) const {
  double sum = 0;
  for (const games::Action a : request.legal) {
    const float p = row[a];
    if (!(p >= 0) || !std::isfinite(p)) {
      throw_value_error("the evaluator's priors must be finite and non-negative, got " + std::to_string(p) +
                        " for action " + std::to_string(a));
    }
    sum += p;
  }
  const std::size_t count = request.legal.size();
  for (std::size_t k = 0; k < count; ++k) {
    request.priors[k] = sum > 0 ? static_cast<float>(row[request.legal[k]] / sum) : 1.0f / static_cast<float>(count);
  }
}

void PythonEvaluator::fill_values(const mcts::EvalRequest& request, const float* row, int per_row) const {
  const int players = game_.info().num_players;
  if (per_row == players) {
    std::copy(row, row + players, request.values);
    return;
  }
  const games::Player mover = viewer(*request.state);
  request.values[mover] = row[0];
  if (players == 2) request.values[1 - mover] = -row[0];
}

std::unique_ptr<mcts::Evaluator> make_evaluator(const games::Game& game, py::object spec, const EvaluatorChoice& choice) {
  if (!py::isinstance<py::str>(spec)) {
    if (PyCallable_Check(spec.ptr())) return std::make_unique<PythonEvaluator>(game, std::move(spec));
    throw_value_error("evaluator: expected \"uniform\", \"rollout\", a model file or a callable");
  }
  const auto name = spec.cast<std::string>();
  if (name == "uniform") return std::make_unique<mcts::UniformEvaluator>();
  if (name == "rollout") return std::make_unique<mcts::RolloutEvaluator>(choice.rollouts, choice.seed);
  py::gil_scoped_release release;  // loading may compile the network's kernels
  try {
    return nn::make_model_evaluator(name, game, 1 << 14, choice.model);
  } catch (const util::UsageError& e) {
    throw util::UsageError("evaluator '" + name + "' (\"uniform\", \"rollout\", a model file or a callable): " + e.what());
  }
}

}  // namespace pz::python
