// safetensors: named tensors in one file that any framework reads without LibTorch
// (Hugging Face's format; PyTorch users open it with `safetensors.torch.load_file`).
//
//   8 bytes    N, the header's length, an unsigned little-endian integer
//   N bytes    a JSON object: for every tensor  "name": {"dtype": "F32", "shape": [d0, d1, ...],
//              "data_offsets": [begin, end]}, and optionally "__metadata__": {string: string};
//              it may end in spaces (padding)
//   the rest   the tensors' bytes, little-endian, row-major; tensor k occupies [begin, end) of
//              this buffer, and the tensors cover it exactly, without holes or overlaps
//
// Written here: F32 tensors in name order, the header padded so the data starts at a multiple
// of 8 bytes. Read: F32, and F64, F16 and BF16 converted to float (what other tools save).
// A file is refused with util::UsageError naming it and the defect (a header longer than the
// file or than 100 MB, JSON that is not the format's, a dtype it cannot convert, a shape
// whose size disagrees with its offsets, offsets outside the data or leaving a hole): never a
// crash, and no allocation larger than the file.
#pragma once

#include <map>
#include <string>

#include "nn/weights.h"

namespace pz::nn {

struct Safetensors {
  NetWeights tensors;
  std::map<std::string, std::string> metadata;  // "__metadata__"
};

// Writes atomically (util/files.h).
void write_safetensors(const std::string& path, const Safetensors& file);

Safetensors read_safetensors(const std::string& path);

// Whether the file starts the way a safetensors file does (a header length that fits the file,
// then '{'): how checkpoints tell this format from a LibTorch archive.
bool is_safetensors_file(const std::string& path);

}  // namespace pz::nn
