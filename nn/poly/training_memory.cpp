#include "nn/poly/training_memory.h"

#include <algorithm>
#include <string>

namespace pz::nn {

namespace {

constexpr std::size_t kFloat = sizeof(float);

std::string layer_name(const TrainingLayer& layer, int index) {
  return std::to_string(index) + " " + (layer.module.empty() ? layer.kind : layer.module);
}

}  // namespace

TrainingStepMemory training_step_memory(const TrainingPlan& plan, int batch) {
  const int count = static_cast<int>(plan.layers.size());
  const auto n = static_cast<std::size_t>(std::max(batch, 1));
  auto forward = [](int i) { return i; };
  auto backward = [count](int i) { return 2 * count - 1 - i; };
  auto layer = [&plan](int i) -> const TrainingLayer& { return plan.layers[static_cast<std::size_t>(i)]; };

  std::vector<int> last_use(plan.layers.size());
  for (int i = 0; i < count; ++i) last_use[static_cast<std::size_t>(i)] = layer(i).keeps_output ? backward(i) : forward(i);
  TrainingStepMemory memory;
  for (int j = 0; j < count; ++j) {
    const TrainingLayer& reader = layer(j);
    for (std::size_t k = 0; k < reader.inputs.size(); ++k) {
      const int i = reader.inputs[k];
      if (i < 0) continue;
      int& last = last_use[static_cast<std::size_t>(i)];
      last = std::max(last, reader.keeps_input && k == 0 ? backward(j) : forward(j));
      if (reader.has_backward() && layer(i).has_backward()) {
        memory.buffers.push_back({"gradient " + layer_name(reader, j) + " -> " + layer_name(layer(i), i),
                                  layer(i).output_floats * n, backward(j), backward(i), nullptr});
      }
    }
  }
  for (int i = 0; i < count; ++i) {
    const TrainingLayer& l = layer(i);
    memory.buffers.push_back({"output " + layer_name(l, i), l.output_floats * n, forward(i), last_use[static_cast<std::size_t>(i)], nullptr});
    for (const LayerWorkspace& w : l.workspaces) {
      const int first = w.use == LayerWorkspace::Use::kBackward ? backward(i) : forward(i);
      const int last = w.use == LayerWorkspace::Use::kForward ? forward(i) : backward(i);
      memory.buffers.push_back({w.name + " " + layer_name(l, i), w.per_position * n + w.fixed, first, last, nullptr});
    }
  }

  std::vector<std::size_t> alive(static_cast<std::size_t>(2 * count), 0);
  for (const poly::BufferLifetime& b : memory.buffers) {
    for (int t = b.first; t <= b.last; ++t) alive[static_cast<std::size_t>(t)] += b.elements * kFloat;
    if (b.first < count && b.last >= count) memory.kept_for_backward_bytes += b.elements * kFloat;
  }
  memory.live_peak_bytes = alive.empty() ? 0 : *std::max_element(alive.begin(), alive.end());
  const poly::StoragePlan placed = poly::place_buffers(memory.buffers);
  memory.planned_bytes = placed.elements * kFloat;
  memory.unshared_bytes = placed.unshared_elements * kFloat;
  return memory;
}

}  // namespace pz::nn
