// polyzero.load_model(path, ...) -> Model: a checkpoint's network on a backend (nn/backend.h),
// evaluated on numpy batches of observations, as the search evaluates it. The file is read
// as the model players read it (nn/model_file.h: safetensors, or a LibTorch archive in a
// build with LibTorch); the backend is built once per Model, and each evaluate() is one
// forward pass with the GIL released.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "games/registry.h"
#include "nn/backend.h"
#include "nn/model_file.h"
#include "nn/net_config.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/games_module.h"
#include "python/numpy_views.h"

namespace py = pybind11;

namespace pz::python {

namespace {

using games::Game;
using games::State;

class Model {
 public:
  Model(const std::string& path, const std::shared_ptr<const Game>& game, const std::string& backend, int threads)
      : path_(path) {
    if (threads < 1) throw_value_error("load_model: threads must be >= 1");
    file_ = game ? nn::read_model_file_for(path, *game) : nn::read_model_file(path);
    game_ = game ? game : games::make_game(file_.info.game);
    shape_ = nn::net_shape(game_->info());
    nn::BackendOptions options;
    options.name = backend;
    options.threads = threads;
    py::gil_scoped_release release;  // the poly backend may compile the network's kernels
    backend_ = nn::make_backend(options, file_.info.network, shape_);
    backend_->load(file_.weights);
  }

  // `observations`: N×C×H×W (or one C×H×W) float32. Returns (policy logits N×A, values N×V).
  py::tuple evaluate(const py::array& observations) {
    const auto& in = shape_.input;
    const auto batch = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(observations);
    if (!batch) throw_value_error("evaluate: expected a float array of observations");
    const bool single = batch.ndim() == 3;
    if (!single && batch.ndim() != 4)
      throw_value_error("evaluate: expected observations shaped N×C×H×W (or C×H×W), got " + std::to_string(batch.ndim()) +
                        " dimensions");
    const int offset = single ? 0 : 1;
    const std::vector<py::ssize_t> expected{in.channels, in.height, in.width};
    for (int d = 0; d < 3; ++d) {
      if (batch.shape(d + offset) != expected[d])
        throw_value_error("evaluate: observations of " + game_->spec().to_string() + " are " + shape_text() + ", got " +
                          dims_text(batch));
    }
    const py::ssize_t rows = single ? 1 : batch.shape(0);
    if (rows > (1 << 20)) throw_value_error("evaluate: at most 1048576 observations a call");
    const py::ssize_t actions = shape_.policy.size(), outputs = shape_.value_outputs;
    py::array_t<float> policy({rows, actions}), values({rows, outputs});
    if (rows > 0) {
      const float* input = batch.data();
      float* p = policy.mutable_data();
      float* v = values.mutable_data();
      py::gil_scoped_release release;
      std::lock_guard lock(mutex_);  // one forward pass at a time per backend (nn/backend.h)
      backend_->forward(input, static_cast<int>(rows), p, v);
    }
    if (single) return py::make_tuple(policy[py::int_(0)], values[py::int_(0)]);
    return py::make_tuple(policy, values);
  }

  // The states' observations (each from its mover's view, as the search shows them) evaluated.
  py::tuple evaluate_states(const std::vector<const State*>& states) {
    for (const State* s : states) {
      if (!s) throw_value_error("evaluate_states: None is not a state");
      if (s->game().network_spec().to_string() != game_->network_spec().to_string())
        throw_value_error("evaluate_states: a state of " + s->game().spec().to_string() + ", the model plays " +
                          game_->spec().to_string());
    }
    return evaluate(observation_batch(*game_, states));
  }

  const nn::ModelInfo& info() const { return file_.info; }
  const std::shared_ptr<const Game>& game() const { return game_; }
  std::string backend_name() const { return backend_->name(); }
  std::vector<int> input_shape() const { return {shape_.input.channels, shape_.input.height, shape_.input.width}; }
  int policy_size() const { return shape_.policy.size(); }
  int value_outputs() const { return shape_.value_outputs; }
  const std::string& path() const { return path_; }

 private:
  std::string shape_text() const {
    return std::to_string(shape_.input.channels) + "×" + std::to_string(shape_.input.height) + "×" +
           std::to_string(shape_.input.width);
  }
  static std::string dims_text(const py::array& a) {
    std::string text;
    for (py::ssize_t d = 0; d < a.ndim(); ++d) text += (d ? "×" : "") + std::to_string(a.shape(d));
    return text;
  }

  std::string path_;
  nn::ModelFile file_;
  std::shared_ptr<const Game> game_;
  nn::NetShape shape_;
  std::unique_ptr<nn::Backend> backend_;
  std::mutex mutex_;
};

py::object json_to_python(const nlohmann::json& value) { return py::module_::import("json").attr("loads")(value.dump()); }

}  // namespace

void bind_model(py::module_& m) {
  py::class_<Model>(m, "Model", "A checkpoint's network on a backend, evaluated on numpy batches of observations.")
      .def("evaluate", &Model::evaluate, py::arg("observations"),
           "One forward pass: observations N×C×H×W (or one C×H×W), float32 -> (policy logits N×A, values N×V). "
           "Values are in [-1, 1] for the player whose view the observation is.")
      .def("evaluate_states", &Model::evaluate_states, py::arg("states"),
           "The states' observations (each from its mover's view) evaluated: (policy logits, values).")
      .def_property_readonly("game", [](const Model& model) { return std::const_pointer_cast<Game>(model.game()); })
      .def_property_readonly("backend", &Model::backend_name, "The backend that runs it: poly or torch.")
      .def_property_readonly("info", [](const Model& model) { return json_to_python(model.info().to_json()); },
                             "The checkpoint's description: game, network, step, weights checksum, ...")
      .def_property_readonly("step", [](const Model& model) { return model.info().step; })
      .def_property_readonly("parameters", [](const Model& model) { return model.info().parameters; })
      .def_property_readonly("input_shape", &Model::input_shape, "C, H, W of one observation.")
      .def_property_readonly("policy_size", &Model::policy_size, "Logits per observation: the game's action count.")
      .def_property_readonly("value_outputs", &Model::value_outputs)
      .def_property_readonly("path", &Model::path)
      .def("__repr__", [](const Model& model) {
        return "polyzero.load_model(\"" + model.path() + "\")  # " + model.info().game + ", step " +
               std::to_string(model.info().step) + ", " + model.backend_name();
      });
  m.def(
      "load_model",
      [](const std::string& path, const py::object& game, const std::string& backend, int threads) {
        return std::make_unique<Model>(path, game.is_none() ? nullptr : game_argument(game), backend, threads);
      },
      py::arg("path"), py::arg("game") = py::none(), py::arg("backend") = "auto", py::arg("threads") = 1,
      "A checkpoint (safetensors; a LibTorch archive where LibTorch is linked) on a backend: \"auto\", \"poly\" or "
      "\"torch\". game: a variant of the checkpoint's game to play it on (the same network shape).");
}

}  // namespace pz::python
