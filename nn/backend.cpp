#include "nn/backend.h"

namespace pz::nn {

std::vector<std::string> backend_names() { return {"torch", "poly"}; }

}  // namespace pz::nn
