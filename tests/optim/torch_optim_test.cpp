// pz::optim on real torch::optim optimisers: the param-group adapter, the optimiser factory,
// gradient clipping, a small training run under poly + warmup, and a resumed run that ends
// with bit-identical weights.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <sstream>

#include "optim/optimizer.h"
#include "optim/plain_optimizer.h"
#include "optim/scheduler_factory.h"
#include "optim/torch_param_groups.h"

namespace pz::optim {
namespace {

using nlohmann::json;

class TorchOptim : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::set_num_threads(1);
    torch::manual_seed(7);
  }
};

struct NetImpl : torch::nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(4, 8));
    norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({8})));
    fc2 = register_module("fc2", torch::nn::Linear(8, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::relu(norm(fc1(x)))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(Net);

TEST_F(TorchOptim, AdapterReadsAndWritesEveryGroupsLr) {
  auto a = torch::zeros({2}, torch::requires_grad());
  auto b = torch::zeros({3}, torch::requires_grad());
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<torch::Tensor>{a}, std::make_unique<torch::optim::SGDOptions>(0.1));
  groups.emplace_back(std::vector<torch::Tensor>{b}, std::make_unique<torch::optim::SGDOptions>(0.01));
  torch::optim::SGD sgd(std::move(groups), torch::optim::SGDOptions(0.1));
  auto s = make_scheduler(json{{"type", "step"}, {"step_size", 1}, {"gamma", 0.5}}, sgd);
  s->step();
  EXPECT_EQ(sgd.param_groups()[0].options().get_lr(), 0.05);
  EXPECT_EQ(sgd.param_groups()[1].options().get_lr(), 0.005);
  EXPECT_EQ(s->base_lrs(), (std::vector<double>{0.1, 0.01}));
}

TEST_F(TorchOptim, OneCycleCyclesSgdMomentumAndAdamBeta1) {
  auto p = torch::zeros({2}, torch::requires_grad());
  torch::optim::SGD sgd({p}, torch::optim::SGDOptions(0.1).momentum(0.9));
  auto s1 = make_scheduler(json{{"type", "one_cycle"}, {"max_lr", 1.0}, {"total_steps", 10}, {"pct_start", 0.5}}, sgd);
  auto& sgd_options = static_cast<torch::optim::SGDOptions&>(sgd.param_groups()[0].options());
  EXPECT_DOUBLE_EQ(sgd_options.momentum(), 0.95);
  for (int t = 0; t < 4; ++t) s1->step();
  EXPECT_DOUBLE_EQ(sgd_options.momentum(), 0.85);
  EXPECT_DOUBLE_EQ(sgd_options.lr(), 1.0);

  torch::optim::Adam adam({p}, torch::optim::AdamOptions(1e-3).betas(std::make_tuple(0.9, 0.98)));
  auto s2 = make_scheduler(json{{"type", "one_cycle"}, {"max_lr", 0.01}, {"total_steps", 10}, {"pct_start", 0.5}}, adam);
  auto& adam_options = static_cast<torch::optim::AdamOptions&>(adam.param_groups()[0].options());
  for (int t = 0; t < 4; ++t) s2->step();
  EXPECT_DOUBLE_EQ(std::get<0>(adam_options.betas()), 0.85);
  EXPECT_EQ(std::get<1>(adam_options.betas()), 0.98);
}

TEST_F(TorchOptim, FactoryBuildsEachOptimiserWithPerGroupOptions) {
  Net net;
  const auto config = parse_optimizer_config(json{{"type", "sgd"}, {"lr", 0.1}, {"momentum", 0.9}, {"nesterov", true},
                                                  {"weight_decay", 1e-4},
                                                  {"param_groups", {{{"max_ndim", 1}, {"weight_decay", 0}}}}});
  auto opt = make_optimizer(config, net->named_parameters());
  ASSERT_NE(dynamic_cast<torch::optim::SGD*>(opt.get()), nullptr);
  ASSERT_EQ(opt->param_groups().size(), 2u);
  EXPECT_EQ(opt->param_groups()[0].params().size(), 2u);  // fc1.weight, fc2.weight
  EXPECT_EQ(opt->param_groups()[1].params().size(), 4u);  // biases and the norm's scale and shift
  const auto& decay = static_cast<const torch::optim::SGDOptions&>(opt->param_groups()[0].options());
  const auto& no_decay = static_cast<const torch::optim::SGDOptions&>(opt->param_groups()[1].options());
  EXPECT_EQ(decay.weight_decay(), 1e-4);
  EXPECT_EQ(no_decay.weight_decay(), 0.0);
  EXPECT_TRUE(no_decay.nesterov());
  EXPECT_EQ(no_decay.momentum(), 0.9);

  auto adam = make_optimizer(parse_optimizer_config(json{{"type", "adam"}, {"betas", {0.8, 0.9}}}), net->named_parameters());
  ASSERT_NE(dynamic_cast<torch::optim::Adam*>(adam.get()), nullptr);
  EXPECT_EQ(std::get<0>(static_cast<const torch::optim::AdamOptions&>(adam->param_groups()[0].options()).betas()), 0.8);
  auto adamw = make_optimizer(parse_optimizer_config(json{{"type", "adamw"}}), net->named_parameters());
  ASSERT_NE(dynamic_cast<torch::optim::AdamW*>(adamw.get()), nullptr);
  EXPECT_EQ(static_cast<const torch::optim::AdamWOptions&>(adamw->param_groups()[0].options()).weight_decay(), 1e-2);
}

TEST_F(TorchOptim, ClipsTheTotalGradientNorm) {
  Net net;
  const auto config = parse_optimizer_config(json{{"type", "sgd"}, {"lr", 0.1}, {"clip_grad_norm", 0.5}});
  auto opt = make_optimizer(config, net->named_parameters());
  auto loss = net->forward(torch::randn({16, 4}) * 100).pow(2).mean();
  loss.backward();
  const auto before = clip_gradients(config, *opt);
  ASSERT_TRUE(before.has_value());
  EXPECT_GT(*before, 0.5);
  double sq = 0;
  for (const auto& p : net->parameters()) sq += p.grad().pow(2).sum().item<double>();
  EXPECT_NEAR(std::sqrt(sq), 0.5, 1e-4);
  EXPECT_FALSE(clip_gradients(parse_optimizer_config(json{{"type", "sgd"}, {"lr", 0.1}}), *opt).has_value());
}

// Least squares y = X·w + b on fixed synthetic data.
struct Problem {
  torch::Tensor x, y;
  Problem() {
    torch::manual_seed(11);
    x = torch::randn({128, 6});
    const auto w = torch::tensor({0.5, -1.0, 2.0, 0.0, 1.5, -0.3}).reshape({6, 1});
    y = x.matmul(w) + 0.7;
  }
};

const json kSchedule{{"type", "poly"}, {"total_iters", 150}, {"power", 2.0},
                     {"warmup", {{"type", "linear"}, {"steps", 20}, {"start_factor", 0.05}}}};
const json kOptimizer{{"type", "sgd"}, {"lr", 0.1}, {"momentum", 0.9}, {"clip_grad_norm", 10.0}};

struct Trainer {
  torch::nn::Linear model{nullptr};
  OptimizerConfig config;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<LRScheduler> scheduler;

  Trainer() {
    torch::manual_seed(3);
    model = torch::nn::Linear(6, 1);
    config = parse_optimizer_config(kOptimizer);
    optimizer = make_optimizer(config, model->named_parameters());
    scheduler = make_scheduler(kSchedule, *optimizer);
  }
  double loss(const Problem& p) { return torch::mse_loss(model(p.x), p.y).item<double>(); }
  double train_step(const Problem& p) {
    optimizer->zero_grad();
    auto loss = torch::mse_loss(model(p.x), p.y);
    loss.backward();
    clip_gradients(config, *optimizer);
    optimizer->step();
    scheduler->step();
    return loss.item<double>();
  }
};

TEST_F(TorchOptim, LinearModelConvergesUnderPolyWithWarmup) {
  Problem p;
  Trainer t;
  const double initial = t.loss(p);
  const auto expected = lr_table(kSchedule, {0.1}, 171);
  for (int step = 0; step < 170; ++step) {
    ASSERT_EQ(t.optimizer->param_groups()[0].options().get_lr(), expected[static_cast<std::size_t>(step)][0]) << step;
    t.train_step(p);
  }
  EXPECT_EQ(t.optimizer->param_groups()[0].options().get_lr(), 0.0);  // the schedule has ended
  const double final_loss = t.loss(p);
  EXPECT_LT(final_loss, 1e-6) << "initial loss " << initial;
  EXPECT_NEAR(t.model->bias.item<double>(), 0.7, 1e-3);
  EXPECT_NEAR(t.model->weight[0][2].item<double>(), 2.0, 1e-3);
}

TEST_F(TorchOptim, ResumedTrainingEndsWithBitIdenticalWeights) {
  Problem p;
  Trainer unbroken;
  std::vector<double> lrs;  // lr after each step
  for (int step = 0; step < 100; ++step) {
    unbroken.train_step(p);
    lrs.push_back(unbroken.optimizer->param_groups()[0].options().get_lr());
  }

  Trainer first;
  for (int step = 0; step < 45; ++step) first.train_step(p);
  std::stringstream model_bytes, optimizer_bytes;
  torch::save(first.model, model_bytes);
  torch::save(*first.optimizer, optimizer_bytes);
  const std::string scheduler_state = first.scheduler->state_dict().dump();

  // A new process would build everything from the configs, then load the checkpoint.
  torch::manual_seed(99);
  torch::nn::Linear model(6, 1);
  torch::load(model, model_bytes);
  const auto config = parse_optimizer_config(kOptimizer);
  auto optimizer = make_optimizer(config, model->named_parameters());
  torch::load(*optimizer, optimizer_bytes);
  auto scheduler = restore_scheduler(json::parse(scheduler_state), *optimizer);
  EXPECT_EQ(scheduler->last_epoch(), 45);
  for (int step = 45; step < 100; ++step) {
    optimizer->zero_grad();
    auto loss = torch::mse_loss(model(p.x), p.y);
    loss.backward();
    clip_gradients(config, *optimizer);
    optimizer->step();
    scheduler->step();
    EXPECT_EQ(optimizer->param_groups()[0].options().get_lr(), lrs[static_cast<std::size_t>(step)]) << step;
  }
  EXPECT_TRUE(torch::equal(model->weight, unbroken.model->weight));
  EXPECT_TRUE(torch::equal(model->bias, unbroken.model->bias));
}

// The optimisers on plain arrays (plain_optimizer.h) take the steps torch::optim takes: the
// same parameters and gradient sequence, every option set of the three types.
TEST_F(TorchOptim, PlainOptimisersStepAsTorchOptimDoes) {
  const std::vector<json> configs = {
      {{"type", "sgd"}, {"lr", 0.1}},
      {{"type", "sgd"}, {"lr", 0.05}, {"momentum", 0.9}, {"nesterov", true}, {"weight_decay", 1e-3}},
      {{"type", "sgd"}, {"lr", 0.05}, {"momentum", 0.8}, {"dampening", 0.3}},
      {{"type", "adam"}, {"lr", 0.01}, {"weight_decay", 1e-2}},
      {{"type", "adam"}, {"lr", 0.01}, {"amsgrad", true}, {"betas", {0.8, 0.99}}},
      {{"type", "adamw"}, {"lr", 0.01}},
      {{"type", "adamw"}, {"lr", 0.02}, {"weight_decay", 0.1},
       {"param_groups", json::array({{{"max_ndim", 1}, {"weight_decay", 0.0}, {"lr", 0.005}}})}},
  };
  for (const json& c : configs) {
    const OptimizerConfig config = parse_optimizer_config(c);
    Net net;
    auto torch_optimizer = make_optimizer(config, net->named_parameters());
    std::vector<PlainParameter> params;
    std::vector<std::vector<float>> values;
    for (const auto& item : net->named_parameters()) {
      params.push_back({item.key(), item.value().dim(), static_cast<std::size_t>(item.value().numel())});
      const auto t = item.value().detach().contiguous();
      values.emplace_back(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
    }
    PlainOptimizer plain(config, params);
    for (int step = 0; step < 6; ++step) {
      std::vector<std::vector<float>> grads;
      for (auto& item : net->named_parameters()) {
        item.value().mutable_grad() = torch::randn_like(item.value());
        const auto g = item.value().grad().contiguous();
        grads.emplace_back(g.data_ptr<float>(), g.data_ptr<float>() + g.numel());
      }
      torch_optimizer->step();
      std::vector<float*> v;
      std::vector<const float*> g;
      for (std::size_t i = 0; i < values.size(); ++i) {
        v.push_back(values[i].data());
        g.push_back(grads[i].data());
      }
      plain.step(v, g);
    }
    std::size_t i = 0;
    for (const auto& item : net->named_parameters()) {
      const auto expected = item.value().detach().contiguous();
      for (std::int64_t k = 0; k < expected.numel(); ++k)
        ASSERT_NEAR(values[i][static_cast<std::size_t>(k)], expected.data_ptr<float>()[k], 1e-6) << c.dump() << " " << item.key();
      ++i;
    }
  }
}

}  // namespace
}  // namespace pz::optim
