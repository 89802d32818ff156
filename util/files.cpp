#include "util/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "util/error.h"
#include "util/fnv1a.h"

namespace pz::util {

void sync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

void write_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write) {
  namespace fs = std::filesystem;
  // The rename would replace whatever the path is: only a regular file is written over.
  std::error_code ec;
  const auto existing = fs::symlink_status(path, ec);
  if (fs::is_symlink(existing)) {
    throw UsageError(path + ": a symbolic link; give the path of the file itself (it is replaced, not followed)");
  }
  if (fs::exists(existing) && !fs::is_regular_file(existing)) {
    throw UsageError(path + ": " + (fs::is_directory(existing) ? "a directory" : "not a regular file") +
                     "; outputs are written only to new or regular files");
  }
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

std::string file_problem(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) return "no such file";
  if (std::filesystem::is_directory(status)) return "a directory, not a file";
  if (!std::filesystem::is_regular_file(status)) return "not a regular file";
  return "";
}

namespace {

std::ifstream open_for_reading(const std::string& path) {
  if (const std::string problem = file_problem(path); !problem.empty()) throw util::UsageError(path + ": " + problem);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw util::UsageError("cannot read " + path + " (permission denied?)");
  return in;
}

}  // namespace

std::string read_text_file(const std::string& path, std::uint64_t max_bytes) {
  std::ifstream in = open_for_reading(path);
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > max_bytes) {
    throw util::UsageError(path + " is " + std::to_string(size >> 20) + " MiB; at most " + std::to_string(max_bytes >> 20) +
                           " MiB are accepted");
  }
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw util::UsageError("cannot read " + path);
  return s.str();
}

FileDigest digest_file(const std::string& path) {
  std::ifstream in = open_for_reading(path);
  FileDigest d;
  d.checksum = kFnv1aOffsetBasis;
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    d.checksum = fnv1a(buffer.data(), n, d.checksum);
    d.size += n;
  }
  if (in.bad()) throw util::UsageError("cannot read " + path);
  return d;
}

}  // namespace pz::util
