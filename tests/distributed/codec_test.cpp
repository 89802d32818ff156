// distributed/codec.h: games and weights survive the trip through bytes exactly, and damaged or
// foreign bytes are refused with CodecError (never a crash).
#include "distributed/codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "games/registry.h"
#include "mcts/evaluator.h"
#include "mcts/selfplay.h"
#include "nn/encoding.h"

namespace pz::distributed {
namespace {

void expect_same(const mcts::GameRecord& a, const mcts::GameRecord& b) {
  EXPECT_EQ(a.game, b.game);
  EXPECT_EQ(a.actions, b.actions);
  ASSERT_EQ(a.samples.size(), b.samples.size());
  for (std::size_t i = 0; i < a.samples.size(); ++i) {
    EXPECT_EQ(a.samples[i].state, b.samples[i].state);
    EXPECT_EQ(a.samples[i].player, b.samples[i].player);
    EXPECT_EQ(a.samples[i].move_number, b.samples[i].move_number);
    EXPECT_EQ(a.samples[i].policy, b.samples[i].policy);
    EXPECT_EQ(a.samples[i].root_value, b.samples[i].root_value);
    EXPECT_EQ(a.samples[i].full_search, b.samples[i].full_search);
  }
  EXPECT_EQ(a.returns, b.returns);
  EXPECT_EQ(a.resigned, b.resigned);
  EXPECT_EQ(a.no_resign, b.no_resign);
  EXPECT_EQ(a.would_have_resigned, b.would_have_resigned);
}

mcts::GameRecord handmade() {
  mcts::GameRecord r;
  r.game = "connect4:height=6,width=7";
  r.actions = {3, 3, -1, 0, std::numeric_limits<games::Action>::max(), std::numeric_limits<games::Action>::min()};
  mcts::TrainingSample s;
  s.state = std::string("binary\0state\xff", 13);
  s.player = 1;
  s.move_number = 17;
  s.policy = {{0, 0.25f}, {6, 0.75f}, {-3, -0.0f}};
  s.root_value = -0.123456789012345;
  s.full_search = false;
  r.samples = {s, mcts::TrainingSample{}};
  r.returns = {1.0, -1.0, std::numeric_limits<double>::infinity()};
  r.resigned = 0;
  r.no_resign = true;
  r.would_have_resigned = 1;
  return r;
}

TEST(DistCodec, HandmadeGameRoundTripsExactly) {
  const auto r = handmade();
  expect_same(r, decode_game(encode_game(r)));
  expect_same(mcts::GameRecord{}, decode_game(encode_game(mcts::GameRecord{})));
}

TEST(DistCodec, SelfPlayGamesRoundTripAndGiveTheSameSamples) {
  const auto game = games::make_game("tictactoe");
  mcts::SelfPlayConfig config;
  config.full_simulations = 16;
  config.games_per_actor = 2;
  mcts::UniformEvaluator evaluator;
  std::vector<mcts::GameRecord> records;
  mcts::run_selfplay(*game, config, evaluator, 1, 3, 42, [&](mcts::GameRecord&& r) { records.push_back(std::move(r)); });
  ASSERT_EQ(records.size(), 3u);
  for (const auto& r : records) {
    const std::string bytes = encode_game(r);
    const auto back = decode_game(bytes);
    expect_same(r, back);
    const auto a = nn::samples_from_game(*game, r), b = nn::samples_from_game(*game, back);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].observation, b[i].observation);
      EXPECT_EQ(a[i].policy, b[i].policy);
      EXPECT_EQ(a[i].value, b[i].value);
    }
  }
}

TEST(DistCodec, RefusesDamagedTruncatedAndForeignBytes) {
  const std::string bytes = encode_game(handmade());
  EXPECT_THROW(decode_game(""), CodecError);
  EXPECT_THROW(decode_game("PZG1"), CodecError);
  EXPECT_THROW(decode_game("hello world, not a game record"), CodecError);
  EXPECT_THROW(decode_game(bytes.substr(0, bytes.size() - 3)), CodecError);
  EXPECT_THROW(decode_weights(bytes), CodecError);  // a game is not weights
  for (std::size_t pos = 4; pos < bytes.size(); ++pos) {
    std::string damaged = bytes;
    damaged[pos] = static_cast<char>(damaged[pos] ^ 0x5A);
    EXPECT_THROW(decode_game(damaged), CodecError) << "byte " << pos;
  }
  // A well-formed wrapper around a payload that lies about its counts.
  EXPECT_THROW(decode_game(std::string("PZG1") + std::string(8, '\0')), CodecError);
}

TEST(DistCodec, WeightsRoundTripBitForBit) {
  nn::NetWeights w;
  w["stem.weight"] = {{4, 2, 3, 3}, std::vector<float>(72)};
  for (std::size_t i = 0; i < 72; ++i) w["stem.weight"].values[i] = std::sin(static_cast<float>(i)) * 1e-3f;
  w["bn.running_var"] = {{4}, {1.0f, std::numeric_limits<float>::denorm_min(), -0.0f, 3.0e38f}};
  w["scalar"] = {{}, {7.0f}};
  const auto back = decode_weights(encode_weights(w));
  ASSERT_EQ(back.size(), w.size());
  for (const auto& [name, t] : w) {
    ASSERT_TRUE(back.count(name)) << name;
    EXPECT_EQ(back.at(name).shape, t.shape);
    ASSERT_EQ(back.at(name).values.size(), t.values.size());
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(back.at(name).values[i]), std::bit_cast<std::uint32_t>(t.values[i]));
    }
  }
  std::string bytes = encode_weights(w);
  bytes[bytes.size() / 2] ^= 1;
  EXPECT_THROW(decode_weights(bytes), CodecError);
}

}  // namespace
}  // namespace pz::distributed
