#include "util/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "util/error.h"

namespace pz::util {

void sync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

void write_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write) {
  namespace fs = std::filesystem;
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  try {
    write(tmp);
    sync_path(tmp);
    fs::rename(tmp, path);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
  const fs::path parent = fs::path(path).parent_path();
  sync_path(parent.empty() ? "." : parent.string());
}

void write_text_atomically(const std::string& path, const std::string& text) {
  write_atomically(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp);
  });
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw util::UsageError("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace pz::util
