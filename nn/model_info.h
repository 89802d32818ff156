// What a model checkpoint says about itself (checkpoint.h has the file format). Torch-free,
// so commands that only describe checkpoints (`polyzero info`) compile without LibTorch.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "nn/net_config.h"

namespace pz::nn {

// Format 2 added the weights' checksum; format 1 files (without it) are still read.
constexpr int kModelFormat = 2;
constexpr int kOldestModelFormat = 1;

struct ModelInfo {
  int format = kModelFormat;
  // FNV-1a of the weights (network.h weights_checksum), 16 hex digits; format 2 on. A file
  // whose weights do not match it is refused on load.
  std::string weights_checksum;
  std::string game;       // canonical spec, e.g. "connect4:height=6,width=7"
  NetConfig network;
  std::int64_t step = 0;  // learner steps behind these weights
  std::string created;    // ISO 8601 local time
  std::string version;    // polyzero version that wrote it
  std::string run;        // run directory, if any
  std::int64_t parameters = 0;

  nlohmann::json to_json() const;
  static ModelInfo from_json(const nlohmann::json& j, const std::string& path);
};

// Throws util::UsageError "cannot read model checkpoint PATH: WHY".
[[noreturn]] void checkpoint_unreadable(const std::string& path, const std::string& why);

// The description of a checkpoint of either form (model_file.h read_model_file), once the
// weights it describes are read and match its checksum. Throws util::UsageError when the file is missing, not a checkpoint, corrupt or
// damaged.
ModelInfo read_model_info(const std::string& path);

// A few lines for `polyzero info CHECKPOINT`.
std::string describe_model(const ModelInfo& info, const std::string& path);

}  // namespace pz::nn
