#include "nn/backend.h"

#include <atomic>
#include <iostream>
#include <stdexcept>

#include "nn/poly/backend.h"
#include "util/error.h"

namespace pz::nn {

namespace {

std::atomic<BackendFactory> torch_factory{nullptr};

BackendFactory torch_backend_or_throw() {
  if (const BackendFactory factory = torch_factory.load()) return factory;
  throw util::UsageError("the torch network backend needs LibTorch, and this polyzero was built without LibTorch (-DPZ_WITH_TORCH=OFF); "
                         "use the poly backend, or a build with LibTorch");
}

}  // namespace

void set_torch_backend_factory(BackendFactory factory) { torch_factory = factory; }

std::unique_ptr<Backend> make_backend(const BackendOptions& options, const NetConfig& config, const NetShape& shape) {
  if (options.name == "auto" || options.name.empty()) {
    try {
      return make_poly_backend(config, shape, options);
    } catch (const std::runtime_error& e) {
      if (!torch_factory.load()) throw;
      static std::atomic<bool> warned{false};
      if (!warned.exchange(true)) std::cerr << "warning: " << e.what() << "\nwarning: using the torch backend\n";
    }
    return torch_factory.load()(config, shape, options);
  }
  if (options.name == "poly") return make_poly_backend(config, shape, options);
  if (options.name == "torch") return torch_backend_or_throw()(config, shape, options);
  std::string valid;
  for (const auto& name : backend_names()) valid += (valid.empty() ? "" : ", ") + name;
  throw util::UsageError("unknown network backend '" + options.name + "' (valid: " + valid + ")");
}

}  // namespace pz::nn
