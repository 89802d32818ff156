// A network's parameters without LibTorch: named float tensors, the names and shapes being
// those of the torch module's parameters and batch-norm buffers ("tower.0.conv1.weight",
// "stem_bn.running_var"). What backends load and what the learner publishes to actors.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pz::nn {

struct WeightTensor {
  std::vector<std::int64_t> shape;
  std::vector<float> values;  // row-major
};

using NetWeights = std::map<std::string, WeightTensor>;

// The tensor `name`; throws std::runtime_error naming it when it is missing or its size is
// not `expected_size` (0: any).
const WeightTensor& weight(const NetWeights& weights, const std::string& name, std::size_t expected_size = 0);

// FNV-1a (util/fnv1a.h) over every tensor's name and its floats' bytes, in name order: the
// checksum of safetensors model files (model_file.h).
std::uint64_t weights_checksum(const NetWeights& weights);

// The number of trainable values: every tensor but the batch-norm running statistics.
std::int64_t parameter_count(const NetWeights& weights);

}  // namespace pz::nn
