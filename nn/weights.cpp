#include "nn/weights.h"

#include <stdexcept>

namespace pz::nn {

const WeightTensor& weight(const NetWeights& weights, const std::string& name, std::size_t expected_size) {
  auto it = weights.find(name);
  if (it == weights.end()) throw std::runtime_error("network weights: no tensor '" + name + "'");
  if (expected_size != 0 && it->second.values.size() != expected_size)
    throw std::runtime_error("network weights: '" + name + "' has " + std::to_string(it->second.values.size()) +
                             " values, expected " + std::to_string(expected_size));
  return it->second;
}

}  // namespace pz::nn
