// polyzero.train(...): a self-play training run (nn/trainer.h) from Python,
// polyzero.train_config(...): the config such a run would use, and polyzero.Learner: that
// run's learner (nn/training_learner.h) on its own, stepped on numpy batches.
//
// The config is built as the program builds it (nn/train_config.h): the defaults, the
// game's recipe (configs/<game>.json, where found), then `config` (a dict, merged as an RFC
// 7386 patch), then `set` ("a.b=VALUE" overrides, as `train --set`). The run releases the
// GIL; every metrics line reaches `on_metrics` as a dict while it runs (on the calling
// thread); Ctrl-C stops it as the program's Ctrl-C does — the current step finishes and a
// checkpoint is written — and then raises KeyboardInterrupt, so `train(resume=run_dir)`
// continues it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "games/registry.h"
#include "nn/model_file.h"
#include "nn/net_config.h"
#include "nn/replay_buffer.h"
#include "nn/run_dir.h"
#include "nn/train_config.h"
#include "nn/trainer.h"
#include "nn/training_learner.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/interruptible.h"

namespace py = pybind11;

namespace pz::python {

namespace {

struct TrainOutcome {
  std::int64_t step = 0, games = 0, samples = 0;
  std::string run_dir, checkpoint, model;
  bool interrupted = false;
  double seconds = 0;
};

nlohmann::json to_json(const py::handle& value, const std::string& what) {
  const std::string text = py::module_::import("json").attr("dumps")(value).cast<std::string>();
  nlohmann::json j = nlohmann::json::parse(text);
  if (!j.is_object()) throw_value_error(what + ": expected a dict");
  return j;
}

py::object to_python(const nlohmann::json& value) { return py::module_::import("json").attr("loads")(value.dump()); }

nn::TrainConfig new_run_config(const std::string& game_spec, const py::object& config, const std::vector<std::string>& set,
                               std::int64_t steps) {
  if (game_spec.empty()) throw_value_error("train: name the game (game=\"connect4\"), or resume a run (resume=RUN_DIR)");
  const auto game = nn::recipe_game(game_spec);
  nlohmann::json j = nn::recipe_config(*game);
  if (!config.is_none()) j.merge_patch(to_json(config, "config"));
  j["game"] = game->spec().to_string();
  for (const auto& s : set) nn::apply_override(j, s);
  if (steps > 0) j["learner"]["steps"] = steps;
  return nn::parse_train_config(j);
}

py::object train_config(const std::string& game, const py::object& config, const std::vector<std::string>& set) {
  const nn::TrainConfig c = new_run_config(game, config, set, 0);
  nn::check_train_config(c);
  return to_python(c.resolved);
}

TrainOutcome train(const std::string& game, const py::object& config, const std::vector<std::string>& set,
                   const std::string& run_dir, const std::string& resume, std::int64_t steps, double minutes,
                   const py::object& on_metrics, bool quiet) {
  if (steps < 0) throw_value_error("train: steps must be >= 0");
  if (minutes < 0) throw_value_error("train: minutes must be >= 0");
  nn::TrainConfig c;
  nn::TrainOptions options;
  if (!resume.empty()) {
    if (!game.empty() || !config.is_none() || !set.empty() || !run_dir.empty()) {
      throw_value_error("train: resume=RUN_DIR continues a run with its own config.json; game, config, set and "
                        "run_dir do not apply");
    }
    c = nn::load_run_config(resume);
    options.run_dir = resume;
    options.resume = true;
    options.max_steps = steps;
  } else {
    if (run_dir.empty()) throw_value_error("train: give the new run's directory (run_dir=\"runs/name\")");
    c = new_run_config(game, config, set, steps);
    options.run_dir = run_dir;
  }
  options.minutes = minutes;
  options.quiet = quiet;
  std::mutex mutex;
  std::deque<nlohmann::json> lines;  // written by the trainer, handed to on_metrics here
  if (!on_metrics.is_none()) {
    options.on_metrics = [&](const nlohmann::json& line) {
      std::lock_guard lock(mutex);
      lines.push_back(line);
    };
  }
  const auto deliver = [&] {
    if (on_metrics.is_none()) return;
    for (;;) {
      nlohmann::json line;
      {
        std::lock_guard lock(mutex);
        if (lines.empty()) return;
        line = std::move(lines.front());
        lines.pop_front();
      }
      on_metrics(to_python(line));
    }
  };
  nn::TrainResult result;
  run_interruptibly(
      [&](const std::atomic<bool>& stop) {
        options.stop = &stop;
        result = nn::train(c, options);
      },
      deliver);
  return {result.step, result.games, result.samples, options.run_dir, result.checkpoint,
          nn::RunDir(options.run_dir).latest_model_path(), result.interrupted, result.seconds};
}

// One learner outside a run (training_learner.h): steps on batches given as numpy arrays, as
// the trainer feeds it from its replay buffer (replay_buffer.h's Batch).
class PyLearner {
 public:
  PyLearner(const std::string& game_spec, const py::object& config, const std::vector<std::string>& set, std::uint64_t seed)
      : config_(new_run_config(game_spec, config, set, 0)), game_(games::make_game(config_.game)) {
    nn::check_train_config(config_);
    const nn::LearnerConfig lc = nn::learner_config(config_);
    shape_ = nn::net_shape(game_->info());
    auxiliary_ = lc.network.auxiliary();
    py::gil_scoped_release release;  // the poly learner compiles its kernels
    learner_ = nn::make_training_learner(*game_, lc, seed);
  }

  py::dict step(const py::array& observations, const py::array& policies, const py::array& values,
                const py::object& policy_mask, const py::object& ownership, const py::object& score,
                const py::object& auxiliary_mask) {
    nn::Batch batch;
    const auto obs = as_floats(observations, "observations");
    if (obs.ndim() < 1 || obs.shape(0) < 1) throw_value_error("step: observations need at least one row");
    if (obs.shape(0) > (1 << 16)) throw_value_error("step: at most 65536 rows a step");
    batch.size = static_cast<int>(obs.shape(0));
    const py::ssize_t n = batch.size;
    batch.observations = rows(obs, "observations", shape_.input.size(), n);
    batch.policies = rows(as_floats(policies, "policies"), "policies", shape_.policy.size(), n);
    batch.values = rows(as_floats(values, "values"), "values", shape_.value_outputs, n);
    batch.policy_mask = policy_mask.is_none() ? std::vector<float>(static_cast<std::size_t>(n), 1.0f)
                                              : rows(as_floats(policy_mask, "policy_mask"), "policy_mask", 1, n);
    if (auxiliary_) {
      if (ownership.is_none() || score.is_none())
        throw_value_error("step: this network has ownership and score heads: give ownership (N×H×W) and score (N)");
      batch.ownership = rows(as_floats(ownership, "ownership"), "ownership", shape_.input.plane_size(), n);
      batch.score = rows(as_floats(score, "score"), "score", 1, n);
      batch.auxiliary_mask = auxiliary_mask.is_none() ? std::vector<float>(static_cast<std::size_t>(n), 1.0f)
                                                      : rows(as_floats(auxiliary_mask, "auxiliary_mask"), "auxiliary_mask", 1, n);
    } else if (!ownership.is_none() || !score.is_none()) {
      throw_value_error("step: this network has no ownership and score heads (network.ownership, network.score)");
    }
    nn::StepStats stats;
    {
      py::gil_scoped_release release;
      stats = learner_->train_step(batch);
    }
    py::dict d;
    d["step"] = stats.step;
    d["loss"] = stats.loss;
    d["policy_loss"] = stats.policy_loss;
    d["value_loss"] = stats.value_loss;
    if (auxiliary_) {
      d["ownership_loss"] = stats.ownership_loss;
      d["score_loss"] = stats.score_loss;
    }
    d["lr"] = stats.lr;
    d["grad_norm"] = stats.grad_norm;
    return d;
  }

  py::dict weights() const {
    py::dict d;
    for (const auto& [name, tensor] : learner_->current_weights()) {
      py::array_t<float> a(std::vector<py::ssize_t>(tensor.shape.begin(), tensor.shape.end()));
      std::copy(tensor.values.begin(), tensor.values.end(), a.mutable_data());
      d[py::str(name)] = a;
    }
    return d;
  }

  // A model file of the current weights (model_file.h: safetensors for ".safetensors", else
  // the build's archive form), playable as mcts:model=PATH.
  void save_model(const std::string& path) const {
    nn::ModelInfo info;
    info.game = game_->spec().to_string();
    info.network = config_.network;
    info.step = learner_->step();
    const nn::NetWeights w = learner_->current_weights();
    py::gil_scoped_release release;
    nn::write_model_file(path, info, w);
  }
  void load_model(const std::string& path) {
    const nn::ModelFile file = nn::read_model_file_for(path, *game_);
    if (!(file.info.network == config_.network))
      throw_value_error("load_model: " + path + " holds another network (" + file.info.network.to_json().dump() + ")");
    learner_->set_weights(file.weights);
  }
  void save_state(const std::string& path) const { learner_->save_state(path); }
  void load_state(const std::string& path) { learner_->load_state(path); }

  std::int64_t step_count() const { return learner_->step(); }
  double lr() const { return learner_->lr(); }
  py::object config() const { return to_python(config_.resolved); }
  std::string state_file_name() const { return learner_->state_file_name(); }

 private:
  static py::array_t<float, py::array::c_style | py::array::forcecast> as_floats(const py::handle& a, const char* what) {
    auto f = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(a);
    if (!f) throw_value_error(std::string("step: ") + what + " must be an array of numbers");
    return f;
  }
  // `a`'s floats, checked to be `n` rows (its first dimension) of `width` floats each.
  static std::vector<float> rows(const py::array_t<float, py::array::c_style | py::array::forcecast>& a, const char* what,
                                 py::ssize_t width, py::ssize_t n) {
    const bool shaped = a.ndim() >= 1 && a.shape(0) == n && a.size() == n * width;
    if (!shaped) {
      std::string dims;
      for (py::ssize_t d = 0; d < a.ndim(); ++d) dims += (d ? "x" : "") + std::to_string(a.shape(d));
      throw_value_error(std::string("step: ") + what + " must hold " + std::to_string(n) + " rows of " +
                        std::to_string(width) + " values, got shape (" + dims + ")");
    }
    return {a.data(), a.data() + a.size()};
  }

  nn::TrainConfig config_;
  std::shared_ptr<const games::Game> game_;
  nn::NetShape shape_;
  bool auxiliary_ = false;
  std::unique_ptr<nn::TrainingLearner> learner_;
};

}  // namespace

void bind_train(py::module_& m) {
  py::class_<TrainOutcome>(m, "TrainResult", "How a training run ended.")
      .def_readonly("step", &TrainOutcome::step, "the learner's step at the end")
      .def_readonly("games", &TrainOutcome::games, "self-play games in the run so far")
      .def_readonly("samples", &TrainOutcome::samples, "samples the replay buffer took in so far")
      .def_readonly("run_dir", &TrainOutcome::run_dir)
      .def_readonly("checkpoint", &TrainOutcome::checkpoint, "the last checkpoint written")
      .def_readonly("model", &TrainOutcome::model, "the newest model file (for mcts:model=...)")
      .def_readonly("interrupted", &TrainOutcome::interrupted, "stopped early (Ctrl-C)")
      .def_readonly("seconds", &TrainOutcome::seconds, "this invocation's wall-clock time")
      .def("__repr__", [](const TrainOutcome& r) {
        return "TrainResult(step=" + std::to_string(r.step) + ", games=" + std::to_string(r.games) + ", model='" + r.model +
               "')";
      });
  py::class_<PyLearner>(m, "Learner",
                        "One learner outside a run: the network of a training config, stepped on numpy batches.")
      .def(py::init<const std::string&, const py::object&, const std::vector<std::string>&, std::uint64_t>(),
           py::arg("game"), py::arg("config") = py::none(), py::arg("set") = std::vector<std::string>{},
           py::arg("seed") = 1,
           "The learner a new run of `game` would train (its config built as train_config builds it); seed draws the "
           "initial weights.")
      .def("step", &PyLearner::step, py::arg("observations"), py::arg("policies"), py::arg("values"),
           py::arg("policy_mask") = py::none(), py::arg("ownership") = py::none(), py::arg("score") = py::none(),
           py::arg("auxiliary_mask") = py::none(),
           "One learner step (loss, backward, clipping, optimiser, schedule) on a batch: observations N×C×H×W, "
           "policy targets N×A (probabilities), value targets N×V in [-1, 1]; policy_mask N (0: no policy target); "
           "for networks with ownership and score heads, ownership N×H×W and score N. Returns the step's losses, "
           "lr and gradient norm. A step that diverges (non-finite loss or weights) is a RuntimeError and changes "
           "no weight.")
      .def("weights", &PyLearner::weights, "The parameters and batch-norm statistics by name, as numpy arrays (copies).")
      .def("save_model", &PyLearner::save_model, py::arg("path"),
           "A model file of the current weights (.safetensors in every build), for load_model and mcts:model=PATH.")
      .def("load_model", &PyLearner::load_model, py::arg("path"), "Takes the weights of a model file of the same network.")
      .def("save_state", &PyLearner::save_state, py::arg("path"), "The optimiser's and schedule's state (a checkpoint's).")
      .def("load_state", &PyLearner::load_state, py::arg("path"))
      .def_property_readonly("step_count", &PyLearner::step_count, "steps taken")
      .def_property_readonly("lr", &PyLearner::lr, "the learning rate of the next step")
      .def_property_readonly("config", &PyLearner::config, "the resolved training config")
      .def_property_readonly("state_file_name", &PyLearner::state_file_name);
  m.def("train_config", &train_config, py::arg("game"), py::arg("config") = py::none(),
        py::arg("set") = std::vector<std::string>{},
        "The resolved config a new run of `game` would use: the defaults, the game's recipe "
        "(configs/<game>.json where found), `config` merged over them, then `set` overrides (\"a.b=VALUE\").");
  m.def("train", &train, py::kw_only(), py::arg("game") = "", py::arg("config") = py::none(),
        py::arg("set") = std::vector<std::string>{}, py::arg("run_dir") = "", py::arg("resume") = "",
        py::arg("steps") = 0, py::arg("minutes") = 0.0, py::arg("on_metrics") = py::none(), py::arg("quiet") = true,
        "Trains by self-play into run_dir (a new run of `game`, its config built as train_config builds it), or "
        "continues the run in `resume`. steps: a new run's length, or where a resumed one stops; minutes: a time "
        "bound (0: none). on_metrics(dict) sees every metrics line as it is written. Ctrl-C finishes the current "
        "step, writes a checkpoint and raises KeyboardInterrupt.");
}

}  // namespace pz::python
