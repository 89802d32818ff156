#include "nn/checkpoint.h"

#include <torch/torch.h>

#include <cstdio>
#include <filesystem>

#include "games/registry.h"
#include "nn/files.h"
#include "nn/model_file.h"
#include "nn/safetensors.h"
#include "util/error.h"
#include "util/fnv1a.h"

namespace pz::nn {

namespace {

constexpr const char* kMetaKey = "polyzero";

void open_archive(const std::string& path, torch::serialize::InputArchive& archive) {
  if (const std::string problem = util::file_problem(path); !problem.empty()) checkpoint_unreadable(path, problem);
  try {
    archive.load_from(path);
  } catch (const std::exception&) {
    checkpoint_unreadable(path, "not a polyzero checkpoint, or truncated/corrupt");
  }
}

ModelInfo read_info(torch::serialize::InputArchive& archive, const std::string& path) {
  c10::IValue meta;
  try {
    if (!archive.try_read(kMetaKey, meta) || !meta.isString()) checkpoint_unreadable(path, "it has no polyzero description");
  } catch (const util::UsageError&) {
    throw;
  } catch (const std::exception&) {
    checkpoint_unreadable(path, "its description is corrupt");
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(meta.toStringRef());
  } catch (const std::exception&) {
    checkpoint_unreadable(path, "its description is not JSON");
  }
  return ModelInfo::from_json(j, path);
}

}  // namespace

void save_model(const std::string& path, PolicyValueNetImpl& net, const ModelInfo& info) {
  if (!all_finite(net)) {
    throw std::runtime_error("refusing to write " + path + ": the network has non-finite weights (NaN or inf)");
  }
  if (safetensors_path(path)) {
    write_safetensors_model(path, info, export_weights(net));
    return;
  }
  ModelInfo m = info;
  m.format = kModelFormat;
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

namespace {

std::shared_ptr<const games::Game> game_of(const ModelInfo& info, const std::string& path) {
  try {
    return games::make_game(info.game);
  } catch (const util::UsageError& e) {
    checkpoint_unreadable(path, "its game '" + info.game + "' is not available here (" + e.what() + ")");
  }
}

LoadedModel load_safetensors_model(const std::string& path) {
  ModelFile file = read_safetensors_model(path);
  LoadedModel out;
  out.info = std::move(file.info);
  out.game = game_of(out.info, path);
  out.net = make_network(out.info.network, out.game->info());
  try {
    import_weights(file.weights, *out.net);
  } catch (const std::exception& e) {
    checkpoint_unreadable(path, std::string("its weights do not fit its network config (") + e.what() + ")");
  }
  out.net->eval();
  return out;
}

}  // namespace

LoadedModel load_model(const std::string& path) {
  if (is_safetensors_file(path)) return load_safetensors_model(path);
  torch::serialize::InputArchive archive;
  open_archive(path, archive);
  LoadedModel out;
  out.info = read_info(archive, path);
  out.game = game_of(out.info, path);
  out.net = make_network(out.info.network, out.game->info());
  try {
    torch::serialize::InputArchive weights;
    archive.read("weights", weights);
    out.net->load(weights);
  } catch (const std::exception&) {
    checkpoint_unreadable(path, "its weights are missing or do not fit its network config");
  }
  if (!out.info.weights_checksum.empty() && util::hex64(weights_checksum(*out.net)) != out.info.weights_checksum) {
    checkpoint_unreadable(path, "its weights do not match their checksum (the file is damaged)");
  }
  out.net->eval();
  return out;
}

LoadedModel load_model_for(const std::string& path, const games::Game& game) {
  LoadedModel m = load_model(path);
  if (m.game->network_spec().to_string() != game.network_spec().to_string()) {
    throw util::UsageError("model checkpoint " + path + " was trained for " + m.info.game + ", not for " +
                           game.spec().to_string());
  }
  return m;
}

}  // namespace pz::nn
