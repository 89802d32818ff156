#include "nn/model_file.h"

#include <atomic>
#include <fstream>
#include <string_view>

#include "nn/files.h"
#include "nn/safetensors.h"
#include "util/error.h"
#include "util/files.h"
#include "util/fnv1a.h"

namespace pz::nn {

namespace {

constexpr const char* kDescriptionKey = "polyzero";

std::atomic<ArchiveModelReader> archive_reader{nullptr};

// LibTorch archives are zip files: they start with a local file header, "PK\3\4".
bool is_zip_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[4] = {};
  return in.read(head, sizeof head) && std::string_view(head, 4) == std::string_view("PK\3\4", 4);
}

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

void set_archive_model_reader(ArchiveModelReader reader) { archive_reader = reader; }

ModelFile read_model_file(const std::string& path) {
  if (const std::string problem = util::file_problem(path); !problem.empty()) checkpoint_unreadable(path, problem);
  if (is_safetensors_file(path)) return read_safetensors_model(path);
  if (const ArchiveModelReader reader = archive_reader.load()) return reader(path);
  if (!is_zip_file(path)) checkpoint_unreadable(path, "not a polyzero checkpoint (neither safetensors nor a LibTorch archive)");
  checkpoint_unreadable(path, "it is not a safetensors model, and this polyzero was built without LibTorch, which "
                              "reads its other form (.pt); convert it with `polyzero export " + path +
                              " MODEL.safetensors` in a build with LibTorch");
}

ModelInfo read_model_info(const std::string& path) { return read_model_file(path).info; }

}  // namespace pz::nn
