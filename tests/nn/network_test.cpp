// The torch side: network shapes for every game, the inference engine, model checkpoints
// and an exactly resumable learner.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>
#include <tuple>

#include "games/registry.h"
#include "nn/checkpoint.h"
#include "nn/encoding.h"
#include "nn/inference_engine.h"
#include "nn/learner.h"
#include "nn/model_players.h"
#include "nn/trainer.h"
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

// Two blocks, so the pooled tower has one global pooling block.
NetConfig pooled_wdl_net() {
  NetConfig c = small_net();
  c.type = "pooled";
  c.blocks = 2;
  c.global_channels = 4;
  c.value_head = "wdl";
  return c;
}

TEST_F(NnTest, EveryGameGetsPolicyLogitsForEachCellAndItsValues) {
  for (const NetConfig& config : {small_net(), pooled_wdl_net()}) {
    for (const auto& entry : games::registered_games()) {
      const auto game = games::make_game(entry.name);
      const auto& info = game->info();
      const std::string what = entry.name + " " + config.to_json().dump();
      auto net = make_network(config, info);
      net->eval();
      const games::Shape& s = info.observation_shape;
      auto [logits, values] = net->forward(torch::randn({3, s.channels, s.height, s.width}));
      EXPECT_EQ(logits.sizes(), (std::vector<std::int64_t>{3, info.policy_shape.size()})) << what;
      EXPECT_EQ(values.sizes(), (std::vector<std::int64_t>{3, net_shape(info).value_outputs})) << what;
      EXPECT_LE(values.abs().max().item<float>(), 1.0f) << what;
    }
  }
}

TEST_F(NnTest, PooledNetEvaluatesAnyBoardSizeWithTheSameWeights) {
  const auto hex7 = games::make_game("hex:size=7"), hex9 = games::make_game("hex:size=9");
  NetConfig config = pooled_wdl_net();
  config.value_head = "scalar";
  auto net = make_network(config, hex7->info());
  net->eval();
  // Nothing in the weights depends on the board: a net built for 9×9 has the same parameters.
  auto net9 = make_network(config, hex9->info());
  EXPECT_EQ(net->parameter_count(), net9->parameter_count());

  // Real positions of both sizes, a few moves in.
  auto batch_of = [](const games::Game& game) {
    const games::Shape& s = game.info().observation_shape;
    auto x = torch::zeros({2, s.channels, s.height, s.width});
    auto state = game.new_initial_state();
    for (int i = 0; i < 2; ++i) {
      state->apply_action(state->legal_actions()[static_cast<std::size_t>(3 + i)]);
      state->observation(viewer_of(*state), x[i].data_ptr<float>());
    }
    return x;
  };
  const auto x7 = batch_of(*hex7), x9 = batch_of(*hex9);
  auto [l7, v7] = net->forward(x7);
  auto [l9, v9] = net->forward(x9);
  EXPECT_EQ(l7.sizes(), (std::vector<std::int64_t>{2, hex7->info().policy_shape.size()}));
  EXPECT_EQ(l9.sizes(), (std::vector<std::int64_t>{2, hex9->info().policy_shape.size()}));
  EXPECT_EQ(v7.sizes(), (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(v9.sizes(), (std::vector<std::int64_t>{2, 1}));
  EXPECT_FALSE(torch::equal(l9[0], l9[1]));  // the positions differ, so do their policies

  // The 7×7 net's weights, loaded from its checkpoint, drive the 9×9 net exactly.
  ModelInfo info;
  info.game = hex7->spec().to_string();
  info.network = config;
  const std::string path = temp_path("pooled.pt");
  save_model(path, *net, info);
  LoadedModel loaded = load_model_for(path, *hex7);
  EXPECT_EQ(loaded.info.network, config);
  EXPECT_EQ(loaded.info.network.to_json()["global_channels"], 4);
  copy_weights(*loaded.net, *net9);
  net9->eval();
  for (const auto& [x, l, v] : {std::tuple{x7, l7, v7}, std::tuple{x9, l9, v9}}) {
    auto [ll, lv] = loaded.net->forward(x);
    EXPECT_TRUE(torch::equal(ll, l));
    EXPECT_TRUE(torch::equal(lv, v));
  }
  auto [m9, w9] = net9->forward(x9);
  EXPECT_TRUE(torch::equal(m9, l9));
  EXPECT_TRUE(torch::equal(w9, v9));
  std::filesystem::remove(path);
}

TEST_F(NnTest, EngineGivesNormalisedPriorsOverLegalMovesAndCachesByHash) {
  const auto game = games::make_game("connect4");
  auto net = make_network(small_net(), game->info());
  InferenceEngine engine(*game, net->config(), export_weights(*net), {4, 1024});
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
  engine.publish(export_weights(*other));
  engine.evaluate(again);
  EXPECT_NE(priors, priors2);

  engine.cancel();
  EXPECT_THROW(engine.evaluate(again), Cancelled);
}

// Two lanes: two threads evaluate at once and get exactly what one lane gives; a publish()
// in the middle of their evaluations leaves no answer of the old network in the cache.
TEST_F(NnTest, EngineLanesEvaluateAtOnceWithTheSameAnswers) {
  const auto game = games::make_game("connect4");
  auto net = make_network(small_net(), game->info());
  auto other = make_network(small_net(), game->info());
  InferenceOptions one{64, 1024};
  InferenceOptions two = one;
  two.lanes = 2;
  InferenceEngine single(*game, net->config(), export_weights(*net), one);
  InferenceEngine fresh(*game, net->config(), export_weights(*other), one);  // the published net, uncached
  InferenceEngine lanes(*game, net->config(), export_weights(*net), two);
  EXPECT_EQ(lanes.concurrent_calls(), 2);
  std::vector<std::unique_ptr<games::State>> states;
  for (int i = 0; i < 49; ++i) {
    states.push_back(game->new_initial_state());
    states.back()->apply_action(i % 7);
    states.back()->apply_action(i / 7);
  }
  const auto legal = game->new_initial_state()->legal_actions();
  // Priors then values of every state, evaluated one state a call by `threads` threads.
  const auto answers = [&](InferenceEngine& engine, int threads) {
    std::vector<float> out(states.size() * 9);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        for (std::size_t i = static_cast<std::size_t>(t); i < states.size(); i += static_cast<std::size_t>(threads)) {
          const mcts::EvalRequest r{states[i].get(), legal, &out[i * 9], &out[i * 9 + 7]};
          engine.evaluate(std::span<const mcts::EvalRequest>(&r, 1));
        }
      });
    }
    for (auto& th : pool) th.join();
    return out;
  };
  const auto expected = answers(single, 1);
  EXPECT_EQ(answers(lanes, 2), expected);
  EXPECT_EQ(lanes.stats().forwards, 49);
  EXPECT_EQ(answers(lanes, 2), expected);  // from the cache now, as far as it holds them
  EXPECT_EQ(answers(single, 1), expected);
  // The cache is direct-mapped: of positions that share a slot, the one written last stays,
  // so with two threads the surviving one depends on their order. One thread in the same order
  // both times hits exactly the positions that have a slot to themselves; two lanes hit those
  // at least (they share one cache), and perhaps a survivor of a shared slot besides.
  EXPECT_GT(single.stats().cache_hits, 0);
  EXPECT_GE(lanes.stats().cache_hits, single.stats().cache_hits);

  std::atomic<bool> stop{false};
  std::thread evaluating([&] {
    while (!stop.load()) answers(lanes, 2);
  });
  lanes.publish(export_weights(*other));
  stop.store(true);
  evaluating.join();
  EXPECT_EQ(answers(lanes, 2), answers(fresh, 1));
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

// Averaged over all of its symmetries, the evaluation of a board and of its transformed
// copy agree exactly (up to the map of actions): the ensemble has no orientation bias.
// With one board (the default) an untrained network does not have that property.
TEST_F(NnTest, SymmetryAveragedEvaluationIsInvariantUnderTheGamesSymmetries) {
  for (const char* name : {"connect4", "tictactoe"}) {
    const auto game = games::make_game(name);
    ASSERT_GT(game->symmetries().size(), 1u) << name;
    auto net = make_network(small_net(), game->info());
    InferenceOptions all;
    all.symmetries = 0;
    InferenceEngine averaged(*game, net->config(), export_weights(*net), all), plain(*game, net->config(), export_weights(*net), {});
    const std::vector<games::Action> moves = {0, 1, 5};  // no symmetry of either board maps it to itself
    bool plain_differs = false;
    for (games::Symmetry symmetry : game->symmetries()) {
      auto state = game->new_initial_state(), image = game->new_initial_state();
      for (games::Action a : moves) {
        state->apply_action(a);
        image->apply_action(game->transform_action(symmetry, a));
      }
      const auto legal = state->legal_actions();
      std::vector<games::Action> image_legal;
      for (games::Action a : legal) image_legal.push_back(game->transform_action(symmetry, a));
      for (InferenceEngine* engine : {&averaged, &plain}) {
        std::vector<float> p(legal.size()), v(2), pi(legal.size()), vi(2);
        const std::vector<mcts::EvalRequest> batch{{state.get(), legal, p.data(), v.data()},
                                                   {image.get(), image_legal, pi.data(), vi.data()}};
        engine->evaluate(batch);
        if (engine == &averaged) {
          for (std::size_t i = 0; i < legal.size(); ++i) EXPECT_NEAR(p[i], pi[i], 1e-5) << name << " action " << legal[i];
          EXPECT_NEAR(v[0], vi[0], 1e-5) << name;
        } else if (symmetry != games::Symmetry::kIdentity) {
          for (std::size_t i = 0; i < legal.size(); ++i) plain_differs |= std::abs(p[i] - pi[i]) > 1e-4;
        }
      }
    }
    EXPECT_TRUE(plain_differs) << name << ": the check above would hold without averaging";
    EXPECT_EQ(averaged.stats().forward_rows, plain.stats().forward_rows * static_cast<std::int64_t>(game->symmetries().size()));
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
  for (const std::string& spec :
       {"policy:model=" + path, "policy:model=" + path + ",sym=0", "mcts:model=" + path + ",sims=20,batch=4,sym=2"}) {
    auto player = arena::make_player(spec, *game, 1);
    EXPECT_TRUE(state->is_legal(player->choose_action(*state, 0))) << spec;
  }
  // nnthreads=N: one evaluation split over N threads gives the same choice as one thread.
  auto one = arena::make_player("policy:model=" + path + ",backend=poly", *game, 1);
  auto two = arena::make_player("policy:model=" + path + ",backend=poly,nnthreads=2", *game, 1);
  EXPECT_EQ(one->choose_action(*state, 0), two->choose_action(*state, 0));
  // winograd=off|2 picks the poly backend's convolutions: the same choice; other values are refused.
  for (const std::string w : {"off", "2"}) {
    auto wino = arena::make_player("policy:model=" + path + ",backend=poly,winograd=" + w, *game, 1);
    EXPECT_EQ(one->choose_action(*state, 0), wino->choose_action(*state, 0)) << w;
  }
  EXPECT_THROW(arena::make_player("policy:model=" + path + ",winograd=5", *game, 1), util::UsageError);
  EXPECT_THROW(arena::make_player("mcts:model=" + path + ",backend=tensorflow", *game, 1), util::UsageError);
  auto searched = arena::make_player("mcts:model=" + path + ",sims=20,nnthreads=2", *game, 1);
  EXPECT_TRUE(state->is_legal(searched->choose_action(*state, 0)));
  EXPECT_THROW(arena::make_player("mcts:model=" + path + ",nnthreads=0", *game, 1), util::UsageError);
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

// The inference engine's per-seat values for the game's first position, from `net`'s weights.
std::vector<float> engine_values_at_start(const games::Game& game, PolicyValueNetImpl& net) {
  InferenceEngine engine(game, net.config(), export_weights(net), {4, 0});
  auto state = game.new_initial_state();
  const auto legal = state->legal_actions();
  std::vector<float> priors(legal.size()), values(2);
  std::vector<mcts::EvalRequest> request{{state.get(), legal, priors.data(), values.data()}};
  engine.evaluate(request);
  return values;
}

// `net` through a model checkpoint at `path`.
LoadedModel saved_and_loaded(const std::string& path, const games::Game& game, PolicyValueNetImpl& net) {
  ModelInfo info;
  info.game = game.spec().to_string();
  info.network = net.config();
  save_model(path, net, info);
  return load_model_for(path, game);
}

TEST_F(NnTest, WinDrawLossHeadLearnsOutcomesAndItsValueIsWinMinusLoss) {
  const auto game = games::make_game("tictactoe");
  LearnerConfig lc;
  lc.network = small_net();
  lc.network.value_head = "wdl";
  lc.optimizer = {{"type", "adam"}, {"lr", 0.01}};
  lc.scheduler = {{"type", "constant"}, {"factor", 1.0}, {"total_iters", 1}};
  Learner learner(*game, lc, 3);
  // Three positions: won, drawn and lost for the mover.
  Batch batch = fixed_batch(*game, 3, 7);
  batch.values = {1.0f, 0.0f, -1.0f};
  double first = 0, last = 0;
  for (int i = 0; i < 150; ++i) {
    const StepStats st = learner.train_step(batch);
    (i == 0 ? first : last) = st.value_loss;
  }
  EXPECT_NEAR(first, std::log(3.0), 0.3);  // cross-entropy of a near-uniform head
  EXPECT_LT(last, 0.2);
  auto& net = learner.network();
  net.eval();
  const games::Shape& s = game->info().observation_shape;
  const auto x = torch::from_blob(batch.observations.data(), {3, s.channels, s.height, s.width});
  const NetOutput out = net.heads(x);
  ASSERT_EQ(out.value_logits.sizes(), (std::vector<std::int64_t>{3, 1, 3}));
  const auto probs = torch::softmax(out.value_logits, 2);
  EXPECT_TRUE(torch::allclose(out.value, probs.select(2, 0) - probs.select(2, 2)));
  for (int row = 0; row < 3; ++row) EXPECT_EQ(probs[row][0].argmax().item<std::int64_t>(), row) << "row " << row;
  EXPECT_GT(out.value[0][0].item<float>(), 0.5f);
  EXPECT_NEAR(out.value[1][0].item<float>(), 0.0f, 0.3f);
  EXPECT_LT(out.value[2][0].item<float>(), -0.5f);

  // The search gets W − L per seat, in return units.
  const std::vector<float> values = engine_values_at_start(*game, net);
  EXPECT_FLOAT_EQ(values[0], -values[1]);
  EXPECT_LE(std::abs(values[0]), 1.0f);

  // Round trip through a checkpoint.
  const std::string path = temp_path("wdl.pt");
  LoadedModel loaded = saved_and_loaded(path, *game, net);
  EXPECT_EQ(loaded.info.network.value_head, "wdl");
  EXPECT_TRUE(torch::equal(loaded.net->heads(x).value_logits, out.value_logits));
  std::filesystem::remove(path);
}

// KataGo's auxiliary heads: they learn the final board and margin from the rows that have
// them, rows without them add nothing, the engine and checkpoints carry them, and a game with
// no board to own refuses them.
TEST_F(NnTest, AuxiliaryHeadsLearnTheFinalBoardFromTheRowsThatHaveIt) {
  const auto game = games::make_game("go:size=5");
  LearnerConfig lc;
  lc.network = small_net();
  lc.network.ownership = lc.network.score = true;
  lc.optimizer = {{"type", "adam"}, {"lr", 0.01}};
  lc.scheduler = {{"type", "constant"}, {"factor", 1.0}, {"total_iters", 1}};
  Learner learner(*game, lc, 3);
  const int n = 6;
  Batch batch = fixed_batch(*game, n, 5);
  const auto owners = torch::randint(-1, 2, {n, 25}).to(torch::kFloat);
  batch.ownership.assign(owners.data_ptr<float>(), owners.data_ptr<float>() + owners.numel());
  batch.score = {0.5f, -0.3f, 0.1f, 0.9f, -0.9f, 0.2f};
  batch.auxiliary_mask = {1, 1, 1, 1, 0, 0};
  double first_ownership = 0, first_score = 0;
  StepStats last;
  for (int i = 0; i < 200; ++i) {
    last = learner.train_step(batch);
    if (i == 0) first_ownership = last.ownership_loss, first_score = last.score_loss;
  }
  EXPECT_NEAR(first_ownership, std::log(2.0), 0.15);  // a fresh head says 50% everywhere
  EXPECT_LT(last.ownership_loss, 0.5 * first_ownership);
  EXPECT_LT(last.score_loss, 0.1 * first_score + 1e-3);
  auto& net = learner.network();
  net.eval();
  const games::Shape& s = game->info().observation_shape;
  const auto x = torch::from_blob(batch.observations.data(), {n, s.channels, s.height, s.width});
  const NetOutput out = net.heads(x);
  ASSERT_EQ(out.ownership.sizes(), (std::vector<std::int64_t>{n, 25}));
  for (int row = 0; row < 4; ++row) {
    EXPECT_NEAR(out.score[row][0].item<float>(), batch.score[static_cast<std::size_t>(row)], 0.15) << "row " << row;
    // Cells owned by a side are predicted for it.
    const auto predicted = torch::tanh(out.ownership[row]);
    EXPECT_GT((predicted * owners[row]).sum().item<float>(), 0.5f * owners[row].abs().sum().item<float>()) << "row " << row;
  }

  // Rows without the targets: the auxiliary losses are zero.
  Batch none = batch;
  none.auxiliary_mask.assign(static_cast<std::size_t>(n), 0.0f);
  const StepStats masked = learner.train_step(none);
  EXPECT_EQ(masked.ownership_loss, 0.0);
  EXPECT_EQ(masked.score_loss, 0.0);
  Batch missing = batch;
  missing.auxiliary_mask.clear();
  EXPECT_THROW(learner.train_step(missing), std::invalid_argument);

  // The engine ignores the heads; a checkpoint keeps them.
  EXPECT_LE(std::abs(engine_values_at_start(*game, net)[0]), 1.0f);
  const std::string path = temp_path("aux.pt");
  LoadedModel loaded = saved_and_loaded(path, *game, net);
  EXPECT_TRUE(loaded.info.network.ownership && loaded.info.network.score);
  net.eval();
  EXPECT_TRUE(torch::equal(loaded.net->heads(x).ownership, net.heads(x).ownership));
  std::filesystem::remove(path);

  const auto tictactoe = games::make_game("tictactoe");
  try {
    Learner refused(*tictactoe, lc, 3);
    ADD_FAILURE() << "tic-tac-toe took an ownership head";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("network.ownership"), std::string::npos) << e.what();
  }
}

// Model checkpoints as safetensors (nn/model_file.h): the same network and description as
// the LibTorch archive, read back by content whatever the name, and a damaged tensor refused.
TEST_F(NnTest, CheckpointsAlsoReadAndWriteSafetensors) {
  const auto game = games::make_game("go:size=5");
  NetConfig config = pooled_wdl_net();
  config.ownership = config.score = true;
  PolicyValueNet net = make_network(config, game->info());
  perturb_batch_norms(*net);
  net->eval();
  const std::string st = temp_path("model.safetensors"), pt = temp_path("model.pt");
  LoadedModel from_st = saved_and_loaded(st, *game, *net);
  LoadedModel from_pt = saved_and_loaded(pt, *game, *net);
  EXPECT_EQ(from_st.info.network, config);
  EXPECT_EQ(from_st.info.parameters, net->parameter_count());
  EXPECT_EQ(read_model_info(st).game, game->spec().to_string());
  const games::Shape& s = game->info().observation_shape;
  const auto x = torch::rand({3, s.channels, s.height, s.width});
  const NetOutput want = net->heads(x), a = from_st.net->heads(x), b = from_pt.net->heads(x);
  for (const NetOutput* got : {&a, &b}) {
    EXPECT_TRUE(torch::equal(got->policy, want.policy));
    EXPECT_TRUE(torch::equal(got->value_logits, want.value_logits));
    EXPECT_TRUE(torch::equal(got->ownership, want.ownership));
  }
  // A network does not see Go's ko rule or move cap: the model plays under either (games/game.h
  // network_spec), and not on another board.
  EXPECT_NO_THROW(load_model_for(pt, *games::make_game("go:size=5,ko=simple,max_moves=60")));
  EXPECT_THROW(load_model_for(pt, *games::make_game("go:size=7")), util::UsageError);
  EXPECT_THROW(load_model_for(pt, *games::make_game("go:size=5,komi=5.5")), util::UsageError);
  // Renamed, it is still read by its content.
  const std::string renamed = temp_path("model-renamed.pt");
  std::filesystem::rename(st, renamed);
  EXPECT_TRUE(torch::equal(load_model(renamed).net->heads(x).policy, want.policy));
  {
    std::fstream f(renamed, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    f.put('\x55');
  }
  try {
    load_model(renamed);
    ADD_FAILURE() << "a damaged safetensors model loaded";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
  }
  std::filesystem::remove(renamed);
  std::filesystem::remove(pt);
}

TEST_F(NnTest, EngineReturnsValuesInTheNetworksValueRange) {
  const auto game = games::make_game("2048");
  NetConfig config = small_net();
  config.value_range = {0.0, 4000.0};
  auto net = make_network(config, game->info());
  net->eval();
  InferenceEngine engine(*game, net->config(), export_weights(*net), {1, 0});
  auto state = game->new_initial_state();
  while (state->is_chance_node()) state->apply_action(state->legal_actions()[0]);
  const auto legal = state->legal_actions();
  std::vector<float> priors(legal.size()), value(1), obs(static_cast<std::size_t>(game->info().observation_shape.size()));
  std::vector<mcts::EvalRequest> request{{state.get(), legal, priors.data(), value.data()}};
  engine.evaluate(request);
  state->observation(0, obs.data());
  const games::Shape& s = game->info().observation_shape;
  const float raw = net->forward(torch::from_blob(obs.data(), {1, s.channels, s.height, s.width})).second.item<float>();
  EXPECT_NEAR(value[0], 2000.0f * (raw + 1.0f), 1e-2);
}

TEST_F(NnTest, CheckpointsFromBeforeValueHeadsLoadAsScalar) {
  const auto game = games::make_game("tictactoe");
  auto net = make_network(small_net(), game->info());
  ModelInfo info;
  info.game = game->spec().to_string();
  info.network = small_net();
  nlohmann::json description = info.to_json();
  description["network"].erase("value_head");  // what format-1 files written before the option hold
  description["format"] = 1;                     // and without a weights checksum
  description.erase("weights_checksum");
  const std::string path = temp_path("old.pt");
  torch::serialize::OutputArchive archive, weights;
  archive.write("polyzero", c10::IValue(description.dump()));
  net->save(weights);
  archive.write("weights", weights);
  archive.save_to(path);
  LoadedModel loaded = load_model_for(path, *game);
  EXPECT_EQ(loaded.info.network.value_head, "scalar");
  EXPECT_EQ(loaded.info.network, small_net());
  std::filesystem::remove(path);
}

// A flipped bit inside a tensor's stored bytes leaves a readable archive: only the checksum
// of the weights tells that the model would play with altered weights.
TEST_F(NnTest, ModelsWithDamagedWeightsAreRefusedByTheirChecksum) {
  const auto game = games::make_game("tictactoe");
  auto net = make_network(small_net(), game->info());
  ModelInfo info;
  info.game = game->spec().to_string();
  info.network = small_net();
  const std::string path = temp_path("damaged.pt");
  save_model(path, *net, info);
  EXPECT_EQ(load_model(path).info.weights_checksum.size(), 16u);

  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  // The stem convolution's first weights, as stored.
  const torch::Tensor w = net->named_parameters()["stem_conv.weight"].contiguous();
  const std::string needle(static_cast<const char*>(w.data_ptr()), 64);
  const auto at = bytes.find(needle);
  ASSERT_NE(at, std::string::npos);
  bytes[at + 3] = static_cast<char>(bytes[at + 3] ^ 0x10);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  try {
    load_model(path);
    FAIL() << "a damaged model loaded";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("do not match their checksum"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

TEST_F(NnTest, NonFiniteWeightsAreNeverWritten) {
  const auto game = games::make_game("tictactoe");
  auto net = make_network(small_net(), game->info());
  {
    torch::NoGradGuard no_grad;
    net->named_parameters()["stem_conv.weight"][0][0][0][0] = std::numeric_limits<float>::quiet_NaN();
  }
  EXPECT_FALSE(all_finite(*net));
  ModelInfo info;
  info.game = game->spec().to_string();
  info.network = small_net();
  const std::string path = temp_path("nan.pt");
  EXPECT_THROW(save_model(path, *net, info), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(path));
}

// A batch that makes the loss NaN: the step throws before the optimiser moves, so the
// weights stay as they were and the step counter does not advance.
TEST_F(NnTest, ANonFiniteLossStopsTheStepBeforeTheWeightsChange) {
  const auto game = games::make_game("tictactoe");
  LearnerConfig lc;
  lc.network = small_net();
  Learner learner(*game, lc, 3);
  Batch batch = fixed_batch(*game, 4, 9);
  learner.train_step(batch);
  const std::uint64_t before = weights_checksum(learner.network());
  batch.observations[0] = std::numeric_limits<float>::quiet_NaN();
  try {
    learner.train_step(batch);
    FAIL() << "a NaN loss did not stop the step";
  } catch (const TrainingDiverged& e) {
    EXPECT_EQ(e.step(), 2);
    EXPECT_NE(std::string(e.what()).find("loss is nan"), std::string::npos) << e.what();
  }
  EXPECT_EQ(learner.step(), 1);
  EXPECT_EQ(weights_checksum(learner.network()), before);
  EXPECT_TRUE(all_finite(learner.network()));
}

// The trainer end to end on a pooled win/draw/loss network: synchronous runs from one seed
// give the same weights, and a resumed run continues from its checkpoint.
TEST_F(NnTest, SynchronousTrainingIsReproducibleAndResumes) {
  auto j = default_train_config();
  j["game"] = "tictactoe";
  j["network"] = pooled_wdl_net().to_json();
  j["selfplay"].merge_patch({{"threads", 1}, {"games_per_thread", 4}, {"simulations", 8}, {"synchronous", true},
                             {"resign", false}, {"cache_entries", 1024}});
  j["replay"].merge_patch({{"min_samples", 40}, {"max_replay_ratio", 4.0}});
  j["learner"].merge_patch({{"batch_size", 16}, {"steps", 12}});
  j["eval"]["every_steps"] = 0;
  j["checkpoint"]["every_steps"] = 6;
  const TrainConfig config = parse_train_config(j);
  auto run = [&](const std::string& dir, std::int64_t steps, bool resume) {
    TrainOptions options;
    options.run_dir = dir;
    options.max_steps = steps;
    options.resume = resume;
    options.quiet = true;
    return train(config, options);
  };
  const std::string a = temp_path("sync_a"), b = temp_path("sync_b");
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
  const TrainResult ra = run(a, 12, false);
  EXPECT_EQ(ra.step, 12);
  EXPECT_EQ(run(b, 6, false).step, 6);
  const TrainResult rb = run(b, 12, true);
  EXPECT_EQ(rb.step, 12);
  LoadedModel ma = load_model(a + "/models/latest.pt"), mb = load_model(b + "/models/latest.pt");
  EXPECT_EQ(ma.info.network.value_head, "wdl");
  EXPECT_EQ(ma.info.network.type, "pooled");
  EXPECT_EQ(mb.info.step, 12);
  // The first six steps of both runs saw the same games; after b's resume its actors draw
  // new random streams, so only the step counts must agree from there.
  const TrainResult rc = run(temp_path("sync_c"), 12, false);
  LoadedModel mc = load_model(temp_path("sync_c") + "/models/latest.pt");
  EXPECT_EQ(rc.games, ra.games);
  auto pa = ma.net->named_parameters();
  auto pc = mc.net->named_parameters();
  for (const auto& item : pa) EXPECT_TRUE(torch::equal(item.value(), pc[item.key()])) << item.key();
  for (const auto& d : {a, b, temp_path("sync_c")}) std::filesystem::remove_all(d);
}

}  // namespace
}  // namespace pz::nn
