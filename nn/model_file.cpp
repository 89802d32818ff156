#include "nn/model_file.h"

#include "nn/files.h"
#include "nn/safetensors.h"
#include "util/error.h"
#include "util/fnv1a.h"

namespace pz::nn {

namespace {

constexpr const char* kDescriptionKey = "polyzero";

}  // namespace

bool safetensors_path(const std::string& path) { return path.ends_with(".safetensors"); }

void write_safetensors_model(const std::string& path, ModelInfo info, const NetWeights& weights) {
  info.format = kModelFormat;
  info.weights_checksum = util::hex64(weights_checksum(weights));
  info.parameters = 0;
  for (const auto& [name, t] : weights)
    if (!name.ends_with(".running_mean") && !name.ends_with(".running_var")) info.parameters += static_cast<std::int64_t>(t.values.size());
  if (info.created.empty()) info.created = iso_time_now();
  if (info.version.empty()) info.version = polyzero_version();
  Safetensors file;
  file.tensors = weights;
  file.metadata[kDescriptionKey] = info.to_json().dump();
  write_safetensors(path, file);
}

ModelFile read_safetensors_model(const std::string& path) {
  Safetensors file = read_safetensors(path);
  const auto description = file.metadata.find(kDescriptionKey);
  if (description == file.metadata.end()) checkpoint_unreadable(path, "a safetensors file without a polyzero description");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(description->second);
  } catch (const std::exception&) {
    checkpoint_unreadable(path, "its description is not JSON");
  }
  ModelFile out{ModelInfo::from_json(j, path), std::move(file.tensors)};
  if (util::hex64(weights_checksum(out.weights)) != out.info.weights_checksum) {
    checkpoint_unreadable(path, "its weights do not match their checksum (the file is damaged)");
  }
  return out;
}

}  // namespace pz::nn
