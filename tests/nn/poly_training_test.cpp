// The poly learner's network pass (nn/poly/training.h) against LibTorch's network on the same
// weights: outputs, the batch-norm running statistics, and through autograd the gradient
// of every parameter, for both network types, scalar and win/draw/loss value heads,
// board-sized and flat policies, the auxiliary heads (ownership, score), channel counts and
// boards that divide no register block, and odd batches. The same without LibTorch
// (nn/poly/backprop.h) against a torch learner's step. Then the learner: a poly learner's steps
// track a torch learner's.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "games/registry.h"
#include "nn/checkpoint.h"
#include "nn/learner.h"
#include "nn/network.h"
#include "nn/poly/backprop.h"
#include "nn/poly/learner.h"
#include "nn/poly/training.h"
#include "nn/poly/training_report.h"
#include "solve/solver.h"
#include "tests/nn/random_batch.h"
#include "util/rng.h"

namespace pz::nn {
namespace {

namespace fs = std::filesystem;

const std::string& cache_dir() {
  static const std::string dir = (fs::temp_directory_path() / "pz_poly_training_test_kernels").string();
  return dir;
}

// Largest |a − b| relative to the largest |b|, or to `floor` when that is larger: a
// gradient that is zero in exact arithmetic (a bias added before a batch norm, which
// removes it) is rounding noise in both, compared against the network's gradients.
double relative_error(const torch::Tensor& a, const torch::Tensor& b, double floor = 1e-3) {
  const double scale = std::max(floor, b.abs().max().item<double>());
  return (a - b).abs().max().item<double>() / scale;
}

struct Case {
  std::string game;
  NetConfig config;
  int batch;
  int fusion_batch = 0;  // the batch the backward fusions are weighed for (0: none fused)
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.game + "_" + info.param.config.type + "_" + info.param.config.value_head +
                     (info.param.config.auxiliary() ? "_aux" : "") + "_n" +
                     std::to_string(info.param.batch) + (info.param.fusion_batch > 0 ? "_fused" : "");
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

NetConfig config(const std::string& type, int blocks, int channels, const std::string& value_head = "scalar") {
  NetConfig c;
  c.type = type;
  c.blocks = blocks;
  c.channels = channels;
  c.policy_channels = 3;
  c.value_channels = 2;
  c.value_hidden = 9;
  c.global_channels = 5;
  c.value_head = value_head;
  return c;
}

NetConfig with_auxiliary_heads(NetConfig c) {
  c.ownership = c.score = true;
  return c;
}

class PolyTrainingNetTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    torch::set_num_threads(1);
    torch::manual_seed(11);
  }
};

// Random weights for every output: a loss that weighs each differently exercises every
// gradient path.
struct ProbeWeights {
  torch::Tensor policy, value, ownership, score;
};

ProbeWeights probe_weights(const NetOutput& out) {
  ProbeWeights w;
  w.policy = torch::randn(out.policy.sizes());
  w.value = torch::randn(out.value_logits.defined() ? out.value_logits.flatten(1).sizes() : out.value.sizes());
  if (out.ownership.defined()) w.ownership = torch::randn(out.ownership.sizes());
  if (out.score.defined()) w.score = torch::randn(out.score.sizes());
  return w;
}

torch::Tensor probe_loss(const NetOutput& out, const ProbeWeights& w) {
  torch::Tensor loss = (out.policy * w.policy).sum();
  if (out.value_logits.defined()) loss = loss + (out.value_logits.flatten(1) * w.value).sum();
  else loss = loss + (out.value * w.value).sum();
  if (out.ownership.defined()) loss = loss + (out.ownership * w.ownership).sum();
  if (out.score.defined()) loss = loss + (out.score * w.score).sum();
  return loss;
}

TEST_P(PolyTrainingNetTest, OutputsStatisticsAndGradientsMatchTorch) {
  const Case& c = GetParam();
  const auto game = games::make_game(c.game);
  const NetShape shape = net_shape(game->info());
  PolicyValueNet torch_net(c.config, shape), poly_net(c.config, shape);
  perturb_batch_norms(*torch_net);
  copy_weights(*torch_net, *poly_net);
  torch_net->train();
  poly_net->train();
  const games::Shape& in = shape.input;
  const torch::Tensor x = torch::randn({c.batch, in.channels, in.height, in.width});

  const PolyTrainingNet poly(c.config, shape, c.fusion_batch, cache_dir());
  if (c.fusion_batch > 0) {
    int one_sweep = 0;
    for (const BatchNormShape& s : poly.shapes().batch_norms) one_sweep += s.one_sweep_backward;
    EXPECT_GT(one_sweep, 0) << "at " << c.fusion_batch << " positions a sweep over the activations is worth saving";
    EXPECT_FALSE(poly.shapes().conv_batch_norms.empty()) << "and a padded copy of a convolution's gradient";
  }
  const NetOutput expected = torch_net->heads(x);
  const NetOutput got = poly.heads(*poly_net, x);
  ASSERT_EQ(got.policy.sizes(), expected.policy.sizes());
  ASSERT_EQ(got.value.sizes(), expected.value.sizes());
  EXPECT_LT(relative_error(got.policy, expected.policy), 1e-4);
  EXPECT_LT(relative_error(got.value, expected.value), 1e-4);
  if (c.config.wdl()) {
    EXPECT_LT(relative_error(got.value_logits, expected.value_logits), 1e-4);
  }
  ASSERT_EQ(got.ownership.defined(), c.config.ownership);
  ASSERT_EQ(got.score.defined(), c.config.score);
  if (c.config.ownership) {
    ASSERT_EQ(got.ownership.sizes(), (std::vector<std::int64_t>{c.batch, in.plane_size()}));
    EXPECT_LT(relative_error(got.ownership, expected.ownership), 1e-4);
  }
  if (c.config.score) {
    ASSERT_EQ(got.score.sizes(), (std::vector<std::int64_t>{c.batch, 1}));
    EXPECT_LT(relative_error(got.score, expected.score), 1e-4);
  }

  const ProbeWeights w = probe_weights(expected);
  probe_loss(expected, w).backward();
  probe_loss(got, w).backward();
  auto expected_params = torch_net->named_parameters(true);
  double largest = 0;
  for (const auto& p : torch_net->parameters()) largest = std::max(largest, p.grad().abs().max().item<double>());
  int checked = 0;
  for (const auto& item : poly_net->named_parameters(true)) {
    const torch::Tensor& want = expected_params[item.key()].grad();
    ASSERT_TRUE(item.value().grad().defined()) << item.key();
    EXPECT_LT(relative_error(item.value().grad(), want, 1e-2 * largest), 1e-4) << item.key();
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(torch_net->parameters().size()));
  auto expected_buffers = torch_net->named_buffers(true);
  for (const auto& item : poly_net->named_buffers(true)) {
    const torch::Tensor& want = expected_buffers[item.key()];
    if (item.value().is_floating_point()) EXPECT_LT(relative_error(item.value(), want), 1e-5) << item.key();
    else EXPECT_TRUE(torch::equal(item.value(), want)) << item.key();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Networks, PolyTrainingNetTest,
    ::testing::Values(Case{"connect4", config("resnet", 2, 7), 5},                     // flat policy, odd channels
                      Case{"connect4", config("resnet", 2, 7), 5, 4096},                // … the backward fused
                      Case{"tictactoe", config("resnet", 1, 16, "wdl"), 3},             // wdl head
                      Case{"hex:size=5", config("resnet", 1, 6), 2},                    // board-sized policy
                      Case{"hex:size=5", config("pooled", 2, 6), 3, 4096},              // pooled, spatial policy
                      Case{"connect4", config("pooled", 2, 5, "wdl"), 4},               // pooled, flat policy
                      Case{"connect4", config("resnet", 1, 32), 1},                     // one position
                      Case{"go:size=5", with_auxiliary_heads(config("resnet", 1, 6)), 3},          // ownership, score
                      Case{"othello:size=6", with_auxiliary_heads(config("pooled", 2, 6, "wdl")), 2, 4096}),
    case_name);

// The learner's pass without LibTorch (nn/poly/backprop.h) against a torch learner's step on the
// same weights and batch: the loss and its terms, every parameter's gradient (the step of
// SGD at lr 1 is the gradient) and the moved running statistics.
class PolyBackpropTest : public PolyTrainingNetTest {};

TEST_P(PolyBackpropTest, LossGradientsAndStatisticsAreTheTorchLearnersStep) {
  const Case& c = GetParam();
  const auto game = games::make_game(c.game);
  const NetShape shape = net_shape(game->info());
  LearnerConfig lc;
  lc.network = c.config;
  lc.optimizer = {{"type", "sgd"}, {"lr", 1.0}};
  lc.backend = "torch";
  Learner learner(*game, lc, 5);
  perturb_batch_norms(learner.network());
  const NetWeights before = export_weights(learner.network());
  const Batch batch = random_batch(shape, c.batch, 17);
  const StepStats step = learner.train_step(batch);
  const NetWeights after = export_weights(learner.network());

  const PolyBackprop backprop(c.config, shape, cache_dir());
  NetWeights weights = before, gradients;
  const LossValues loss = backprop.run(weights, batch, {lc.value_weight, lc.ownership_weight, lc.score_weight}, gradients);
  const double tolerance = 1e-4 * std::max(1.0, std::fabs(step.loss));
  EXPECT_NEAR(loss.total, step.loss, tolerance);
  EXPECT_NEAR(loss.policy, step.policy_loss, tolerance);
  EXPECT_NEAR(loss.value, step.value_loss, tolerance);
  EXPECT_NEAR(loss.ownership, step.ownership_loss, tolerance);
  EXPECT_NEAR(loss.score, step.score_loss, tolerance);
  double largest = 0;
  for (const auto& [name, g] : gradients)
    for (std::size_t i = 0; i < g.values.size(); ++i)
      largest = std::max(largest, std::fabs(static_cast<double>(before.at(name).values[i]) - after.at(name).values[i]));
  for (const WeightSlot& slot : backprop.slots()) {
    const std::vector<float>& b = before.at(slot.name).values;
    const std::vector<float>& a = after.at(slot.name).values;
    for (std::size_t i = 0; i < b.size(); ++i) {
      if (slot.trainable) {
        ASSERT_NEAR(gradients.at(slot.name).values[i], b[i] - a[i], 1e-4 * largest) << slot.name << "[" << i << "]";
      } else {
        ASSERT_NEAR(weights.at(slot.name).values[i], a[i], 1e-5 * std::max(1.0f, std::fabs(a[i]))) << slot.name << "[" << i << "]";
      }
    }
  }
  EXPECT_EQ(backprop.slots().size(), before.size()) << "every parameter and floating-point buffer is a slot";
}

INSTANTIATE_TEST_SUITE_P(Networks, PolyBackpropTest,
                         ::testing::Values(Case{"connect4", config("resnet", 2, 7), 5},
                                           Case{"tictactoe", config("resnet", 1, 16, "wdl"), 3},
                                           Case{"hex:size=5", config("pooled", 2, 6), 3},
                                           Case{"connect4", config("pooled", 2, 5, "wdl"), 4},
                                           Case{"go:size=5", with_auxiliary_heads(config("resnet", 1, 6)), 3},
                                           Case{"othello:size=6", with_auxiliary_heads(config("pooled", 2, 6, "wdl")), 4}),
                         case_name);

// The loss terms (log-softmax and cross-entropy fused; squared error) against the learner's
// LibTorch formulas, with their gradients: masked policy rows, targets of any sum, outcomes
// between −1 and 1, scalar and win/draw/loss heads.
TEST(PolyTrainingNet, LossesMatchTorchWithTheirGradients) {
  const auto game = games::make_game("tictactoe");
  const NetShape shape = net_shape(game->info());
  const int n = 6, actions = shape.policy.size();
  const torch::Tensor pi = torch::rand({n, actions}), mask = torch::tensor({1.f, 0.f, 1.f, 1.f, 0.f, 1.f});
  const torch::Tensor z = torch::rand({n, 1}) * 2 - 1;
  for (const std::string head : {"scalar", "wdl"}) {
    const PolyTrainingNet poly(config("resnet", 1, 8, head), shape, 0, cache_dir());
    torch::Tensor a = (torch::randn({n, actions}) * 5).requires_grad_(), b = a.detach().clone().requires_grad_();
    const torch::Tensor want = ((-(pi * torch::log_softmax(a, 1)).sum(1)) * mask).sum() / mask.sum().clamp_min(1.0);
    const torch::Tensor got = poly.policy_loss(b, pi, mask);
    EXPECT_LT(relative_error(got, want), 1e-5) << head;
    want.backward();
    got.backward();
    EXPECT_LT(relative_error(b.grad(), a.grad()), 1e-5) << head;

    NetOutput expected, out;
    if (head == "wdl") {
      expected.value_logits = (torch::randn({n, 1, 3}) * 3).requires_grad_();
      out.value_logits = expected.value_logits.detach().clone().requires_grad_();
    } else {
      expected.value = torch::tanh(torch::randn({n, 1})).requires_grad_();
      out.value = expected.value.detach().clone().requires_grad_();
    }
    const torch::Tensor value_want = head == "wdl"
                                         ? -(wdl_targets(z) * torch::log_softmax(expected.value_logits, 2)).sum(2).mean()
                                         : torch::mse_loss(expected.value, z);
    const torch::Tensor value_got = poly.value_loss(out, z);
    EXPECT_LT(relative_error(value_got, value_want), 1e-5) << head;
    (3 * value_want).backward();
    (3 * value_got).backward();
    const torch::Tensor& leaf = head == "wdl" ? out.value_logits : out.value;
    const torch::Tensor& expected_leaf = head == "wdl" ? expected.value_logits : expected.value;
    EXPECT_LT(relative_error(leaf.grad(), expected_leaf.grad()), 1e-5) << head;
  }
}

TEST(PolyTrainingNet, RejectsObservationsOfAnotherShape) {
  const auto game = games::make_game("tictactoe");
  const NetShape shape = net_shape(game->info());
  const NetConfig c = config("resnet", 1, 8);
  PolicyValueNet net(c, shape);
  const PolyTrainingNet poly(c, shape, 0, cache_dir());
  EXPECT_THROW(poly.heads(*net, torch::zeros({2, shape.input.channels, 4, 4})), std::invalid_argument);
}

// Positions of random tic-tac-toe games labelled by the exact solver: the policy target is
// uniform over the moves that keep the game-theoretic value, the value target that value.
struct LabelledPositions {
  std::vector<std::vector<float>> observations, policies;
  std::vector<float> values;
};

LabelledPositions solved_positions(const games::Game& game, int games_played, std::uint64_t seed) {
  LabelledPositions out;
  const auto solver = solve::make_solver(game);
  util::Rng rng(seed);
  solve::SolveOptions options;
  options.each_move = true;
  const games::GameInfo& info = game.info();
  std::vector<games::Action> legal;
  for (int g = 0; g < games_played; ++g) {
    auto state = game.new_initial_state();
    while (!state->is_terminal()) {
      const solve::Solution s = solver->solve(*state, options);
      std::vector<float> observation(static_cast<std::size_t>(info.observation_shape.size()));
      state->observation(state->current_player(), observation.data());
      std::vector<float> policy(static_cast<std::size_t>(info.policy_shape.size()), 0.0f);
      int best = 0;
      for (const auto& m : s.moves) best += m.value == s.value;
      for (const auto& m : s.moves)
        if (m.value == s.value) policy[static_cast<std::size_t>(m.action)] = 1.0f / static_cast<float>(best);
      out.observations.push_back(std::move(observation));
      out.policies.push_back(std::move(policy));
      out.values.push_back(static_cast<float>(s.value));
      state->legal_actions(legal);
      state->apply_action(legal[rng.below(static_cast<std::uint32_t>(legal.size()))]);
    }
  }
  return out;
}

std::vector<Batch> batches_of(const LabelledPositions& p, int count, int size, std::uint64_t seed) {
  util::Rng rng(seed);
  std::vector<Batch> out(static_cast<std::size_t>(count));
  for (Batch& b : out) {
    b.size = size;
    for (int r = 0; r < size; ++r) {
      const std::size_t k = rng.below(static_cast<std::uint32_t>(p.values.size()));
      b.observations.insert(b.observations.end(), p.observations[k].begin(), p.observations[k].end());
      b.policies.insert(b.policies.end(), p.policies[k].begin(), p.policies[k].end());
      b.policy_mask.push_back(1.0f);
      b.values.push_back(p.values[k]);
    }
  }
  return out;
}

LearnerConfig tictactoe_learner(const std::string& backend) {
  LearnerConfig lc;
  lc.network = config("resnet", 2, 32);
  lc.network.policy_channels = 2;
  lc.network.value_hidden = 32;
  lc.optimizer = {{"type", "sgd"}, {"lr", 0.05}, {"momentum", 0.9}, {"nesterov", true}, {"weight_decay", 1e-4},
                  {"clip_grad_norm", 5.0}};
  lc.scheduler = {{"type", "poly"}, {"total_iters", 500}, {"power", 1.0}, {"eta_min", 0.002},
                  {"warmup", {{"type", "linear"}, {"steps", 50}, {"start_factor", 0.1}}}};
  lc.backend = backend;
  return lc;
}

// The check of the poly learner: 500 steps on tic-tac-toe from a fixed seed give the
// torch learner's loss curve. The two drift apart by rounding (other summation orders), so
// the curves are compared as means over windows of 50 steps.
TEST(PolyLearner, FiveHundredStepsFollowTheTorchLearnersLossCurve) {
  torch::set_num_threads(1);
  const auto game = games::make_game("tictactoe");
  const std::vector<Batch> batches = batches_of(solved_positions(*game, 60, 3), 500, 32, 4);
  Learner torch_learner(*game, tictactoe_learner("torch"), 9), poly_learner(*game, tictactoe_learner("poly"), 9);
  std::vector<double> torch_curve(10, 0.0), poly_curve(10, 0.0);
  for (std::size_t i = 0; i < batches.size(); ++i) {
    torch_curve[i / 50] += torch_learner.train_step(batches[i]).loss / 50;
    poly_curve[i / 50] += poly_learner.train_step(batches[i]).loss / 50;
  }
  std::printf("mean loss per 50 steps, torch | poly:");
  for (std::size_t w = 0; w < torch_curve.size(); ++w) std::printf(" %.3f|%.3f", torch_curve[w], poly_curve[w]);
  std::printf("\n");
  for (std::size_t w = 0; w < torch_curve.size(); ++w) {
    EXPECT_NEAR(poly_curve[w], torch_curve[w], 0.03 + 0.05 * torch_curve[w]) << "steps " << 50 * w << "-" << 50 * w + 49;
  }
  EXPECT_LT(poly_curve.back(), 0.5 * poly_curve.front());  // it learns
}

// A poly learner stopped and resumed from its files steps exactly as one that never stopped
// (the kernels are deterministic: the same sums in the same order every step).
TEST(PolyLearner, ResumesWithTheSameStepsAndWeights) {
  torch::set_num_threads(1);
  const auto game = games::make_game("tictactoe");
  const std::vector<Batch> batches = batches_of(solved_positions(*game, 10, 5), 12, 16, 6);
  const LearnerConfig lc = tictactoe_learner("poly");
  Learner straight(*game, lc, 5);
  for (const Batch& b : batches) straight.train_step(b);

  Learner first(*game, lc, 5);
  for (int i = 0; i < 5; ++i) first.train_step(batches[static_cast<std::size_t>(i)]);
  const std::string model = (fs::temp_directory_path() / "pz_poly_resume_model.pt").string();
  const std::string state = (fs::temp_directory_path() / "pz_poly_resume_learner.pt").string();
  ModelInfo info;
  info.game = game->spec().to_string();
  info.network = lc.network;
  save_model(model, first.network(), info);
  first.save_state(state);
  Learner resumed(*game, lc, 999);
  copy_weights(*load_model(model).net, resumed.network());
  resumed.load_state(state);
  for (std::size_t i = 5; i < batches.size(); ++i) resumed.train_step(batches[i]);
  EXPECT_EQ(resumed.weights_hash(), straight.weights_hash());
  auto a = straight.network().named_parameters();
  for (const auto& item : resumed.network().named_parameters()) EXPECT_TRUE(torch::equal(item.value(), a[item.key()])) << item.key();
  fs::remove(model);
  fs::remove(state);
}

// The learner without LibTorch (nn/poly/learner.h) from the torch learner's initial weights:
// its first steps are the torch learner's to rounding, and over 500 steps of tic-tac-toe its
// loss curve is the torch learner's (means over windows of 50 steps, as above).
TEST(PolyLearnerWithoutTorch, StepsAndLossCurveAreTheTorchLearners) {
  torch::set_num_threads(1);
  const auto game = games::make_game("tictactoe");
  const std::vector<Batch> batches = batches_of(solved_positions(*game, 60, 3), 500, 32, 4);
  Learner torch_learner(*game, tictactoe_learner("torch"), 9);
  PolyLearner poly_learner(game->info(), tictactoe_learner("poly"), 1, cache_dir());
  poly_learner.set_weights(export_weights(torch_learner.network()));
  std::vector<double> torch_curve(10, 0.0), poly_curve(10, 0.0);
  for (std::size_t i = 0; i < batches.size(); ++i) {
    const StepStats t = torch_learner.train_step(batches[i]), p = poly_learner.train_step(batches[i]);
    EXPECT_DOUBLE_EQ(p.lr, t.lr);
    if (i < 3) {
      EXPECT_NEAR(p.loss, t.loss, 1e-4 * t.loss) << "step " << i + 1;
      EXPECT_NEAR(p.grad_norm, t.grad_norm, 1e-3 * t.grad_norm) << "step " << i + 1;
      const NetWeights want = export_weights(torch_learner.network());
      for (const auto& [name, tensor] : want) {
        const std::vector<float>& got = poly_learner.weights().at(name).values;
        for (std::size_t k = 0; k < got.size(); ++k) {
          ASSERT_NEAR(got[k], tensor.values[k], 1e-4 * std::max(1.0f, std::fabs(tensor.values[k])))
              << name << "[" << k << "] after step " << i + 1;
        }
      }
    }
    torch_curve[i / 50] += t.loss / 50;
    poly_curve[i / 50] += p.loss / 50;
  }
  std::printf("mean loss per 50 steps, torch | poly without torch:");
  for (std::size_t w = 0; w < torch_curve.size(); ++w) std::printf(" %.3f|%.3f", torch_curve[w], poly_curve[w]);
  std::printf("\n");
  for (std::size_t w = 0; w < torch_curve.size(); ++w) {
    EXPECT_NEAR(poly_curve[w], torch_curve[w], 0.03 + 0.05 * torch_curve[w]) << "steps " << 50 * w << "-" << 50 * w + 49;
  }
  EXPECT_LT(poly_curve.back(), 0.5 * poly_curve.front());
}

// The report of the step names every layer of the walk with its fusions, and every nest of
// every kernel is modelled at a concrete batch.
TEST(PolyTrainingReport, ModelsEveryKernelOfTheStep) {
  const auto game = games::make_game("connect4");
  const NetConfig c = config("resnet", 1, 8);
  const TrainingStepReport r = report_training_step(c, net_shape(game->info()), 4);
  ASSERT_FALSE(r.layers.empty());
  EXPECT_EQ(r.forward.nests_not_modelled + r.gradients.nests_not_modelled, 0);
  int residual_fusions = 0;
  for (const TrainingLayerTraffic& t : r.layers) {
    EXPECT_GT(t.forward.memory_in, 0) << t.layer.kind << " " << t.layer.module;
    EXPECT_GT(t.forward.memory_out, 0) << t.layer.kind << " " << t.layer.module;
    residual_fusions += t.layer.fused.rfind("residual add, ReLU", 0) == 0;
  }
  EXPECT_EQ(residual_fusions, 1);  // the block's second batch norm
  EXPECT_FALSE(r.fusions.empty()) << "the backward fusions weighed, with their figures";
  EXPECT_EQ(r.layers.front().layer.kind, "transpose");
  EXPECT_EQ(r.layers.back().layer.kind, "loss");
  const TrainingStepMemory& m = r.memory;
  EXPECT_GT(m.kept_for_backward_bytes, 0u);
  EXPECT_GE(m.live_peak_bytes, m.kept_for_backward_bytes);
  EXPECT_GE(m.planned_bytes, m.live_peak_bytes) << "no placement beats the live peak";
  EXPECT_LT(m.planned_bytes, m.unshared_bytes) << "the gradients and workspaces of the backward pass share";
  EXPECT_NE(format_training_step_text(r).find("tower.0.conv2"), std::string::npos);
  EXPECT_EQ(r.winograd, training_winograd_mode()) << "the learner's plan, not the autograd path's";
  EXPECT_NE(format_training_step_text(r).find(", 3x3 convolutions "), std::string::npos);
}

}  // namespace
}  // namespace pz::nn
