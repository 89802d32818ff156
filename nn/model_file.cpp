#include "nn/model_file.h"

#include <atomic>
#include <cmath>
#include <fstream>
#include <string_view>

#include "games/registry.h"
#include "nn/files.h"
#include "nn/safetensors.h"
#include "util/error.h"
#include "util/files.h"
#include "util/fnv1a.h"

namespace pz::nn {

namespace {

constexpr const char* kDescriptionKey = "polyzero";

std::atomic<ArchiveModelReader> archive_reader{nullptr};
std::atomic<ArchiveModelWriter> archive_writer{nullptr};

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
  info.parameters = parameter_count(weights);
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

void set_archive_model_writer(ArchiveModelWriter writer) { archive_writer = writer; }

std::string default_model_extension() { return archive_writer.load() ? ".pt" : ".safetensors"; }

void write_model_file(const std::string& path, const ModelInfo& info, const NetWeights& weights) {
  for (const auto& [name, tensor] : weights) {
    for (float x : tensor.values) {
      if (!std::isfinite(x)) {
        throw std::runtime_error("refusing to write " + path + ": the network has non-finite weights (NaN or inf in " +
                                 name + ")");
      }
    }
  }
  if (safetensors_path(path)) return write_safetensors_model(path, info, weights);
  const ArchiveModelWriter writer = archive_writer.load();
  if (writer == nullptr) {
    throw util::UsageError("cannot write " + path + ": a LibTorch archive needs a build with LibTorch; name the file "
                           "*.safetensors");
  }
  writer(path, info, weights);
}

ModelFile read_model_file_for(const std::string& path, const games::Game& game) {
  ModelFile file = read_model_file(path);
  std::shared_ptr<const games::Game> trained_for;
  try {
    trained_for = games::make_game(file.info.game);
  } catch (const util::UsageError& e) {
    checkpoint_unreadable(path, "its game '" + file.info.game + "' is not available here (" + e.what() + ")");
  }
  if (trained_for->network_spec().to_string() != game.network_spec().to_string()) {
    throw util::UsageError("model checkpoint " + path + " was trained for " + file.info.game + ", not for " +
                           game.spec().to_string());
  }
  return file;
}

}  // namespace pz::nn
