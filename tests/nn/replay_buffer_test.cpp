#include "nn/replay_buffer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <algorithm>

#include "games/registry.h"
#include "util/error.h"
#include "util/fnv1a.h"

namespace pz::nn {
namespace {

Sample numbered(const games::Game& game, float id, bool with_policy = true) {
  Sample s;
  s.observation.assign(static_cast<std::size_t>(game.info().observation_shape.size()), id);
  if (with_policy) {
    s.policy.assign(static_cast<std::size_t>(game.info().policy_shape.size()), 0.0f);
    s.policy[0] = 1.0f;
  }
  s.value = {id > 5 ? 1.0f : -1.0f};
  return s;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("pz_nn_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

TEST(ReplayBuffer, KeepsTheNewestCapacitySamplesOldestFirst) {
  const auto game = games::make_game("tictactoe");
  ReplayBuffer buffer(*game, 4);
  for (int i = 0; i < 7; ++i) buffer.add({numbered(*game, static_cast<float>(i))});
  EXPECT_EQ(buffer.size(), 4u);
  EXPECT_EQ(buffer.total_added(), 7);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(buffer.row(i).observation[0], static_cast<float>(3 + i));
}

TEST(ReplayBuffer, SamplesUniformlyAndKeepsPolicyMasks) {
  const auto game = games::make_game("tictactoe");
  ReplayBuffer buffer(*game, 100);
  for (int i = 0; i < 10; ++i) buffer.add({numbered(*game, static_cast<float>(i), i % 2 == 0)});
  util::Rng rng(3);
  std::vector<int> counts(10);
  const int n = 20000;
  const Batch b = buffer.sample(n, rng, /*augment=*/false);
  const std::size_t obs = 27;
  for (int i = 0; i < n; ++i) {
    const int id = static_cast<int>(b.observations[static_cast<std::size_t>(i) * obs]);
    ++counts[static_cast<std::size_t>(id)];
    EXPECT_EQ(b.policy_mask[static_cast<std::size_t>(i)], id % 2 == 0 ? 1.0f : 0.0f);
  }
  for (int c : counts) EXPECT_NEAR(c, n / 10, n / 10 * 0.1);
}

TEST(ReplayBuffer, SaveLoadRoundTripsAndRefusesCorruptFiles) {
  const auto game = games::make_game("connect4");
  ReplayBuffer buffer(*game, 5);
  for (int i = 0; i < 8; ++i) buffer.add({numbered(*game, static_cast<float>(i), i != 6)});
  const std::string path = temp_path("replay.bin");
  buffer.save(path);

  ReplayBuffer copy(*game, 5);
  copy.load(path);
  ASSERT_EQ(copy.size(), 5u);
  EXPECT_EQ(copy.total_added(), 8);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(copy.row(i).observation, buffer.row(i).observation);
    EXPECT_EQ(copy.row(i).policy, buffer.row(i).policy);
    EXPECT_EQ(copy.row(i).value, buffer.row(i).value);
  }
  ReplayBuffer smaller(*game, 2);
  smaller.load(path);
  EXPECT_EQ(smaller.row(0).observation[0], 6.0f);

  // One flipped byte in the middle: the checksum catches it.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);
    f.put('\x7f');
  }
  EXPECT_THROW(copy.load(path), util::UsageError);
  // Truncated.
  std::filesystem::resize_file(path, 100);
  EXPECT_THROW(copy.load(path), util::UsageError);
  // Another game's buffer.
  buffer.save(path);
  const auto ttt = games::make_game("tictactoe");
  ReplayBuffer other(*ttt, 5);
  EXPECT_THROW(other.load(path), util::UsageError);
  std::filesystem::remove(path);
  EXPECT_THROW(other.load(path), util::UsageError);
}

// A Go sample whose ownership is plane 0 of its observation, so that a drawn row shows whether
// the two moved under the same symmetry, and whose score is a sum that no symmetry changes.
Sample owned(const games::Game& game, int id, bool with_targets) {
  Sample s = numbered(game, 0.0f);
  const auto cells = static_cast<std::size_t>(game.info().observation_shape.plane_size());
  for (std::size_t c = 0; c < cells; ++c) s.observation[c] = static_cast<float>((static_cast<int>(c) * 7 + id) % 3 - 1);
  if (with_targets) {
    s.ownership.assign(s.observation.begin(), s.observation.begin() + static_cast<std::ptrdiff_t>(cells));
    s.score = 0.1f * std::accumulate(s.ownership.begin(), s.ownership.end(), 0.0f);  // unchanged by symmetries
  }
  return s;
}

TEST(ReplayBuffer, KeepsAuxiliaryTargetsAndMovesOwnershipWithTheSymmetry) {
  const auto game = games::make_game("go:size=5");
  ReplayBuffer buffer(*game, 10, /*auxiliary=*/true);
  for (int i = 0; i < 6; ++i) buffer.add({owned(*game, i, i != 3)});
  util::Rng rng(5);
  const Batch b = buffer.sample(400, rng, /*augment=*/true);
  ASSERT_EQ(b.ownership.size(), 400u * 25u);
  for (std::size_t r = 0; r < 400; ++r) {
    const float* obs = &b.observations[r * 12 * 25];
    const float* own = &b.ownership[r * 25];
    if (b.auxiliary_mask[r] == 0) {
      EXPECT_EQ(b.score[r], 0.0f);
      EXPECT_TRUE(std::all_of(own, own + 25, [](float x) { return x == 0; }));
      continue;
    }
    EXPECT_TRUE(std::equal(own, own + 25, obs)) << "row " << r << ": ownership and observation moved apart";
    EXPECT_FLOAT_EQ(b.score[r], 0.1f * std::accumulate(own, own + 25, 0.0f)) << "row " << r;
  }
  EXPECT_TRUE(buffer.row(3).ownership.empty());

  const std::string path = temp_path("aux.bin");
  buffer.save(path);
  ReplayBuffer copy(*game, 10, true);
  copy.load(path);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(copy.row(i).ownership, buffer.row(i).ownership);
    EXPECT_EQ(copy.row(i).score, buffer.row(i).score);
  }
  ReplayBuffer plain(*game, 10);
  try {
    plain.load(path);
    ADD_FAILURE() << "a buffer without auxiliary targets loaded one with them";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("auxiliary targets"), std::string::npos) << e.what();
  }
  EXPECT_THROW(plain.add({owned(*game, 1, true)}), std::invalid_argument);
  std::filesystem::remove(path);
}

// Buffers saved before the auxiliary targets (format 1) still load; a header that counts more
// rows than its file holds is refused before memory is taken for them.
TEST(ReplayBuffer, ReadsFormatOneAndRefusesCountsBeyondTheFile) {
  const auto game = games::make_game("tictactoe");
  const std::string path = temp_path("format1.bin");
  const auto write = [&](std::uint64_t count) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    std::uint64_t hash = util::kFnv1aOffsetBasis;
    const auto put = [&](const void* p, std::size_t n) {
      out.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
      hash = util::fnv1a(p, n, hash);
    };
    const std::uint32_t format = 1;
    const std::uint64_t sizes[3] = {27, 9, 1};
    const auto total = static_cast<std::int64_t>(count);
    put("PZRB", 4);
    put(&format, sizeof format);
    put(sizes, sizeof sizes);
    put(&count, sizeof count);
    put(&total, sizeof total);
    for (int r = 0; r < 2; ++r) {
      std::vector<float> row(27 + 9 + 1 + 1, static_cast<float>(r));
      put(row.data(), row.size() * sizeof(float));
    }
    out.write(reinterpret_cast<const char*>(&hash), sizeof hash);
  };
  write(2);
  ReplayBuffer buffer(*game, 4);
  buffer.load(path);
  ASSERT_EQ(buffer.size(), 2u);
  EXPECT_EQ(buffer.row(1).observation[0], 1.0f);
  write(1ULL << 31);
  try {
    buffer.load(path);
    ADD_FAILURE() << "a count of 2^31 rows loaded";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace pz::nn
