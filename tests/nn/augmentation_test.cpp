// Samples and their symmetries, for every registered game: the sample of a transformed
// position must be the transformed sample (observation planes, policy target, value, and
// the auxiliary targets of games scored on their board).
#include <gtest/gtest.h>

#include "games/registry.h"
#include "nn/encoding.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::nn {
namespace {

// A game record with a policy target at every decision: random weights on the legal moves.
struct Pair {
  mcts::GameRecord original, image;
};

Pair random_records(const games::Game& game, games::Symmetry s, util::Rng& rng) {
  Pair out;
  auto a = game.new_initial_state();
  auto b = game.new_initial_state();
  std::vector<games::Action> legal;
  while (!a->is_terminal() && a->current_player() >= 0) {
    a->legal_actions(legal);
    mcts::TrainingSample ta{a->serialize(), a->current_player(), a->move_number(), {}, 0.25, true};
    mcts::TrainingSample tb{b->serialize(), b->current_player(), b->move_number(), {}, 0.25, true};
    float total = 0;
    std::vector<float> w(legal.size());
    for (auto& x : w) total += (x = static_cast<float>(rng.uniform()) + 0.01f);
    for (std::size_t i = 0; i < legal.size(); ++i) {
      ta.policy.push_back({legal[i], w[i] / total});
      tb.policy.push_back({game.transform_action(s, legal[i]), w[i] / total});
    }
    out.original.samples.push_back(ta);
    out.image.samples.push_back(tb);
    const games::Action move = legal[rng.below(static_cast<std::uint32_t>(legal.size()))];
    a->apply_action(move);
    b->apply_action(game.transform_action(s, move));
    out.original.actions.push_back(move);
    out.image.actions.push_back(game.transform_action(s, move));
  }
  out.original.returns = a->returns();
  out.image.returns = b->returns();
  return out;
}

TEST(Augmentation, TransformedSampleIsTheSampleOfTheTransformedPosition) {
  for (const auto& entry : games::registered_games()) {
    const auto game = games::make_game(entry.name);
    if (game->info().family != games::Family::kBoard) continue;  // decision nodes only
    util::Rng rng(42);
    for (games::Symmetry s : game->symmetries()) {
      for (int g = 0; g < 3; ++g) {
        const Pair p = random_records(*game, s, rng);
        NetConfig network;
        network.ownership = network.score = game->info().board_ownership;
        const auto original = samples_from_game(*game, p.original, 0.0, network);
        const auto image = samples_from_game(*game, p.image, 0.0, network);
        ASSERT_EQ(original.size(), image.size());
        for (std::size_t i = 0; i < original.size(); ++i) {
          const Sample t = transform_sample(*game, s, original[i]);
          ASSERT_EQ(t.observation, image[i].observation) << entry.name << " " << games::symmetry_name(s) << " move " << i;
          ASSERT_EQ(t.policy, image[i].policy) << entry.name << " " << games::symmetry_name(s) << " move " << i;
          ASSERT_EQ(t.value, image[i].value) << entry.name;
          ASSERT_EQ(t.ownership, image[i].ownership) << entry.name << " " << games::symmetry_name(s) << " move " << i;
          ASSERT_EQ(t.score, image[i].score) << entry.name;
          ASSERT_EQ(t.ownership.empty(), !network.ownership) << entry.name << ": a finished game has its final board";
        }
      }
    }
  }
}

TEST(Encoding, ValuesMapBetweenReturnUnitsAndTheNetworkRange) {
  games::GameInfo info;
  info.num_players = 1;
  info.min_return = 0;
  info.max_return = 2048;
  EXPECT_FLOAT_EQ(normalize_return(info, 0), -1.0f);
  EXPECT_FLOAT_EQ(normalize_return(info, 2048), 1.0f);
  EXPECT_FLOAT_EQ(normalize_return(info, 1024), 0.0f);
  EXPECT_DOUBLE_EQ(denormalize_value(info, 0.5f), 1536.0);

  const auto c4 = games::make_game("connect4");
  float net = 0.6f, seats[2];
  values_for_seats(c4->info(), 1, &net, seats);
  EXPECT_FLOAT_EQ(seats[1], 0.6f);
  EXPECT_FLOAT_EQ(seats[0], -0.6f);
  EXPECT_EQ(value_target(c4->info(), 0, {1.0, -1.0}), std::vector<float>{1.0f});
  EXPECT_EQ(value_target(c4->info(), 1, {1.0, -1.0}), std::vector<float>{-1.0f});
}

TEST(Encoding, ANetworkValueRangeReplacesAScoredGamesBound) {
  const auto game = games::make_game("2048");
  ASSERT_GT(game->info().max_return, 1e6);  // the rules' bound: real scores are thousands
  mcts::GameRecord record;
  record.samples.push_back({game->new_initial_state()->serialize(), 0, 0, {}, 0.0, false});
  record.returns = {1000.0};
  NetConfig network;
  EXPECT_LT(samples_from_game(*game, record, 0.0, network)[0].value[0], -0.999f);
  network.value_range = {0.0, 4000.0};
  EXPECT_FLOAT_EQ(samples_from_game(*game, record, 0.0, network)[0].value[0], -0.5f);
  const games::GameInfo scaled = value_scale(game->info(), network);
  EXPECT_EQ(scaled.max_return, 4000.0);
  EXPECT_FLOAT_EQ(normalize_return(scaled, 9000.0), 1.0f);  // clamped
  float net = 0.25f, seat = 0;
  values_for_seats(scaled, 0, &net, &seat);
  EXPECT_FLOAT_EQ(seat, 2500.0f);

  EXPECT_EQ(parse_net_config(network.to_json()), network);
  for (const char* bad : {R"([4000, 0])", R"([1])", R"("wide")"}) {
    auto j = network.to_json();
    j["value_range"] = nlohmann::json::parse(bad);
    try {
      parse_net_config(j);
      ADD_FAILURE() << bad;
    } catch (const util::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("network.value_range"), std::string::npos) << e.what();
    }
  }
}

TEST(Encoding, FastSearchPositionsHaveNoPolicyTargetAndQMixBlendsTheValue) {
  const auto game = games::make_game("tictactoe");
  auto state = game->new_initial_state();
  mcts::GameRecord record;
  record.samples.push_back({state->serialize(), 0, 0, {{4, 1.0f}}, 0.5, true});
  record.samples.push_back({state->serialize(), 0, 0, {}, 0.5, false});
  record.returns = {-1.0, 1.0};
  const auto samples = samples_from_game(*game, record, 0.5);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].policy.size(), 9u);
  EXPECT_EQ(samples[0].policy[4], 1.0f);
  EXPECT_TRUE(samples[1].policy.empty());
  EXPECT_FLOAT_EQ(samples[0].value[0], -0.25f);  // 0.5·(−1) + 0.5·0.5
}

// The auxiliary targets come from the final board, from each sample's own side; a resigned
// game, whose board was never decided, has none.
TEST(Encoding, AuxiliaryTargetsAreTheFinalBoardFromTheSamplesSide) {
  const auto game = games::make_game("go:size=5,komi=0.5");
  auto state = game->new_initial_state();
  mcts::GameRecord record;
  // Black walls off columns a-c, White column e; column d touches both and is no one's.
  for (const char* move : {"c1", "e1", "c2", "e2", "c3", "e3", "c4", "e4", "c5", "e5", "pass", "pass"}) {
    record.samples.push_back({state->serialize(), state->current_player(), state->move_number(), {}, 0.0, false});
    const games::Action a = *state->parse_action(move);
    record.actions.push_back(a);
    state->apply_action(a);
  }
  ASSERT_TRUE(state->is_terminal());
  record.returns = state->returns();
  NetConfig network;
  network.ownership = network.score = true;
  const auto samples = samples_from_game(*game, record, 0.0, network);
  ASSERT_EQ(samples.size(), 12u);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const float mine = i % 2 == 0 ? 1.0f : -1.0f;  // Black's samples, then White's
    ASSERT_EQ(samples[i].ownership.size(), 25u);
    for (int y = 0; y < 5; ++y) {
      for (int x = 0; x < 5; ++x) {
        const float want = x <= 2 ? mine : x == 3 ? 0.0f : -mine;
        EXPECT_EQ(samples[i].ownership[static_cast<std::size_t>(y * 5 + x)], want) << "sample " << i << " x " << x;
      }
    }
    EXPECT_FLOAT_EQ(samples[i].score, mine * (15 - 5 - 0.5f) / 25) << "sample " << i;
  }
  EXPECT_TRUE(samples_from_game(*game, record)[0].ownership.empty()) << "a network without the heads";
  record.resigned = 1;
  EXPECT_TRUE(samples_from_game(*game, record, 0.0, network)[0].ownership.empty()) << "a resigned game";
  record.resigned = -1;
  record.actions.pop_back();  // the game record stops before its end
  EXPECT_TRUE(samples_from_game(*game, record, 0.0, network)[0].ownership.empty()) << "an unfinished game";
}

}  // namespace
}  // namespace pz::nn
