#include "nn/backend.h"

#include <atomic>
#include <iostream>
#include <utility>

#include "nn/poly_backend.h"
#include "nn/torch_backend.h"
#include "util/error.h"

namespace pz::nn {

namespace {

using Factory = std::unique_ptr<Backend> (*)(const NetConfig&, const NetShape&, const BackendOptions&);

// One factory per name of backend_names(), in that order.
const std::vector<std::pair<std::string, Factory>>& registry() {
  static const std::vector<std::pair<std::string, Factory>> backends = {
      {"torch", make_torch_backend},
      {"poly", make_poly_backend},
  };
  return backends;
}

}  // namespace

std::unique_ptr<Backend> make_backend(const BackendOptions& options, const NetConfig& config, const NetShape& shape) {
  if (options.name == "auto" || options.name.empty()) {
    try {
      return make_poly_backend(config, shape, options);
    } catch (const std::runtime_error& e) {
      static std::atomic<bool> warned{false};
      if (!warned.exchange(true)) std::cerr << "warning: " << e.what() << "\nwarning: using the torch backend\n";
    }
    return make_torch_backend(config, shape, options);
  }
  for (const auto& [name, factory] : registry())
    if (name == options.name) return factory(config, shape, options);
  std::string valid;
  for (const auto& name : backend_names()) valid += (valid.empty() ? "" : ", ") + name;
  throw util::UsageError("unknown network backend '" + options.name + "' (valid: " + valid + ")");
}

}  // namespace pz::nn
