// Files of training runs: the atomic writes of util/files.h, and what checkpoints record
// about when and by which version they were written.
#pragma once

#include <string>

#include "util/files.h"

namespace pz::nn {

using util::read_text_file;
using util::sync_path;
using util::write_atomically;
using util::write_text_atomically;

// The version written into checkpoints ("0.1.0").
const char* polyzero_version();
// Local time as ISO 8601 ("2024-05-01T12:34:56+0200").
std::string iso_time_now();

}  // namespace pz::nn
