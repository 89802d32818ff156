// Files that survive a kill: every write goes to a temporary name in the same directory,
// is flushed to disk, and is renamed over the target (rename is atomic within a file
// system), so a reader sees the old file or the new one, never half of one.
#pragma once

#include <functional>
#include <string>

namespace pz::nn {

// Calls `write(tmp_path)` to produce the file, then fsyncs and renames it to `path`.
// On any exception the temporary is removed and the exception propagates.
void write_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write);
void write_text_atomically(const std::string& path, const std::string& text);

// Flushes a file or directory entry to disk (best effort: errors are ignored).
void sync_path(const std::string& path);

std::string read_text_file(const std::string& path);  // throws util::UsageError when unreadable

// The version written into checkpoints ("0.1.0").
const char* polyzero_version();
// Local time as ISO 8601 ("2024-05-01T12:34:56+0200").
std::string iso_time_now();

}  // namespace pz::nn
