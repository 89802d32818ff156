#include "nn/run_dir.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "nn/files.h"
#include "util/error.h"
#include "util/fnv1a.h"

namespace pz::nn {

namespace fs = std::filesystem;

namespace {

std::string step_name(std::int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "step-%08lld", static_cast<long long>(step));
  return buf;
}

}  // namespace

RunDir::RunDir(std::string root) : root_(std::move(root)), model_extension_(".pt") {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(models_dir(), ec)) {
    if (entry.path().extension() == ".safetensors") model_extension_ = ".safetensors";
  }
  const auto steps = checkpoint_steps();
  if (!steps.empty() && fs::exists(checkpoint_dir(steps.back()) + "/model.safetensors", ec)) {
    model_extension_ = ".safetensors";
  }
}

std::string RunDir::checkpoint_dir(std::int64_t step) const { return checkpoints_dir() + "/" + step_name(step); }
std::string RunDir::model_path(std::int64_t step) const {
  return models_dir() + "/" + step_name(step) + model_extension_;
}

void RunDir::create_new() const {
  std::error_code ec;
  if (fs::exists(config_path(), ec)) {
    throw util::UsageError("run directory " + root_ + " already holds a run; continue it with --resume " + root_ +
                           " or choose another --run-dir");
  }
  for (const auto& d : {root_, checkpoints_dir(), models_dir(), plots_dir()}) {
    fs::create_directories(d, ec);
    if (ec) throw util::UsageError("cannot create " + d + ": " + ec.message());
  }
}

void RunDir::open_existing() const {
  std::error_code ec;
  if (!fs::is_directory(root_, ec)) throw util::UsageError("--resume " + root_ + ": no such directory");
  if (!fs::exists(config_path(), ec)) {
    throw util::UsageError("--resume " + root_ + ": not a training run (no config.json)");
  }
  for (const auto& d : {checkpoints_dir(), models_dir(), plots_dir()}) fs::create_directories(d, ec);
  // Debris of writes a kill interrupted: temporary checkpoint directories and files.
  for (const auto& d : {checkpoints_dir(), models_dir(), root_}) {
    for (const auto& entry : fs::directory_iterator(d, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.find(".tmp-") != std::string::npos) fs::remove_all(entry.path(), ec);
    }
  }
}

namespace {

constexpr const char* kManifest = "manifest.json";

// Steps of the entries of `dir` named step-N`suffix` (directories when `suffix` is empty).
std::vector<std::int64_t> steps_in(const std::string& dir, const std::string& suffix) {
  std::vector<std::int64_t> steps;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    long long step = 0;
    int used = 0;
    if (std::sscanf(name.c_str(), "step-%lld%n", &step, &used) != 1) continue;
    if (name.substr(static_cast<std::size_t>(used)) != suffix) continue;
    if (entry.is_directory() == suffix.empty()) steps.push_back(step);
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}



}  // namespace

std::vector<std::int64_t> RunDir::checkpoint_steps() const { return steps_in(checkpoints_dir(), ""); }
std::vector<std::int64_t> RunDir::model_steps() const { return steps_in(models_dir(), model_extension_); }

bool RunDir::has_trained() const {
  std::error_code ec;
  if (fs::exists(latest_model_path(), ec)) return true;
  const auto models = model_steps();
  if (!models.empty() && models.back() > 0) return true;
  for (const auto& entry : fs::directory_iterator(checkpoints_dir(), ec)) {
    if (entry.path().filename().string().rfind("damaged-step-", 0) == 0) return true;
  }
  std::ifstream in(metrics_path());
  for (std::string line; std::getline(in, line);) {
    try {
      const auto j = nlohmann::json::parse(line);
      if (j.is_object() && j.value("step", std::int64_t{0}) > 0) return true;
    } catch (const nlohmann::json::exception&) {
      // a torn or damaged line says nothing either way
    }
  }
  return false;
}

void RunDir::write_manifest(const std::string& dir) {
  nlohmann::json files = nlohmann::json::object();
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name != kManifest) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    const util::FileDigest d = util::digest_file(dir + "/" + name);
    files[name] = {{"bytes", d.size}, {"fnv1a", util::hex64(d.checksum)}};
  }
  write_text_atomically(dir + "/" + kManifest, nlohmann::json({{"files", files}}).dump(2) + "\n");
}

void RunDir::verify_manifest(const std::string& dir) {
  nlohmann::json files;
  try {
    files = nlohmann::json::parse(read_text_file(dir + "/" + kManifest)).at("files");
  } catch (const util::UsageError&) {
    throw util::UsageError(std::string(kManifest) + " is missing");
  } catch (const std::exception&) {
    throw util::UsageError(std::string(kManifest) + " is corrupt");
  }
  for (const auto& [name, expected] : files.items()) {
    util::FileDigest d;
    try {
      d = util::digest_file(dir + "/" + name);
    } catch (const util::UsageError&) {
      throw util::UsageError(name + " is missing");
    }
    if (d.size != expected.value("bytes", std::uint64_t{0})) {
      throw util::UsageError(name + " has " + std::to_string(d.size) + " bytes, its manifest says " +
                             expected.value("bytes", nlohmann::json()).dump());
    }
    if (util::hex64(d.checksum) != expected.value("fnv1a", "")) throw util::UsageError(name + " does not match its checksum");
  }
}

void RunDir::set_aside_damaged(std::int64_t step) const {
  const std::string damaged = checkpoints_dir() + "/damaged-" + step_name(step);
  std::error_code ec;
  fs::remove_all(damaged, ec);
  fs::rename(checkpoint_dir(step), damaged, ec);
  if (ec) fs::remove_all(checkpoint_dir(step), ec);
}

void RunDir::prune_checkpoints(int keep) const {
  const auto steps = checkpoint_steps();
  for (std::size_t i = 0; i + static_cast<std::size_t>(keep) < steps.size(); ++i) {
    std::error_code ec;
    fs::remove_all(checkpoint_dir(steps[i]), ec);
  }
}

void RunDir::truncate_metrics_after(std::int64_t step) const {
  std::ifstream in(metrics_path());
  if (!in) return;
  std::string kept, line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a last line without its newline was torn by a kill
    try {
      const auto j = nlohmann::json::parse(line);
      if (j.value("step", std::int64_t{0}) > step) continue;
    } catch (const std::exception&) {
      continue;
    }
    kept += line + "\n";
  }
  write_text_atomically(metrics_path(), kept);
}

}  // namespace pz::nn
