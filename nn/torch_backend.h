// The `torch` backend: LibTorch's modules (network.h) in inference mode.
#pragma once

#include <memory>

#include "nn/backend.h"

namespace pz::nn {

std::unique_ptr<Backend> make_torch_backend(const NetConfig& config, const NetShape& shape, const BackendOptions& options);

}  // namespace pz::nn
