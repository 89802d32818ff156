// Files that survive a kill: every write goes to a temporary name in the same directory,
// is flushed to disk, and is renamed over the target (rename is atomic within a file
// system), so a reader sees the old file or the new one, never half of one.
#pragma once

#include <functional>
#include <string>

namespace pz::util {

// Calls `write(tmp_path)` to produce the file, then fsyncs and renames it to `path`.
// On any exception the temporary is removed and the exception propagates.
void write_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write);
void write_text_atomically(const std::string& path, const std::string& text);

// Flushes a file or directory entry to disk (best effort: errors are ignored).
void sync_path(const std::string& path);

std::string read_text_file(const std::string& path);  // throws util::UsageError when unreadable

}  // namespace pz::util
