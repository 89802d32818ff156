#include "python/numpy_views.h"

namespace py = pybind11;

namespace pz::python {

games::Player viewer(const games::State& state) {
  const games::Player p = state.current_player();
  return p >= 0 ? p : 0;
}

py::array_t<float> observation_array(const games::State& state, games::Player player) {
  const games::Shape& shape = state.game().info().observation_shape;
  py::array_t<float> out({shape.channels, shape.height, shape.width});
  state.observation(player, out.mutable_data());
  return out;
}

py::array_t<float> observation_batch(const games::Game& game, std::span<const games::State* const> states) {
  const games::Shape& shape = game.info().observation_shape;
  const auto n = static_cast<py::ssize_t>(states.size());
  py::array_t<float> out({n, static_cast<py::ssize_t>(shape.channels), static_cast<py::ssize_t>(shape.height),
                          static_cast<py::ssize_t>(shape.width)});
  float* data = out.mutable_data();
  for (std::size_t i = 0; i < states.size(); ++i) {
    states[i]->observation(viewer(*states[i]), data + i * static_cast<std::size_t>(shape.size()));
  }
  return out;
}

}  // namespace pz::python
