#include "distributed/codec.h"

#include <zlib.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>

namespace pz::distributed {

namespace {

constexpr std::string_view kGameTag = "PZG1";
constexpr std::string_view kWeightsTag = "PZW1";

class Writer {
 public:
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void svarint(std::int64_t v) { varint((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63)); }
  void u8(bool b) { out_.push_back(b ? 1 : 0); }
  void fixed32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
  void fixed64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
  void f32(float f) { fixed32(std::bit_cast<std::uint32_t>(f)); }
  void f64(double d) { fixed64(std::bit_cast<std::uint64_t>(d)); }
  void str(std::string_view s) {
    varint(s.size());
    out_.append(s);
  }
  void floats(const std::vector<float>& values) {
    varint(values.size());
    if constexpr (std::endian::native == std::endian::little) {
      out_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
    } else {
      for (const float f : values) f32(f);
    }
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(std::string_view in, const char* what) : in_(in), what_(what) {}
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const auto b = static_cast<unsigned char>(byte());
      v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
    fail("a number is too long");
  }
  std::int64_t svarint() {
    const std::uint64_t u = varint();
    return static_cast<std::int64_t>((u >> 1) ^ (~(u & 1) + 1));
  }
  // A count of items that take at least `min_bytes` each: bounded by what is left.
  std::size_t count(std::size_t min_bytes = 1) {
    const std::uint64_t n = varint();
    if (n > (in_.size() - pos_) / std::max<std::size_t>(min_bytes, 1)) fail("a count exceeds the data");
    return static_cast<std::size_t>(n);
  }
  std::int32_t int32() {
    const std::int64_t v = svarint();
    if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max()) fail("a number is out of range");
    return static_cast<std::int32_t>(v);
  }
  bool flag() {
    const char b = byte();
    if (b != 0 && b != 1) fail("a flag is neither 0 nor 1");
    return b == 1;
  }
  std::uint32_t fixed32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(byte())) << (8 * i);
    return v;
  }
  std::uint64_t fixed64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(byte())) << (8 * i);
    return v;
  }
  float f32() { return std::bit_cast<float>(fixed32()); }
  double f64() { return std::bit_cast<double>(fixed64()); }
  std::string str() {
    const std::size_t n = count();
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  std::vector<float> floats() {
    const std::size_t n = count(sizeof(float));
    std::vector<float> values(n);
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(values.data(), in_.data() + pos_, n * sizeof(float));
      pos_ += n * sizeof(float);
    } else {
      for (auto& f : values) f = f32();
    }
    return values;
  }
  void expect_end() {
    if (pos_ != in_.size()) fail("there are bytes after the end");
  }

 private:
  char byte() {
    if (pos_ >= in_.size()) fail("it ends early");
    return in_[pos_++];
  }
  [[noreturn]] void fail(const std::string& why) { throw CodecError(std::string(what_) + ": " + why); }

  std::string_view in_;
  std::size_t pos_ = 0;
  const char* what_;
};

std::uint32_t crc(std::string_view data) {
  uLong c = crc32(0L, Z_NULL, 0);
  // crc32 takes uInt lengths: feed large payloads in pieces.
  std::size_t pos = 0;
  while (pos < data.size()) {
    const std::size_t n = std::min<std::size_t>(data.size() - pos, 1u << 30);
    c = crc32(c, reinterpret_cast<const Bytef*>(data.data() + pos), static_cast<uInt>(n));
    pos += n;
  }
  return static_cast<std::uint32_t>(c);
}

std::string wrap(std::string_view tag, const std::string& payload, int level) {
  if (payload.size() > kMaxPayload) throw CodecError(std::string(tag) + ": payload over 1 GiB");
  uLongf size = compressBound(static_cast<uLong>(payload.size()));
  std::string out(tag);
  out.append(8, '\0');  // length and CRC, written below
  const std::size_t start = out.size();
  out.resize(start + size);
  if (compress2(reinterpret_cast<Bytef*>(out.data() + start), &size, reinterpret_cast<const Bytef*>(payload.data()),
                static_cast<uLong>(payload.size()), level) != Z_OK) {
    throw CodecError(std::string(tag) + ": zlib could not compress the payload");
  }
  out.resize(start + size);
  Writer header;
  header.fixed32(static_cast<std::uint32_t>(payload.size()));
  header.fixed32(crc(std::string_view(out).substr(start)));
  out.replace(tag.size(), 8, header.bytes());
  return out;
}

std::string unwrap(std::string_view tag, std::string_view bytes, const char* what) {
  if (bytes.size() < tag.size() + 8) throw CodecError(std::string(what) + ": too short (" + std::to_string(bytes.size()) + " bytes)");
  if (bytes.substr(0, tag.size()) != tag) {
    throw CodecError(std::string(what) + ": it does not start with " + std::string(tag) + " (another program's data, or a newer format)");
  }
  Reader header(bytes.substr(tag.size(), 8), what);
  const std::uint32_t length = header.fixed32();
  const std::uint32_t expected_crc = header.fixed32();
  if (length > kMaxPayload) throw CodecError(std::string(what) + ": its length field is implausible");
  const std::string_view body = bytes.substr(tag.size() + 8);
  if (crc(body) != expected_crc) throw CodecError(std::string(what) + ": the checksum does not match (damaged in transit or storage)");
  std::string payload(length, '\0');
  uLongf size = length;
  const int rc = uncompress(reinterpret_cast<Bytef*>(payload.data()), &size, reinterpret_cast<const Bytef*>(body.data()),
                            static_cast<uLong>(body.size()));
  if (rc != Z_OK || size != length) throw CodecError(std::string(what) + ": the compressed data is damaged");
  return payload;
}

}  // namespace

std::string encode_game(const mcts::GameRecord& record) {
  Writer w;
  w.str(record.game);
  w.varint(record.actions.size());
  for (const games::Action a : record.actions) w.svarint(a);
  w.varint(record.samples.size());
  for (const auto& s : record.samples) {
    w.str(s.state);
    w.svarint(s.player);
    w.svarint(s.move_number);
    w.varint(s.policy.size());
    for (const auto& [action, p] : s.policy) {
      w.svarint(action);
      w.f32(p);
    }
    w.f64(s.root_value);
    w.u8(s.full_search);
  }
  w.varint(record.returns.size());
  for (const double r : record.returns) w.f64(r);
  w.svarint(record.resigned);
  w.u8(record.no_resign);
  w.svarint(record.would_have_resigned);
  return wrap(kGameTag, w.bytes(), 6);
}

mcts::GameRecord decode_game(std::string_view bytes) {
  const std::string payload = unwrap(kGameTag, bytes, "game record");
  Reader r(payload, "game record");
  mcts::GameRecord record;
  record.game = r.str();
  record.actions.resize(r.count());
  for (auto& a : record.actions) a = r.int32();
  record.samples.resize(r.count(4));
  for (auto& s : record.samples) {
    s.state = r.str();
    s.player = r.int32();
    s.move_number = r.int32();
    s.policy.resize(r.count(5));
    for (auto& [action, p] : s.policy) {
      action = r.int32();
      p = r.f32();
    }
    s.root_value = r.f64();
    s.full_search = r.flag();
  }
  record.returns.resize(r.count(8));
  for (auto& v : record.returns) v = r.f64();
  record.resigned = r.int32();
  record.no_resign = r.flag();
  record.would_have_resigned = r.int32();
  r.expect_end();
  return record;
}

std::string encode_weights(const nn::NetWeights& weights) {
  Writer w;
  w.varint(weights.size());
  for (const auto& [name, tensor] : weights) {
    w.str(name);
    w.varint(tensor.shape.size());
    for (const std::int64_t d : tensor.shape) w.svarint(d);
    w.floats(tensor.values);
  }
  // Trained floats hardly compress; level 1 keeps the learner's publish cheap.
  return wrap(kWeightsTag, w.bytes(), 1);
}

nn::NetWeights decode_weights(std::string_view bytes) {
  const std::string payload = unwrap(kWeightsTag, bytes, "weights");
  Reader r(payload, "weights");
  nn::NetWeights weights;
  const std::size_t n = r.count(3);
  for (std::size_t i = 0; i < n; ++i) {
    std::string name = r.str();
    nn::WeightTensor t;
    t.shape.resize(r.count());
    std::uint64_t elements = 1;
    for (auto& d : t.shape) {
      d = r.svarint();
      if (d < 0 || d > (std::int64_t{1} << 31)) throw CodecError("weights: tensor " + name + " has a bad dimension");
      elements *= static_cast<std::uint64_t>(d);
      if (elements > kMaxPayload) throw CodecError("weights: tensor " + name + " is implausibly large");
    }
    t.values = r.floats();
    if (t.values.size() != elements) {
      throw CodecError("weights: tensor " + name + " holds " + std::to_string(t.values.size()) + " values for its shape's " +
                       std::to_string(elements));
    }
    if (!weights.emplace(std::move(name), std::move(t)).second) throw CodecError("weights: a tensor name appears twice");
  }
  r.expect_end();
  return weights;
}

}  // namespace pz::distributed
