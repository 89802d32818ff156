// polyzero.train(...): a self-play training run (nn/trainer.h) from Python, and
// polyzero.train_config(...): the config such a run would use.
//
// The config is built as the program builds it (nn/train_config.h): the defaults, the
// game's recipe (configs/<game>.json, where found), then `config` (a dict, merged as an RFC
// 7386 patch), then `set` ("a.b=VALUE" overrides, as `train --set`). The run releases the
// GIL; every metrics line reaches `on_metrics` as a dict while it runs (on the calling
// thread); Ctrl-C stops it as the program's Ctrl-C does — the current step finishes and a
// checkpoint is written — and then raises KeyboardInterrupt, so `train(resume=run_dir)`
// continues it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "nn/run_dir.h"
#include "nn/train_config.h"
#include "nn/trainer.h"
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
