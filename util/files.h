// Files that survive a kill: every write goes to a temporary name in the same directory,
// is flushed to disk, and is renamed over the target (rename is atomic within a file
// system), so a reader sees the old file or the new one, never half of one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace pz::util {

// Calls `write(tmp_path)` to produce the file, then fsyncs and renames it to `path`.
// On any exception the temporary is removed and the exception propagates.
void write_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write);
void write_text_atomically(const std::string& path, const std::string& text);

// Flushes a file or directory entry to disk (best effort: errors are ignored).
void sync_path(const std::string& path);

// Why `path` cannot be read as a file, for an error message ("no such file", "a directory,
// not a file", "not a regular file"); empty when it is a regular file.
std::string file_problem(const std::string& path);

// Text files the program reads whole (configs, sources, run state) are at most this large by
// default: a bigger one is refused before it is read, so memory stays bounded.
inline constexpr std::uint64_t kMaxTextFileBytes = std::uint64_t{64} << 20;

// Throws util::UsageError saying whether the file is missing, a directory, unreadable or
// larger than `max_bytes`.
std::string read_text_file(const std::string& path, std::uint64_t max_bytes = kMaxTextFileBytes);

// A file's size and FNV-1a checksum (fnv1a.h), read in one pass. Throws util::UsageError
// like read_text_file.
struct FileDigest {
  std::uint64_t size = 0;
  std::uint64_t checksum = 0;
  bool operator==(const FileDigest&) const = default;
};
FileDigest digest_file(const std::string& path);

}  // namespace pz::util
