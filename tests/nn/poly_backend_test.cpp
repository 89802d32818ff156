// The poly backend against the torch backend on the same weights: every layer kind
// (3×3 and 1×1 convolutions with folded batch-norm, residual adds, linear layers, global
// pooling and the biases it feeds, the scalar and win/draw/loss value heads, board-sized
// and flat policies) of both network types, board sizes and
// channel counts that do not divide the register blocks, batches that do not divide the
// micro-batch; Winograd 3×3 convolutions (every tile size, boards the tile does not divide,
// the cost model's choice) and the direct ones; then through InferenceEngine: priors,
// values, hot swap and cancel.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <unistd.h>

#include "games/registry.h"
#include "mcts/search.h"
#include "nn/backend.h"
#include "nn/inference_engine.h"
#include "nn/network.h"
#include "nn/poly/network.h"
#include "nn/poly/winograd.h"
#include "util/error.h"
#include "util/files.h"
#include "util/rng.h"

namespace pz::nn {
namespace {

namespace fs = std::filesystem;

// One kernel cache for the test processes (each test runs in its own): each network
// compiles once. Entries are keyed by source and flags, so a stale one is never used.
const std::string& cache_dir() {
  static const std::string dir = (fs::temp_directory_path() / "pz_poly_backend_test_kernels").string();
  return dir;
}

class PolyBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::set_num_threads(1);
    torch::manual_seed(7);
  }
};

// A residual tower of `blocks` blocks of `channels` channels, the rest as NetConfig has it.
NetConfig tower(int blocks, int channels) {
  NetConfig c;
  c.blocks = blocks;
  c.channels = channels;
  return c;
}

BackendOptions backend(const std::string& name) {
  BackendOptions o;
  o.name = name;
  o.cache_dir = cache_dir();
  return o;
}

// Largest |a − b| relative to the largest |b| (at least 1).
double relative_error(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, scale = 1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, static_cast<double>(std::abs(a[i] - b[i])));
    scale = std::max(scale, static_cast<double>(std::abs(b[i])));
  }
  return diff / scale;
}

// winograd: BackendOptions::winograd of the poly backend ("auto", "off", "2", "3", "4").
void expect_backends_agree(const std::string& game_spec, const NetConfig& config, const std::string& winograd = "auto") {
  const auto game = games::make_game(game_spec);
  const NetShape shape = net_shape(game->info());
  auto net = make_network(config, game->info());
  perturb_batch_norms(*net);
  const NetWeights weights = export_weights(*net);
  auto torch_backend = make_backend(backend("torch"), config, shape);
  BackendOptions poly_options = backend("poly");
  poly_options.winograd = winograd;
  auto poly_backend = make_backend(poly_options, config, shape);
  torch_backend->load(weights);
  poly_backend->load(weights);
  util::Rng rng(11);
  for (int rows : {1, 3, 64}) {
    std::vector<float> input(static_cast<std::size_t>(rows * shape.input.size()));
    for (float& x : input) x = rng.uniform() < 0.5 ? 0.0f : static_cast<float>(rng.uniform());
    const std::size_t p = static_cast<std::size_t>(rows * shape.policy.size()), v = static_cast<std::size_t>(rows * shape.value_outputs);
    std::vector<float> tp(p), tv(v), pp(p, NAN), pv(v, NAN);
    torch_backend->forward(input.data(), rows, tp.data(), tv.data());
    poly_backend->forward(input.data(), rows, pp.data(), pv.data());
    EXPECT_LE(relative_error(pp, tp), 1e-4) << game_spec << " policy, batch " << rows << ", winograd " << winograd;
    EXPECT_LE(relative_error(pv, tv), 1e-4) << game_spec << " value, batch " << rows << ", winograd " << winograd;
  }
}

// Direct convolutions (AutomaticWinogradMatchesTorch runs this net as the cost model chooses).
TEST_F(PolyBackendTest, MatchesTorchOnTheDefaultConnectFourNet) {
  NetConfig c = tower(3, 32);
  expect_backends_agree("connect4", c, "off");
}

// 13 channels (no whole vector), 5×5 board (rows of 5), board-sized policy, WDL value.
TEST_F(PolyBackendTest, MatchesTorchWithOddShapesAndWdl) {
  NetConfig c = tower(2, 13);
  c.policy_channels = 3;
  c.value_channels = 3;
  c.value_hidden = 11;
  c.value_head = "wdl";
  expect_backends_agree("hex:size=5", c);
}

// 9×9 with 40 channels, direct: two balanced row blocks per row and a partial vector block.
TEST_F(PolyBackendTest, MatchesTorchOnGoNineByNine) {
  NetConfig c = tower(1, 40);
  expect_backends_agree("go", c, "off");
}

// A game whose values are one per seat (no zero-sum shortcut) and a flat policy.
TEST_F(PolyBackendTest, MatchesTorchWithOneValuePerSeat) {
  NetConfig c = tower(1, 16);
  expect_backends_agree("tron", c);
}

TEST_F(PolyBackendTest, PlannedArenaIsSmallerThanOneRegionPerTensor) {
  const auto game = games::make_game("connect4");
  NetConfig c = tower(3, 32);
  PolyNetwork net(c, net_shape(game->info()), 0, /*winograd=*/0);
  EXPECT_LT(net.arena_floats(), net.unplanned_arena_floats());
  net.source();
  ASSERT_FALSE(net.layers().empty());
  int blocked = 0;
  for (const auto& layer : net.layers()) blocked += layer.schedule == "register-blocked reduction chain";
  EXPECT_EQ(blocked, 1 + 2 * 3 + 2 + 3);  // stem, tower, two 1×1 convs, three linear layers
  EXPECT_NEAR(net.flops_per_position(), 4.72e6, 0.05e6);
  // A 19×19 board with 128 channels gets fewer positions per micro-batch.
  NetConfig big;
  big.blocks = 1;
  big.channels = 128;
  PolyNetwork go19(big, net_shape(games::make_game("go:size=19")->info()));
  EXPECT_LE(net.micro_batch(), 16);
  EXPECT_LT(go19.micro_batch(), net.micro_batch());
}

// KataGo-style: global pooling blocks (the 2nd block), pooled heads; a flat policy from
// pooled features (Connect Four) and a board-sized one with a pooled bias (Hex), WDL.
TEST_F(PolyBackendTest, MatchesTorchOnPooledNetworks) {
  NetConfig c;
  c.type = "pooled";
  c.blocks = 3;
  c.channels = 24;
  c.global_channels = 8;
  expect_backends_agree("connect4", c);
  c.channels = 13;
  c.global_channels = 5;
  c.policy_channels = 3;
  c.value_head = "wdl";
  expect_backends_agree("hex:size=5", c);
}

// The Toom-Cook matrices of F(m, 3) compute the 1-D correlation y_i = Σ_k g_k d_{i+k}
// exactly (in double): y = Aᵀ [(G g) ⊙ (Bᵀ d)].
TEST(PolyWinogradTest, MatricesComputeTheCorrelation) {
  util::Rng rng(4);
  for (int m = 2; m <= 4; ++m) {
    const WinogradMatrices w = winograd_matrices(m);
    ASSERT_EQ(w.alpha, m + 2);
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<double> d(static_cast<std::size_t>(w.alpha)), g(3);
      for (double& x : d) x = rng.uniform() * 2 - 1;
      for (double& x : g) x = rng.uniform() * 2 - 1;
      std::vector<double> product(static_cast<std::size_t>(w.alpha));
      for (int a = 0; a < w.alpha; ++a) {
        double u = 0, v = 0;
        for (int k = 0; k < 3; ++k) u += w.g[static_cast<std::size_t>(a * 3 + k)] * g[static_cast<std::size_t>(k)];
        for (int j = 0; j < w.alpha; ++j) v += w.bt[static_cast<std::size_t>(a * w.alpha + j)] * d[static_cast<std::size_t>(j)];
        product[static_cast<std::size_t>(a)] = u * v;
      }
      for (int i = 0; i < m; ++i) {
        double y = 0, direct = 0;
        for (int a = 0; a < w.alpha; ++a) y += w.at[static_cast<std::size_t>(i * w.alpha + a)] * product[static_cast<std::size_t>(a)];
        for (int k = 0; k < 3; ++k) direct += g[static_cast<std::size_t>(k)] * d[static_cast<std::size_t>(i + k)];
        EXPECT_NEAR(y, direct, 1e-12) << "F(" << m << ",3), output " << i;
      }
    }
  }
  EXPECT_THROW(winograd_matrices(5), std::invalid_argument);
}

// Go 9×9 with 48 channels: F(3×3) tiles the board exactly. Few input channels (a stem) do
// not pay for the transforms; a wide 19×19 net pays for F(4×4)'s.
TEST(PolyWinogradTest, CostModelChoosesTheTile) {
  EXPECT_EQ(choose_winograd_tile(9, 9, 48, 48).m, 3);
  EXPECT_LT(choose_winograd_tile(9, 9, 48, 48).cost, 0.6);
  EXPECT_EQ(choose_winograd_tile(6, 7, 32, 32).m, 3);  // Connect Four: 2×3 tiles beat 3×4 of F(2×2)
  EXPECT_EQ(choose_winograd_tile(6, 7, 3, 32).m, 0);
  EXPECT_EQ(choose_winograd_tile(9, 9, 2, 2).m, 0);
  EXPECT_EQ(choose_winograd_tile(19, 19, 128, 128).m, 4);
}

// The plan: each Winograd convolution is five register-blocked chains; the FLOPs stay the
// direct convolution's; off means no Winograd stage at all.
TEST(PolyWinogradTest, PlanReportsTheChoice) {
  const auto game = games::make_game("go");
  NetConfig c = tower(1, 48);
  PolyNetwork wino(c, net_shape(game->info())), direct(c, net_shape(game->info()), 0, 0);
  EXPECT_DOUBLE_EQ(wino.flops_per_position(), direct.flops_per_position());
  wino.source();
  direct.source();
  int products = 0, blocked = 0;
  for (const auto& layer : wino.layers()) {
    products += layer.kind == "wino-product";
    blocked += layer.kind.rfind("wino", 0) == 0 && layer.schedule == "register-blocked reduction chain";
    if (layer.kind == "wino-product") {
      ASSERT_FALSE(layer.passes.empty());
      EXPECT_EQ(layer.passes.front().rfind("winograd: F(3x3,3x3)", 0), 0u) << layer.passes.front();
    }
  }
  EXPECT_GE(products, 2);  // at least the tower's two convolutions
  EXPECT_EQ(blocked, 5 * products);
  for (const auto& layer : direct.layers()) EXPECT_NE(layer.kind.rfind("wino", 0), 0u) << layer.name;
}

// Winograd convolutions against torch: every tile size, boards the tile does not divide
// (5×7 and 6×7 for F(2×2) and F(3×3), 9×9 for F(4×4)) or that are smaller than one tile
// (3×3 with F(4×4)), odd channel counts (13, the stem's input planes), both network types.
TEST_F(PolyBackendTest, WinogradMatchesTorch) {
  NetConfig c = tower(1, 13);
  expect_backends_agree("connect4:height=5", c, "2");
  expect_backends_agree("hex:size=3", c, "4");
  c.channels = 16;
  expect_backends_agree("go", c, "4");
  NetConfig pooled;
  pooled.type = "pooled";
  pooled.blocks = 2;
  pooled.channels = 13;
  pooled.global_channels = 5;
  pooled.value_head = "wdl";
  expect_backends_agree("connect4", pooled, "3");
}

// What the cost model chooses for the default Connect Four net and a Go 9×9 tower.
TEST_F(PolyBackendTest, AutomaticWinogradMatchesTorch) {
  NetConfig c = tower(3, 32);
  expect_backends_agree("connect4", c, "auto");
  c.blocks = 1;
  c.channels = 48;
  expect_backends_agree("go", c, "auto");
}

// With the model's Winograd layers, "auto" runs the faster of that plan and the all-direct
// one, measured once on this machine, and keeps the answer in the kernel cache
// (`<key>.winograd`): a later process reads it and runs the plan it names. Here copies of
// the cache with the answer set each way: "direct" runs exactly the code of "off" (the same
// outputs bit for bit), "winograd" the model's plan (other roundings).
TEST_F(PolyBackendTest, AutoPlanIsMeasuredOnceAndKeptInTheCache) {
  const auto game = games::make_game("connect4");
  const NetShape shape = net_shape(game->info());
  NetConfig c = tower(1, 32);
  auto net = make_network(c, game->info());
  perturb_batch_norms(*net);
  const NetWeights weights = export_weights(*net);
  const int rows = 5;
  std::vector<float> input(static_cast<std::size_t>(rows * shape.input.size()));
  util::Rng rng(3);
  for (float& x : input) x = rng.uniform() < 0.5 ? 0.0f : 1.0f;
  auto outputs = [&](const std::string& dir, const std::string& winograd) {
    BackendOptions o = backend("poly");
    o.cache_dir = dir;
    o.winograd = winograd;
    auto b = make_backend(o, c, shape);
    b->load(weights);
    std::vector<float> policy(static_cast<std::size_t>(rows * shape.policy.size()));
    std::vector<float> values(static_cast<std::size_t>(rows * shape.value_outputs));
    b->forward(input.data(), rows, policy.data(), values.data());
    policy.insert(policy.end(), values.begin(), values.end());
    return policy;
  };
  const fs::path root = fs::temp_directory_path() / ("pz_poly_plan_choice_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path measured = root / "measured";
  fs::create_directories(measured);
  fs::create_directories(cache_dir());
  fs::copy(cache_dir(), measured, fs::copy_options::recursive);  // compiled plans, not choices
  for (const auto& e : fs::directory_iterator(measured))
    if (e.path().extension() == ".winograd") fs::remove(e.path());
  const std::vector<float> automatic = outputs(measured.string(), "auto");
  std::vector<fs::path> choices;
  for (const auto& e : fs::directory_iterator(measured))
    if (e.path().extension() == ".winograd") choices.push_back(e.path());
  ASSERT_EQ(choices.size(), 1u);
  const std::string choice = util::read_text_file(choices[0].string());
  ASSERT_TRUE(choice == "direct\n" || choice == "winograd\n") << choice;

  const std::vector<float> direct = outputs(measured.string(), "off");
  EXPECT_EQ(automatic == direct, choice == "direct\n");
  for (const std::string forced : {"direct\n", "winograd\n"}) {
    const fs::path copy = root / forced.substr(0, forced.size() - 1);
    fs::copy(measured, copy, fs::copy_options::recursive);
    util::write_text_atomically((copy / choices[0].filename()).string(), forced);
    const std::vector<float> out = outputs(copy.string(), "auto");
    EXPECT_EQ(out == direct, forced == "direct\n") << forced;
  }
  fs::remove_all(root);
}

// A plan's source is generated once per executable and kept in the kernel cache: a backend
// made on a copy of that cache compiles the source it finds there (here with a comment
// added to it) rather than running polyc again.
TEST_F(PolyBackendTest, PlanSourcesAreGeneratedOnceAndKeptInTheCache) {
  const auto game = games::make_game("connect4");
  const NetShape shape = net_shape(game->info());
  NetConfig c = tower(1, 8);
  const fs::path root = fs::temp_directory_path() / ("pz_poly_plan_source_" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto make = [&](const fs::path& dir) {
    BackendOptions o = backend("poly");
    o.cache_dir = dir.string();
    o.winograd = "off";
    return make_backend(o, c, shape);
  };
  make(root / "first");
  std::vector<fs::path> sources;
  for (const auto& e : fs::directory_iterator(root / "first"))
    if (e.path().filename().string().rfind("source-", 0) == 0) sources.push_back(e.path());
  ASSERT_EQ(sources.size(), 1u);
  const std::string generated = util::read_text_file(sources[0].string());
  EXPECT_NE(generated.find("void pz_forward("), std::string::npos) << generated;

  fs::copy(root / "first", root / "second", fs::copy_options::recursive);
  const std::string marked = generated + "/* read from the cache */\n";
  util::write_text_atomically((root / "second" / sources[0].filename()).string(), marked);
  make(root / "second");
  bool compiled_marked = false;
  for (const auto& e : fs::directory_iterator(root / "second"))
    if (e.path().extension() == ".c" && e.path().filename().string().rfind("source-", 0) != 0)
      compiled_marked = compiled_marked || util::read_text_file(e.path().string()) == marked;
  EXPECT_TRUE(compiled_marked);
  fs::remove_all(root);
}

// A team of threads claims micro-batches; each runs the same kernel: identical outputs.
TEST_F(PolyBackendTest, ThreadsGiveTheSameOutputsAsOne) {
  const auto game = games::make_game("connect4");
  const NetShape shape = net_shape(game->info());
  NetConfig c = tower(1, 16);
  auto net = make_network(c, game->info());
  perturb_batch_norms(*net);
  BackendOptions team = backend("poly");
  team.threads = 2;
  auto one = make_backend(backend("poly"), c, shape), two = make_backend(team, c, shape);
  one->load(export_weights(*net));
  two->load(export_weights(*net));
  const int rows = 70;  // four full micro-batches and a partial one
  util::Rng rng(2);
  std::vector<float> input(static_cast<std::size_t>(rows * shape.input.size()));
  for (float& x : input) x = static_cast<float>(rng.uniform());
  std::vector<float> p1(static_cast<std::size_t>(rows * shape.policy.size())), p2(p1.size());
  std::vector<float> v1(static_cast<std::size_t>(rows * shape.value_outputs)), v2(v1.size());
  for (int repeat = 0; repeat < 3; ++repeat) {
    one->forward(input.data(), rows, p1.data(), v1.data());
    two->forward(input.data(), rows, p2.data(), v2.data());
    EXPECT_EQ(p1, p2);
    EXPECT_EQ(v1, v2);
  }
}

TEST_F(PolyBackendTest, UnknownBackendIsAUsageError) {
  const auto game = games::make_game("connect4");
  EXPECT_THROW(make_backend(backend("tensorflow"), NetConfig{}, net_shape(game->info())), util::UsageError);
}

// A position after up to `moves` random moves.
std::unique_ptr<games::State> random_position(const games::Game& game, util::Rng& rng, int moves) {
  auto s = game.new_initial_state();
  for (int m = 0; m < moves && !s->is_terminal(); ++m) {
    const auto legal = s->legal_actions();
    s->apply_action(legal[static_cast<std::size_t>(rng.uniform() * static_cast<double>(legal.size())) % legal.size()]);
  }
  return s;
}

// A torch and a poly engine over the same random Connect Four network of `channels`.
struct EnginePair {
  std::shared_ptr<const games::Game> game = games::make_game("connect4");
  NetConfig config;
  std::unique_ptr<InferenceEngine> torch, poly;

  explicit EnginePair(int channels) {
    config.blocks = 2;
    config.channels = channels;
    auto net = make_network(config, game->info());
    perturb_batch_norms(*net);
    InferenceOptions torch_options, poly_options;
    torch_options.backend = backend("torch");
    poly_options.backend = backend("poly");
    torch = std::make_unique<InferenceEngine>(*game, config, export_weights(*net), torch_options);
    poly = std::make_unique<InferenceEngine>(*game, config, export_weights(*net), poly_options);
  }
};

// Through the engine: the same priors and values as torch, hot swap, cancel.
TEST_F(PolyBackendTest, EngineAgreesWithTorchAndSwapsAndCancels) {
  EnginePair engines(24);
  const auto& game = engines.game;
  const NetConfig& c = engines.config;
  InferenceEngine& torch_engine = *engines.torch;
  InferenceEngine& poly_engine = *engines.poly;
  EXPECT_EQ(poly_engine.backend_name(), "poly");
  util::Rng rng(3);
  std::vector<std::unique_ptr<games::State>> states;
  for (int i = 0; i < 40; ++i) {
    auto s = random_position(*game, rng, static_cast<int>(rng.uniform() * 12));
    if (!s->is_terminal()) states.push_back(std::move(s));
  }
  auto evaluate = [&](InferenceEngine& engine, std::vector<std::vector<float>>& priors, std::vector<std::vector<float>>& values) {
    std::vector<std::vector<games::Action>> legal(states.size());
    std::vector<mcts::EvalRequest> batch;
    priors.assign(states.size(), {});
    values.assign(states.size(), std::vector<float>(2));
    for (std::size_t i = 0; i < states.size(); ++i) {
      legal[i] = states[i]->legal_actions();
      priors[i].resize(legal[i].size());
      batch.push_back({states[i].get(), legal[i], priors[i].data(), values[i].data()});
    }
    engine.evaluate(batch);
  };
  std::vector<std::vector<float>> tp, tv, pp, pv;
  evaluate(torch_engine, tp, tv);
  evaluate(poly_engine, pp, pv);
  for (std::size_t i = 0; i < states.size(); ++i) {
    EXPECT_LE(relative_error(pp[i], tp[i]), 1e-4);
    EXPECT_LE(relative_error(pv[i], tv[i]), 1e-4);
  }
  // New weights reach both engines the same way.
  auto other = make_network(c, game->info());
  perturb_batch_norms(*other);
  torch_engine.publish(export_weights(*other));
  poly_engine.publish(export_weights(*other));
  std::vector<std::vector<float>> tp2, tv2, pp2, pv2;
  evaluate(torch_engine, tp2, tv2);
  evaluate(poly_engine, pp2, pv2);
  EXPECT_NE(pp2, pp);
  for (std::size_t i = 0; i < states.size(); ++i) {
    EXPECT_LE(relative_error(pp2[i], tp2[i]), 1e-4);
    EXPECT_LE(relative_error(pv2[i], tv2[i]), 1e-4);
  }
  poly_engine.cancel();
  EXPECT_THROW(evaluate(poly_engine, pp2, pv2), Cancelled);
}

// PUCT searches over each backend pick the same moves wherever the torch search's choice is
// clear (its top move has at least 10% of the visits more than the next one).
TEST_F(PolyBackendTest, SearchesPlayTheSameMovesAsTorch) {
  EnginePair engines(16);
  const auto& game = engines.game;
  mcts::SearchConfig config;
  config.simulations = 200;
  util::Rng rng(9);
  int compared = 0;
  for (int position = 0; position < 24; ++position) {
    auto state = random_position(*game, rng, 2 + position % 10);
    if (state->is_terminal()) continue;
    auto search_with = [&](InferenceEngine& engine) {
      mcts::Search search(*game, config, 42);
      search.set_root(*state);
      return search.run(engine);
    };
    const mcts::SearchReport t = search_with(*engines.torch), p = search_with(*engines.poly);
    std::vector<std::int64_t> visits;
    for (const auto& child : t.children) visits.push_back(child.visits);
    std::sort(visits.rbegin(), visits.rend());
    if (visits.size() < 2 || visits[0] - visits[1] < config.simulations / 10) continue;
    ++compared;
    EXPECT_EQ(p.most_visited()->action, t.most_visited()->action) << state->to_string();
  }
  EXPECT_GE(compared, 8);
}

}  // namespace
}  // namespace pz::nn
