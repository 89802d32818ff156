// safetensors files (nn/safetensors.h): round trips, the dtypes other tools write, and a
// clear refusal for every way a file can break the format.
#include "nn/safetensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <unistd.h>

#include "nn/model_file.h"
#include "util/error.h"

namespace pz::nn {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("pz_safetensors_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::string u64_le(std::uint64_t v) {
  std::string s;
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  return s;
}

// A file of `header` (its length as given, or its real one) and `data`.
std::string write_raw(const std::string& name, const std::string& header, const std::string& data,
                      std::uint64_t claimed_header_length = 0) {
  const std::string path = temp_path(name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const std::string bytes = u64_le(claimed_header_length ? claimed_header_length : header.size()) + header + data;
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

TEST(Safetensors, RoundTripsTensorsOfEveryShapeAndTheMetadata) {
  Safetensors file;
  file.tensors["tower.0.conv1.weight"] = {{2, 1, 3, 3}, {}};
  for (int i = 0; i < 18; ++i) file.tensors["tower.0.conv1.weight"].values.push_back(0.25f * static_cast<float>(i) - 2.0f);
  file.tensors["bn.num"] = {{}, {7.0f}};  // a scalar
  file.tensors["empty"] = {{0, 4}, {}};
  file.tensors["edge"] = {{3}, {std::numeric_limits<float>::infinity(), -0.0f, std::numeric_limits<float>::denorm_min()}};
  file.metadata = {{"polyzero", R"({"game":"go"})"}, {"format", "pt"}};
  const std::string path = temp_path("round.safetensors");
  write_safetensors(path, file);
  ASSERT_TRUE(is_safetensors_file(path));

  // The layout the format defines: a little-endian length, then JSON, data aligned to 8.
  std::ifstream in(path, std::ios::binary);
  unsigned char head[9];
  in.read(reinterpret_cast<char*>(head), 9);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | head[i];
  EXPECT_EQ(head[8], '{');
  EXPECT_EQ((8 + n) % 8, 0u);

  const Safetensors back = read_safetensors(path);
  EXPECT_EQ(back.metadata, file.metadata);
  ASSERT_EQ(back.tensors.size(), file.tensors.size());
  for (const auto& [name, t] : file.tensors) {
    ASSERT_TRUE(back.tensors.count(name)) << name;
    EXPECT_EQ(back.tensors.at(name).shape, t.shape) << name;
    ASSERT_EQ(back.tensors.at(name).values.size(), t.values.size()) << name;
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(back.tensors.at(name).values[i]), std::bit_cast<std::uint32_t>(t.values[i]))
          << name << "[" << i << "]";
    }
  }
  std::filesystem::remove(path);
}

// F64, F16 and BF16 as other tools write them, with the data in another order than the header's.
TEST(Safetensors, ReadsTheFloatTypesOtherToolsWrite) {
  std::string data;
  const auto put16 = [&](std::uint16_t v) { data.push_back(static_cast<char>(v & 0xFF)), data.push_back(static_cast<char>(v >> 8)); };
  // half: 1.0, -2.5, the smallest subnormal, +inf
  for (std::uint16_t h : {0x3C00, 0xC100, 0x0001, 0x7C00}) put16(h);
  // bfloat16: 1.0, -0.5
  for (std::uint16_t b : {0x3F80, 0xBF00}) put16(b);
  data += u64_le(std::bit_cast<std::uint64_t>(3.25));  // double
  const std::string header = R"({"d":{"dtype":"F64","shape":[1],"data_offsets":[12,20]},)"
                             R"("h":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]},)"
                             R"("b":{"dtype":"BF16","shape":[2],"data_offsets":[8,12]}})";
  const std::string path = write_raw("types.safetensors", header, data);
  const Safetensors file = read_safetensors(path);
  const auto& h = file.tensors.at("h").values;
  EXPECT_EQ(file.tensors.at("h").shape, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(h[0], 1.0f);
  EXPECT_EQ(h[1], -2.5f);
  EXPECT_FLOAT_EQ(h[2], std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(h[3]) && h[3] > 0);
  EXPECT_EQ(file.tensors.at("b").values, (std::vector<float>{1.0f, -0.5f}));
  EXPECT_EQ(file.tensors.at("d").values, (std::vector<float>{3.25f}));
  std::filesystem::remove(path);
}

TEST(Safetensors, RefusesEveryBrokenFileByName) {
  const std::string four_floats(16, '\0');
  const auto tensor = [](const std::string& dtype, const std::string& shape, const std::string& offsets) {
    return R"({"t":{"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":)" + offsets + "}}";
  };
  struct Broken {
    const char* what;
    std::string header, data;
    std::uint64_t claimed = 0;
    const char* says;
  };
  const std::vector<Broken> cases = {
      {"a header longer than the file", tensor("F32", "[4]", "[0,16]"), four_floats, 1ULL << 40, "exceeds the file"},
      {"a header that is not JSON", "{not json", four_floats, 0, "not JSON"},
      {"a header that is a list", "[1,2]", "", 0, "not a JSON object"},
      {"a tensor without offsets", R"({"t":{"dtype":"F32","shape":[4]}})", four_floats, 0, "needs dtype"},
      {"an integer dtype", tensor("I8", "[16]", "[0,16]"), four_floats, 0, "readable are"},
      {"a negative size", tensor("F32", "[-4]", "[0,16]"), four_floats, 0, "array of sizes"},
      {"a shape that does not fill its bytes", tensor("F32", "[3]", "[0,16]"), four_floats, 0, "does not fill"},
      {"offsets past the data", tensor("F32", "[8]", "[0,32]"), four_floats, 0, "outside"},
      {"a hole before the tensor", tensor("F32", "[3]", "[4,16]"), four_floats, 0, "hole"},
      {"bytes no tensor owns", tensor("F32", "[2]", "[0,8]"), four_floats, 0, "cover 8 of the 16"},
      {"overlapping tensors",
       R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[3],"data_offsets":[4,16]}})",
       four_floats, 0, "overlap"},
      {"metadata that is not text", R"({"__metadata__":{"step":3}})", "", 0, "strings to strings"},
      {"an absurd shape", tensor("F32", "[4294967296,4294967296,16]", "[0,16]"), four_floats, 0, "does not fill"},
  };
  for (const Broken& c : cases) {
    const std::string path = write_raw("broken.safetensors", c.header, c.data, c.claimed);
    try {
      read_safetensors(path);
      ADD_FAILURE() << c.what << " was read";
    } catch (const util::UsageError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << c.what << ": " << message;
      EXPECT_NE(message.find(c.says), std::string::npos) << c.what << ": " << message;
    }
    std::filesystem::remove(path);
  }
  EXPECT_THROW(read_safetensors(temp_path("missing.safetensors")), util::UsageError);
  EXPECT_FALSE(is_safetensors_file(temp_path("missing.safetensors")));
}

// read_model_file: safetensors models here; LibTorch archives (zip files) only through an
// installed reader, and without one an error that says how to convert; anything else refused.
TEST(ModelFile, ReadsEitherFormByContent) {
  ModelInfo info;
  info.game = "tictactoe";
  info.step = 7;
  const NetWeights weights{{"value_fc2.bias", {{1}, {0.5F}}}, {"stem_conv.weight", {{2, 2}, {1, 2, 3, 4}}}};
  const std::string model = temp_path("model.safetensors");
  write_safetensors_model(model, info, weights);
  const ModelFile read = read_model_file(model);
  EXPECT_EQ(read.info.step, 7);
  EXPECT_EQ(read.weights.at("stem_conv.weight").values, weights.at("stem_conv.weight").values);

  const std::string archive = write_raw("model.pt", "", "");
  { std::ofstream(archive, std::ios::binary | std::ios::trunc) << "PK\3\4" << std::string(64, 'x'); }
  set_archive_model_reader(nullptr);
  try {
    read_model_file(archive);
    ADD_FAILURE() << "an archive was read without a reader";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("polyzero export " + archive + " MODEL.safetensors"), std::string::npos) << e.what();
  }
  set_archive_model_reader([](const std::string&) { return ModelFile{ModelInfo{}, NetWeights{{"x", {{1}, {3.0F}}}}}; });
  EXPECT_EQ(read_model_file(archive).weights.at("x").values.at(0), 3.0F);
  set_archive_model_reader(nullptr);

  const std::string junk = write_raw("junk.pt", "", "");
  { std::ofstream(junk, std::ios::binary | std::ios::trunc) << "not a checkpoint"; }
  try {
    read_model_file(junk);
    ADD_FAILURE() << "junk was read";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(junk), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("neither safetensors nor a LibTorch archive"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_model_file(temp_path("missing.safetensors")), util::UsageError);
  for (const auto& path : {model, archive, junk}) std::filesystem::remove(path);
}

}  // namespace
}  // namespace pz::nn
