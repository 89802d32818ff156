#include "nn/weights.h"

#include <stdexcept>

#include "util/fnv1a.h"

namespace pz::nn {

const WeightTensor& weight(const NetWeights& weights, const std::string& name, std::size_t expected_size) {
  auto it = weights.find(name);
  if (it == weights.end()) throw std::runtime_error("network weights: no tensor '" + name + "'");
  if (expected_size != 0 && it->second.values.size() != expected_size)
    throw std::runtime_error("network weights: '" + name + "' has " + std::to_string(it->second.values.size()) +
                             " values, expected " + std::to_string(expected_size));
  return it->second;
}

std::uint64_t weights_checksum(const NetWeights& weights) {
  std::uint64_t hash = util::kFnv1aOffsetBasis;
  for (const auto& [name, t] : weights) {
    hash = util::fnv1a(name, hash);
    hash = util::fnv1a(t.values.data(), t.values.size() * sizeof(float), hash);
  }
  return hash;
}

std::int64_t parameter_count(const NetWeights& weights) {
  std::int64_t n = 0;
  for (const auto& [name, t] : weights) {
    if (!name.ends_with(".running_mean") && !name.ends_with(".running_var")) n += static_cast<std::int64_t>(t.values.size());
  }
  return n;
}

}  // namespace pz::nn
