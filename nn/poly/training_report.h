// What the poly learner's step moves (for `polyc --report-net`): per layer of the learner's
// training network (nn/poly/training_plan.h, as nn/poly/backprop.cpp plans it: Winograd as
// PZ_POLY_WINOGRAD says), the bytes its generated kernels move between memory and
// the caches under polyc's model (polyhedral/analysis/footprint.h: distinct elements per loop nest,
// each nest counted alone), the forward kernels and the gradient kernels apart; and the
// memory the step's buffers take, each alone and placed by the storage planner
// (nn/poly/training_memory.h).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "nn/poly/training_memory.h"
#include "nn/poly/training_plan.h"

namespace pz::nn {

struct KernelTraffic {
  double memory_in = 0, memory_out = 0;  // bytes
  std::optional<double> l2_loads, l1_loads;  // bytes into L2 / L1 over the tiled bands (nullopt: no nest modelled)
  int nests = 0, nests_not_modelled = 0;
  std::vector<std::string> schedules;  // polyc's schedule origin per nest
};

struct TrainingLayerTraffic {
  TrainingLayer layer;
  KernelTraffic forward, gradients;  // gradients: every function after the first
};

struct TrainingStepReport {
  int batch = 0;
  int winograd = 0;  // the learner's Winograd mode (training_winograd_mode)
  std::vector<TrainingLayerTraffic> layers;
  KernelTraffic forward, gradients;  // sums over the layers
  // The backward fusions weighed at this batch: the autograd path's (PolyTrainingNet); the
  // learner without LibTorch plans for every batch and fuses none of them.
  std::vector<FusionChoice> fusions;
  TrainingStepMemory memory;          // the step's buffers, with and without the storage planner
};

// Runs polyc on every kernel of the step at `batch` positions (seconds: the analysis is
// exact).
TrainingStepReport report_training_step(const NetConfig& config, const NetShape& shape, int batch);

std::string format_training_step_text(const TrainingStepReport& report);
nlohmann::json training_step_json(const TrainingStepReport& report);

}  // namespace pz::nn
