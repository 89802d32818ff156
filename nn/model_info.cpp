#include "nn/model_info.h"

#include <sstream>

#include "nn/safetensors.h"
#include "util/error.h"

namespace pz::nn {

void checkpoint_unreadable(const std::string& path, const std::string& why) {
  throw util::UsageError("cannot read model checkpoint " + path + ": " + why);
}

nlohmann::json ModelInfo::to_json() const {
  nlohmann::json j = {{"format", format},   {"game", game},       {"network", network.to_json()}, {"step", step},
                      {"created", created}, {"version", version}, {"run", run},                   {"parameters", parameters}};
  if (!weights_checksum.empty()) j["weights_checksum"] = weights_checksum;
  return j;
}

ModelInfo ModelInfo::from_json(const nlohmann::json& j, const std::string& path) {
  ModelInfo m;
  try {
    m.format = j.at("format").get<int>();
    if (m.format < kOldestModelFormat || m.format > kModelFormat) {
      checkpoint_unreadable(path, "format " + std::to_string(m.format) + " (this build reads formats " +
                           std::to_string(kOldestModelFormat) + " to " + std::to_string(kModelFormat) + ")");
    }
    m.game = j.at("game").get<std::string>();
    m.network = parse_net_config(j.at("network"), "checkpoint network");
    m.step = j.at("step").get<std::int64_t>();
    m.created = j.value("created", "");
    m.version = j.value("version", "");
    m.run = j.value("run", "");
    m.parameters = j.value("parameters", std::int64_t{0});
    m.weights_checksum = j.value("weights_checksum", "");
    if (m.format >= 2 && m.weights_checksum.size() != 16) checkpoint_unreadable(path, "its weights checksum is missing");
  } catch (const util::UsageError&) {
    throw;
  } catch (const std::exception& e) {
    checkpoint_unreadable(path, std::string("its description is incomplete (") + e.what() + ")");
  }
  return m;
}

std::string describe_model(const ModelInfo& info, const std::string& path) {
  std::ostringstream s;
  s << "model checkpoint: " << path << "\n"
    << "file: " << (is_safetensors_file(path) ? "safetensors (readable without LibTorch)" : "LibTorch archive") << "\n"
    << "game: " << info.game << "\n"
    << "network: " << info.network.type << ", " << info.network.blocks << " blocks x " << info.network.channels
    << " channels, " << info.network.describe_heads() << " (" << info.parameters << " parameters)\n"
    << "network config: " << info.network.to_json().dump() << "\n"
    << "step: " << info.step << "\n"
    << "created: " << info.created << " by polyzero " << info.version << "\n";
  if (!info.run.empty()) s << "run: " << info.run << "\n";
  return s.str();
}

}  // namespace pz::nn
