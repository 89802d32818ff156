#include "nn/checkpoint.h"

#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "games/registry.h"
#include "nn/files.h"
#include "util/error.h"
#include "util/fnv1a.h"

namespace pz::nn {

namespace {

constexpr const char* kMetaKey = "polyzero";
// Format 2 added the weights' checksum; format 1 files (without it) are still read.
constexpr int kFormat = 2;
constexpr int kOldestFormat = 1;



[[noreturn]] void unreadable(const std::string& path, const std::string& why) {
  throw util::UsageError("cannot read model checkpoint " + path + ": " + why);
}

void open_archive(const std::string& path, torch::serialize::InputArchive& archive) {
  if (const std::string problem = util::file_problem(path); !problem.empty()) unreadable(path, problem);
  try {
    archive.load_from(path);
  } catch (const std::exception&) {
    unreadable(path, "not a polyzero checkpoint, or truncated/corrupt");
  }
}

ModelInfo read_info(torch::serialize::InputArchive& archive, const std::string& path) {
  c10::IValue meta;
  try {
    if (!archive.try_read(kMetaKey, meta) || !meta.isString()) unreadable(path, "it has no polyzero description");
  } catch (const util::UsageError&) {
    throw;
  } catch (const std::exception&) {
    unreadable(path, "its description is corrupt");
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(meta.toStringRef());
  } catch (const std::exception&) {
    unreadable(path, "its description is not JSON");
  }
  return ModelInfo::from_json(j, path);
}

}  // namespace

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
    if (m.format < kOldestFormat || m.format > kFormat) {
      unreadable(path, "format " + std::to_string(m.format) + " (this build reads formats " +
                           std::to_string(kOldestFormat) + " to " + std::to_string(kFormat) + ")");
    }
    m.game = j.at("game").get<std::string>();
    m.network = parse_net_config(j.at("network"), "checkpoint network");
    m.step = j.at("step").get<std::int64_t>();
    m.created = j.value("created", "");
    m.version = j.value("version", "");
    m.run = j.value("run", "");
    m.parameters = j.value("parameters", std::int64_t{0});
    m.weights_checksum = j.value("weights_checksum", "");
    if (m.format >= 2 && m.weights_checksum.size() != 16) unreadable(path, "its weights checksum is missing");
  } catch (const util::UsageError&) {
    throw;
  } catch (const std::exception& e) {
    unreadable(path, std::string("its description is incomplete (") + e.what() + ")");
  }
  return m;
}

void save_model(const std::string& path, PolicyValueNetImpl& net, const ModelInfo& info) {
  if (!all_finite(net)) {
    throw std::runtime_error("refusing to write " + path + ": the network has non-finite weights (NaN or inf)");
  }
  ModelInfo m = info;
  m.format = kFormat;
  m.parameters = net.parameter_count();
  m.weights_checksum = util::hex64(weights_checksum(net));
  if (m.created.empty()) m.created = iso_time_now();
  if (m.version.empty()) m.version = polyzero_version();
  write_atomically(path, [&](const std::string& tmp) {
    torch::serialize::OutputArchive archive;
    archive.write(kMetaKey, c10::IValue(m.to_json().dump()));
    torch::serialize::OutputArchive weights;
    net.save(weights);
    archive.write("weights", weights);
    archive.save_to(tmp);
  });
}

ModelInfo read_model_info(const std::string& path) {
  torch::serialize::InputArchive archive;
  open_archive(path, archive);
  return read_info(archive, path);
}

LoadedModel load_model(const std::string& path) {
  torch::serialize::InputArchive archive;
  open_archive(path, archive);
  LoadedModel out;
  out.info = read_info(archive, path);
  try {
    out.game = games::make_game(out.info.game);
  } catch (const util::UsageError& e) {
    unreadable(path, "its game '" + out.info.game + "' is not available here (" + e.what() + ")");
  }
  out.net = make_network(out.info.network, out.game->info());
  try {
    torch::serialize::InputArchive weights;
    archive.read("weights", weights);
    out.net->load(weights);
  } catch (const std::exception&) {
    unreadable(path, "its weights are missing or do not fit its network config");
  }
  if (!out.info.weights_checksum.empty() && util::hex64(weights_checksum(*out.net)) != out.info.weights_checksum) {
    unreadable(path, "its weights do not match their checksum (the file is damaged)");
  }
  out.net->eval();
  return out;
}

LoadedModel load_model_for(const std::string& path, const games::Game& game) {
  LoadedModel m = load_model(path);
  if (m.game->spec().to_string() != game.spec().to_string()) {
    throw util::UsageError("model checkpoint " + path + " was trained for " + m.info.game + ", not for " +
                           game.spec().to_string());
  }
  return m;
}

std::string describe_model(const ModelInfo& info, const std::string& path) {
  std::ostringstream s;
  s << "model checkpoint: " << path << "\n"
    << "game: " << info.game << "\n"
    << "network: " << info.network.type << ", " << info.network.blocks << " blocks x " << info.network.channels
    << " channels, " << info.network.value_head << " value head (" << info.parameters << " parameters)\n"
    << "network config: " << info.network.to_json().dump() << "\n"
    << "step: " << info.step << "\n"
    << "created: " << info.created << " by polyzero " << info.version << "\n";
  if (!info.run.empty()) s << "run: " << info.run << "\n";
  return s.str();
}

}  // namespace pz::nn
