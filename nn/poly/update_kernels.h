// The optimiser's updates and the gradient clipping of the poly learner as kernels that polyc
// generates (optim::UpdateKernels: SGD with momentum, dampening and Nesterov, Adam and AdamW
// with AMSGrad, the 2-norm's squares and the clipping scale), each an element-wise sweep
// written as one loop nest in its plain form (nn/poly/layer_kernels.h's KernelWriter) and
// compiled with the training kernels' flags. optim::PlainOptimizer works out the step's
// coefficients and calls them, so both forms share one definition of the arithmetic.
#pragma once

#include <memory>
#include <string>

#include "optim/plain_optimizer.h"

namespace pz::nn {

// The kernels, compiled through the JIT (cached on disk: `cache_dir`, or
// poly::default_cache_dir() when empty) and loaded; the pointer keeps them loaded. Throws
// std::runtime_error when the C compiler fails.
std::shared_ptr<const optim::UpdateKernels> compile_update_kernels(const std::string& cache_dir = "");

}  // namespace pz::nn
