// The torch side: network shapes for every game, the inference engine, model checkpoints
// and an exactly resumable learner.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>

#include "games/registry.h"
#include "nn/checkpoint.h"
#include "nn/inference_engine.h"
#include "nn/learner.h"
#include "nn/model_players.h"
#include "arena/player_factory.h"
#include "util/error.h"

namespace pz::nn {
namespace {

NetConfig small_net() {
  NetConfig c;
  c.blocks = 1;
  c.channels = 8;
  c.value_hidden = 8;
  return c;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("pz_nn_" + std::to_string(::getpid()) + "_" + name)).string();
}

class NnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::set_num_threads(1);
    torch::manual_seed(1);
  }
};

TEST_F(NnTest, EveryGameGetsPolicyLogitsForEachCellAndItsValues) {
  for (const auto& entry : games::registered_games()) {
    const auto game = games::make_game(entry.name);
    const auto& info = game->info();
    auto net = make_network(small_net(), info);
    net->eval();
    const games::Shape& s = info.observation_shape;
    auto [logits, values] = net->forward(torch::randn({3, s.channels, s.height, s.width}));
    EXPECT_EQ(logits.sizes(), (std::vector<std::int64_t>{3, info.policy_shape.size()})) << entry.name;
    EXPECT_EQ(values.sizes(), (std::vector<std::int64_t>{3, net_shape(info).value_outputs})) << entry.name;
    EXPECT_LE(values.abs().max().item<float>(), 1.0f) << entry.name;
  }
}

TEST_F(NnTest, EngineGivesNormalisedPriorsOverLegalMovesAndCachesByHash) {
  const auto game = games::make_game("connect4");
  auto net = make_network(small_net(), game->info());
  InferenceEngine engine(*game, net, {4, 1024});
  auto state = game->new_initial_state();
  state->apply_action(3);
  const auto legal = state->legal_actions();
  std::vector<float> priors(legal.size()), values(2), priors2(legal.size()), values2(2);
  std::vector<mcts::EvalRequest> batch{{state.get(), legal, priors.data(), values.data()}};
  engine.evaluate(batch);
  float sum = 0;
  for (float p : priors) sum += p;
  EXPECT_NEAR(sum, 1.0f, 1e-5);
  EXPECT_FLOAT_EQ(values[0], -values[1]);
  std::vector<mcts::EvalRequest> again{{state.get(), legal, priors2.data(), values2.data()}};
  engine.evaluate(again);
  EXPECT_EQ(priors, priors2);
  EXPECT_EQ(engine.stats().cache_hits, 1);
  EXPECT_EQ(engine.stats().forwards, 1);

  // A batch larger than the preallocated input grows it.
  std::vector<std::unique_ptr<games::State>> states;
  std::vector<std::vector<float>> pr(10, std::vector<float>(7)), va(10, std::vector<float>(2));
  std::vector<mcts::EvalRequest> big;
  const auto legal0 = game->new_initial_state()->legal_actions();
  for (int i = 0; i < 10; ++i) {
    states.push_back(game->new_initial_state());
    states.back()->apply_action(i % 7);
    states.back()->apply_action((i / 7) % 7);
    big.push_back({states.back().get(), legal0, pr[static_cast<std::size_t>(i)].data(), va[static_cast<std::size_t>(i)].data()});
  }
  engine.evaluate(big);

  // Publishing new weights changes the answers and invalidates the cache.
  auto other = make_network(small_net(), game->info());
  engine.publish(*other);
  engine.evaluate(again);
  EXPECT_NE(priors, priors2);

  engine.cancel();
  EXPECT_THROW(engine.evaluate(again), Cancelled);
}

TEST_F(NnTest, CheckpointRoundTripsWeightsConfigAndProvenance) {
  const auto game = games::make_game("hex:size=5");
  auto net = make_network(small_net(), game->info());
  net->eval();
  ModelInfo info;
  info.game = game->spec().to_string();
  info.network = small_net();
  info.step = 1234;
  info.run = "runs/x";
  const std::string path = temp_path("model.pt");
  save_model(path, *net, info);

  const ModelInfo read = read_model_info(path);
  EXPECT_EQ(read.game, "hex:size=5,swap=true");
  EXPECT_EQ(read.step, 1234);
  EXPECT_EQ(read.network, small_net());
  EXPECT_EQ(read.run, "runs/x");
  EXPECT_FALSE(read.created.empty());
  EXPECT_EQ(read.parameters, net->parameter_count());
  EXPECT_NE(describe_model(read, path).find("step: 1234"), std::string::npos);

  LoadedModel loaded = load_model_for(path, *game);
  const auto x = torch::randn({2, game->info().observation_shape.channels, 5, 5});
  auto [l1, v1] = net->forward(x);
  auto [l2, v2] = loaded.net->forward(x);
  EXPECT_TRUE(torch::equal(l1, l2));
  EXPECT_TRUE(torch::equal(v1, v2));

  // Another game, a corrupt file, a missing file: clear errors.
  const auto other = games::make_game("hex:size=7");
  EXPECT_THROW(load_model_for(path, *other), util::UsageError);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f.write("garbage!", 8);
  }
  EXPECT_THROW(load_model(path), util::UsageError);
  std::filesystem::resize_file(path, 10);
  EXPECT_THROW(read_model_info(path), util::UsageError);
  std::filesystem::remove(path);
  try {
    load_model(path);
    FAIL();
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos);
  }
}

TEST_F(NnTest, ModelPlayersLoadCheckpoints) {
  register_model_players();
  const auto game = games::make_game("tictactoe");
  auto net = make_network(small_net(), game->info());
  ModelInfo info;
  info.game = game->spec().to_string();
  info.network = small_net();
  const std::string path = temp_path("ttt.pt");
  save_model(path, *net, info);
  auto state = game->new_initial_state();
  for (const std::string& spec : {"policy:model=" + path, "mcts:model=" + path + ",sims=20,batch=4"}) {
    auto player = arena::make_player(spec, *game, 1);
    EXPECT_TRUE(state->is_legal(player->choose_action(*state, 0))) << spec;
  }
  EXPECT_THROW(arena::make_player("policy", *game, 1), util::UsageError);
  EXPECT_THROW(arena::make_player("mcts:model=/nonexistent.pt", *game, 1), util::UsageError);
  const auto c4 = games::make_game("connect4");
  EXPECT_THROW(arena::make_player("mcts:model=" + path, *c4, 1), util::UsageError);
  auto plain = arena::make_player("mcts:sims=10", *game, 1);  // no model: rollouts as before
  EXPECT_TRUE(state->is_legal(plain->choose_action(*state, 0)));
  std::filesystem::remove(path);
}

Batch fixed_batch(const games::Game& game, int n, std::uint64_t seed) {
  torch::manual_seed(seed);
  Batch b;
  b.size = n;
  const auto obs = torch::randint(0, 2, {n, game.info().observation_shape.size()}).to(torch::kFloat);
  const auto pol = torch::softmax(torch::randn({n, game.info().policy_shape.size()}), 1);
  const auto val = torch::rand({n, 1}) * 2 - 1;
  b.observations.assign(obs.data_ptr<float>(), obs.data_ptr<float>() + obs.numel());
  b.policies.assign(pol.data_ptr<float>(), pol.data_ptr<float>() + pol.numel());
  b.policy_mask.assign(static_cast<std::size_t>(n), 1.0f);
  b.values.assign(val.data_ptr<float>(), val.data_ptr<float>() + val.numel());
  return b;
}

TEST_F(NnTest, LearnerResumesWithTheSameStepLrAndWeights) {
  const auto game = games::make_game("tictactoe");
  LearnerConfig lc;
  lc.network = small_net();
  lc.optimizer = {{"type", "sgd"}, {"lr", 0.1}, {"momentum", 0.9}, {"weight_decay", 1e-4}, {"clip_grad_norm", 1.0}};
  lc.scheduler = {{"type", "poly"}, {"total_iters", 8}, {"power", 2.0},
                  {"warmup", {{"type", "linear"}, {"steps", 3}, {"start_factor", 0.1}}}};
  std::vector<Batch> batches;
  for (int i = 0; i < 12; ++i) batches.push_back(fixed_batch(*game, 16, 100 + static_cast<std::uint64_t>(i)));

  Learner straight(*game, lc, 5);
  std::vector<double> lrs;
  for (int i = 0; i < 12; ++i) lrs.push_back(straight.train_step(batches[static_cast<std::size_t>(i)]).lr);
  EXPECT_LT(lrs[0], lrs[3]);  // warmup
  EXPECT_GT(lrs[3], lrs[9]);  // poly decay

  Learner first(*game, lc, 5);
  for (int i = 0; i < 5; ++i) first.train_step(batches[static_cast<std::size_t>(i)]);
  const std::string model = temp_path("resume_model.pt"), state = temp_path("resume_learner.pt");
  ModelInfo info;
  info.game = game->spec().to_string();
  info.network = lc.network;
  save_model(model, first.network(), info);
  first.save_state(state);

  Learner resumed(*game, lc, 999);  // other initial weights: everything must come from the files
  copy_weights(*load_model(model).net, resumed.network());
  resumed.load_state(state);
  EXPECT_EQ(resumed.step(), 5);
  for (int i = 5; i < 12; ++i) {
    const StepStats s = resumed.train_step(batches[static_cast<std::size_t>(i)]);
    EXPECT_EQ(s.lr, lrs[static_cast<std::size_t>(i)]) << "step " << i;
    EXPECT_EQ(s.step, i + 1);
  }
  auto a = straight.network().named_parameters();
  auto b = resumed.network().named_parameters();
  for (const auto& item : a) EXPECT_TRUE(torch::equal(item.value(), b[item.key()])) << item.key();

  // A learner with another optimiser refuses the state.
  LearnerConfig other = lc;
  other.optimizer = {{"type", "adam"}, {"lr", 0.001}};
  Learner adam(*game, other, 5);
  EXPECT_THROW(adam.load_state(state), util::UsageError);
  std::filesystem::remove(model);
  std::filesystem::remove(state);
}

}  // namespace
}  // namespace pz::nn
