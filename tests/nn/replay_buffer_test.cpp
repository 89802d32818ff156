#include "nn/replay_buffer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "games/registry.h"
#include "util/error.h"

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

}  // namespace
}  // namespace pz::nn
