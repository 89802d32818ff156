// Model checkpoints as safetensors files (safetensors.h), readable without LibTorch: the
// tensors are the network's parameters and batch-norm statistics under their module names
// (weights.h), and the metadata key "polyzero" holds the description (model_info.h) as JSON
// text. There the description's weights_checksum is weights_checksum(NetWeights): FNV-1a over
// the tensors' names and float bytes in name order, so the file is checked without LibTorch.
// checkpoint.h reads and writes both this form and the LibTorch archive, by content and by
// the ".safetensors" extension; read_model_file reads either form into weights, so that
// everything that only plays a network (the model players, `info`) works without LibTorch.
#pragma once

#include <string>

#include "games/game.h"
#include "nn/model_info.h"
#include "nn/weights.h"

namespace pz::nn {

struct ModelFile {
  ModelInfo info;
  NetWeights weights;
};

// True when `path` names a file to write as safetensors (it ends in ".safetensors").
bool safetensors_path(const std::string& path);

// Writes atomically; sets info's format, checksum and parameter count (of `weights`), and its
// created/version fields when empty.
void write_safetensors_model(const std::string& path, ModelInfo info, const NetWeights& weights);

// Throws util::UsageError naming the file when it is not a safetensors file, has no polyzero
// description, or its tensors do not match the description's checksum.
ModelFile read_safetensors_model(const std::string& path);

// What reads a LibTorch archive checkpoint into weights; a build with LibTorch installs one
// (nn/libtorch.h).
using ArchiveModelReader = ModelFile (*)(const std::string& path);
void set_archive_model_reader(ArchiveModelReader reader);

// A checkpoint of either form, by content: a safetensors file here, a LibTorch archive
// through the installed reader. Throws util::UsageError naming the file when it is missing,
// damaged, not a checkpoint, or an archive and no reader is installed (the message says
// how to convert it: `polyzero export` in a build with LibTorch).
ModelFile read_model_file(const std::string& path);

// A checkpoint of `game` (the same network spec: canonical game and options that shape the
// network), by content as read_model_file; throws util::UsageError naming both games when it
// was trained for another.
ModelFile read_model_file_for(const std::string& path, const games::Game& game);

// What writes a LibTorch archive checkpoint from weights; a build with LibTorch installs one.
using ArchiveModelWriter = void (*)(const std::string& path, const ModelInfo& info, const NetWeights& weights);
void set_archive_model_writer(ArchiveModelWriter writer);

// The form of a new training run's model files: ".pt" (a LibTorch archive, as runs have
// always written) where an archive writer is installed, else ".safetensors".
std::string default_model_extension();

// Writes `weights` atomically in the form the path names: safetensors for ".safetensors", a
// LibTorch archive through the installed writer otherwise (util::UsageError without one).
// Refuses non-finite weights (std::runtime_error): a model file always plays.
void write_model_file(const std::string& path, const ModelInfo& info, const NetWeights& weights);

}  // namespace pz::nn
