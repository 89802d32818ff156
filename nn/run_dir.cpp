#include "nn/run_dir.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "nn/files.h"
#include "util/error.h"

namespace pz::nn {

namespace fs = std::filesystem;

namespace {

std::string step_name(std::int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "step-%08lld", static_cast<long long>(step));
  return buf;
}

}  // namespace

std::string RunDir::checkpoint_dir(std::int64_t step) const { return checkpoints_dir() + "/" + step_name(step); }
std::string RunDir::model_path(std::int64_t step) const { return models_dir() + "/" + step_name(step) + ".pt"; }

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

std::vector<std::int64_t> RunDir::checkpoint_steps() const {
  std::vector<std::int64_t> steps;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(checkpoints_dir(), ec)) {
    const std::string name = entry.path().filename().string();
    long long step = 0;
    char tail = 0;
    if (entry.is_directory() && std::sscanf(name.c_str(), "step-%lld%c", &step, &tail) == 1) steps.push_back(step);
  }
  std::sort(steps.begin(), steps.end());
  return steps;
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
