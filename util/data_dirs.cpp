#include "util/data_dirs.h"

#include <cstdlib>
#include <filesystem>

#include "util/error.h"

namespace pz::util {

namespace fs = std::filesystem;

std::vector<std::string> data_dir_candidates(const DataDir& dir) {
  if (const char* env = std::getenv(dir.env.c_str()); env && *env) return {env};
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path base = exe.parent_path();
    for (int up = 0; up < 3 && !base.empty(); ++up, base = base.parent_path()) {
      out.push_back((base / "share" / "polyzero" / dir.installed).string());
      out.push_back((base / dir.source).string());
      if (base == base.root_path()) break;
    }
  }
  out.push_back(dir.source);
  return out;
}

std::optional<std::string> find_data_dir(const DataDir& dir) {
  std::error_code ec;
  for (const auto& candidate : data_dir_candidates(dir)) {
    const fs::path p(candidate);
    if (!fs::is_directory(p, ec)) continue;
    if (dir.probe.empty() || fs::exists(p / dir.probe, ec)) return candidate;
  }
  return std::nullopt;
}

std::string require_data_dir(const DataDir& dir, const std::string& what) {
  if (auto found = find_data_dir(dir)) return *found;
  std::string looked;
  for (const auto& c : data_dir_candidates(dir)) looked += "\n  " + c;
  throw UsageError("cannot find " + what + (dir.probe.empty() ? "" : " (a directory holding " + dir.probe + ")") +
                   "; looked in:" + looked + "\nset " + dir.env + " to the directory");
}

}  // namespace pz::util
