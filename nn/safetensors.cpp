#include "nn/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "util/error.h"
#include "util/files.h"

namespace pz::nn {

namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;  // the format's own limit
constexpr const char* kMetadataKey = "__metadata__";

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

std::uint64_t get_u64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::uint32_t get_u32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 | static_cast<std::uint32_t>(p[2]) << 16 |
         static_cast<std::uint32_t>(p[3]) << 24;
}

float bits_to_float(std::uint32_t bits) { return std::bit_cast<float>(bits); }

// IEEE 754 binary16 to binary32, subnormals, infinities and NaNs included.
float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  if (exponent == 0x1F) return bits_to_float(sign | 0x7F800000 | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0) return bits_to_float(sign);
    // Subnormal: normalise the mantissa.
    int shift = 0;
    while ((mantissa & 0x400) == 0) mantissa <<= 1, ++shift;
    mantissa &= 0x3FF;
    exponent = static_cast<std::uint32_t>(1 - shift);
  }
  return bits_to_float(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

struct Dtype {
  const char* name;
  std::size_t bytes;
};
constexpr Dtype kDtypes[] = {{"F32", 4}, {"F64", 8}, {"F16", 2}, {"BF16", 2}};

const Dtype* find_dtype(const std::string& name) {
  for (const Dtype& d : kDtypes)
    if (name == d.name) return &d;
  return nullptr;
}

float read_element(const Dtype& d, const unsigned char* p) {
  const std::string name = d.name;
  if (name == "F32") return bits_to_float(get_u32(p));
  if (name == "F64") return static_cast<float>(std::bit_cast<double>(get_u64(p)));
  if (name == "F16") return half_to_float(static_cast<std::uint16_t>(p[0] | p[1] << 8));
  return bits_to_float(static_cast<std::uint32_t>(p[0] | p[1] << 8) << 16);  // BF16
}

// One tensor's entry of the header, checked.
struct Entry {
  std::string name;
  const Dtype* dtype = nullptr;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;
};

struct Refusal {
  const std::string& path;
  [[noreturn]] void operator()(const std::string& why) const {
    throw util::UsageError("cannot read safetensors file " + path + ": " + why);
  }
};

Entry parse_entry(const std::string& name, const json& j, std::uint64_t data_bytes, const Refusal& refuse) {
  const std::string where = "tensor \"" + name + "\"";
  if (!j.is_object() || !j.contains("dtype") || !j.contains("shape") || !j.contains("data_offsets"))
    refuse(where + " needs dtype, shape and data_offsets");
  Entry e;
  e.name = name;
  if (!j["dtype"].is_string()) refuse(where + ": dtype must be a string");
  e.dtype = find_dtype(j["dtype"].get<std::string>());
  if (!e.dtype) refuse(where + " has dtype " + j["dtype"].dump() + "; readable are F32, F64, F16, BF16");
  if (!j["shape"].is_array()) refuse(where + ": shape must be an array of sizes");
  std::uint64_t count = 1;
  for (const json& d : j["shape"]) {
    if (!d.is_number_unsigned()) refuse(where + ": shape must be an array of sizes, got " + j["shape"].dump());
    const auto size = d.get<std::uint64_t>();
    if (size != 0 && count > data_bytes / size) count = data_bytes + 1;  // larger than any file: caught below
    else count *= size;
    e.shape.push_back(static_cast<std::int64_t>(std::min<std::uint64_t>(size, INT64_MAX)));
  }
  const json& offsets = j["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
    refuse(where + ": data_offsets must be [begin, end]");
  e.begin = offsets[0].get<std::uint64_t>();
  e.end = offsets[1].get<std::uint64_t>();
  if (e.begin > e.end || e.end > data_bytes)
    refuse(where + "'s data_offsets " + offsets.dump() + " are outside the " + std::to_string(data_bytes) + " bytes of data");
  if (count > data_bytes || count * e.dtype->bytes != e.end - e.begin)
    refuse(where + ": shape " + j["shape"].dump() + " of " + e.dtype->name + " does not fill data_offsets " + offsets.dump());
  return e;
}

}  // namespace

void write_safetensors(const std::string& path, const Safetensors& file) {
  json header = json::object();
  std::uint64_t offset = 0;
  for (const auto& [name, t] : file.tensors) {
    std::uint64_t count = 1;
    for (const std::int64_t d : t.shape) count *= static_cast<std::uint64_t>(d);
    if (count != t.values.size()) throw std::invalid_argument("safetensors: tensor " + name + "'s shape does not match its values");
    header[name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + 4 * count}}};
    offset += 4 * count;
  }
  if (!file.metadata.empty()) header[kMetadataKey] = file.metadata;
  std::string text = header.dump();
  text.append((8 - (8 + text.size()) % 8) % 8, ' ');
  std::string bytes;
  put_u64(bytes, text.size());
  bytes += text;
  bytes.reserve(bytes.size() + offset);
  for (const auto& [name, t] : file.tensors) {
    for (const float v : t.values) {
      const auto bits = std::bit_cast<std::uint32_t>(v);
      for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
    }
  }
  util::write_atomically(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp);
  });
}

bool is_safetensors_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char head[9];
  if (!in.read(reinterpret_cast<char*>(head), sizeof head)) return false;
  std::error_code error;
  const std::uint64_t size = std::filesystem::file_size(path, error);
  const std::uint64_t header = get_u64(head);
  return !error && header >= 2 && header <= kMaxHeaderBytes && header <= size - 8 && head[8] == '{';
}

Safetensors read_safetensors(const std::string& path) {
  const Refusal refuse{path};
  if (const std::string problem = util::file_problem(path); !problem.empty()) refuse(problem);
  std::error_code error;
  const std::uint64_t size = std::filesystem::file_size(path, error);
  if (error) refuse(error.message());
  std::ifstream in(path, std::ios::binary);
  unsigned char head[8];
  if (size < 8 || !in.read(reinterpret_cast<char*>(head), 8)) refuse("shorter than its 8-byte header length");
  const std::uint64_t header_bytes = get_u64(head);
  if (header_bytes > kMaxHeaderBytes || header_bytes > size - 8)
    refuse("its header length " + std::to_string(header_bytes) + " exceeds the file (" + std::to_string(size) +
           " bytes) or the format's 100 MB");
  std::string text(header_bytes, '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(header_bytes))) refuse("truncated header");
  json header;
  try {
    header = json::parse(text);
  } catch (const json::exception& e) {
    refuse(std::string("its header is not JSON (") + e.what() + ")");
  }
  if (!header.is_object()) refuse("its header is not a JSON object");
  const std::uint64_t data_bytes = size - 8 - header_bytes;

  Safetensors out;
  std::vector<Entry> entries;
  for (const auto& [key, value] : header.items()) {
    if (key == kMetadataKey) {
      if (!value.is_object()) refuse("__metadata__ must map strings to strings");
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string()) refuse("__metadata__ must map strings to strings (\"" + k + "\" is " + v.dump() + ")");
        out.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    entries.push_back(parse_entry(key, value, data_bytes, refuse));
  }
  // The tensors tile the data exactly.
  std::vector<const Entry*> order;
  for (const Entry& e : entries) order.push_back(&e);
  std::sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) { return a->begin < b->begin || (a->begin == b->begin && a->end < b->end); });
  std::uint64_t covered = 0;
  for (const Entry* e : order) {
    if (e->begin != covered)
      refuse("tensor \"" + e->name + "\" starts at byte " + std::to_string(e->begin) + " of the data, where " +
             std::to_string(covered) + " was expected (a hole or an overlap)");
    covered = e->end;
  }
  if (covered != data_bytes)
    refuse("the tensors cover " + std::to_string(covered) + " of the " + std::to_string(data_bytes) + " bytes of data");

  std::vector<unsigned char> data(data_bytes);
  if (!in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data_bytes))) refuse("truncated data");
  for (const Entry& e : entries) {
    WeightTensor t;
    t.shape = e.shape;
    const std::size_t count = (e.end - e.begin) / e.dtype->bytes;
    t.values.resize(count);
    for (std::size_t i = 0; i < count; ++i) t.values[i] = read_element(*e.dtype, &data[e.begin + i * e.dtype->bytes]);
    out.tensors.emplace(e.name, std::move(t));
  }
  return out;
}

}  // namespace pz::nn
