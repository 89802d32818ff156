#include "nn/backend.h"

namespace pz::nn {

std::vector<std::string> backend_names() { return {"auto", "torch", "poly"}; }

}  // namespace pz::nn
