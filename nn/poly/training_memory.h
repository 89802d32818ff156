// The memory of the poly learner's step: every buffer its kernels use (nn/poly/training_plan.h:
// each layer's output, the gradients it passes back, its workspaces), with the live range
// the step gives it, and their placement by the compiler's storage planner
// (polyhedral/transform/storage_plan.h), for `polyc --report-net`.
//
// The step runs the layers' forward kernels in order, then their gradient kernels in
// reverse: with L layers, layer i's forward is step i and its backward step 2L − 1 − i. A
// layer's output lives until the last forward that reads it, or until the backward of a
// layer whose autograd function keeps it (its own, or a reader that keeps its input); the
// gradient a layer passes to one of its inputs lives from that layer's backward to the
// input's. The parameters' gradients are not counted: autograd accumulates them into
// `.grad` tensors that outlive the step.
#pragma once

#include <cstddef>
#include <vector>

#include "nn/poly/training_plan.h"
#include "polyhedral/transform/storage_plan.h"

namespace pz::nn {

struct TrainingStepMemory {
  std::vector<poly::BufferLifetime> buffers;  // elements: floats at the batch asked
  std::size_t unshared_bytes = 0;             // every buffer its own memory
  std::size_t planned_bytes = 0;              // the storage planner's arena (place_buffers)
  std::size_t live_peak_bytes = 0;            // the most bytes alive at one step: what any reuse needs
  std::size_t kept_for_backward_bytes = 0;    // alive across the start of the backward pass
};

TrainingStepMemory training_step_memory(const TrainingPlan& plan, int batch);

}  // namespace pz::nn
