// Data-parallel learners (nn/data_parallel.h, distributed/learner_group.h) with real c10d Gloo
// groups over a TCPStore on a loopback port, the ranks as threads of this process, on fixed
// data: the ranks stay identical, the averaged step is the step on the mean of the ranks'
// losses (exactly the doubled batch's when the shards are alike, close to it otherwise:
// batch norm normalises each shard by its own statistics), and a gone or silent peer fails
// the others' collective with GroupError instead of hanging.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <torch/torch.h>

#include <chrono>
#include <functional>
#include <future>
#include <thread>
#include <vector>

#include "distributed/learner_group.h"
#include "games/registry.h"
#include "nn/learner.h"

namespace pz::distributed {
namespace {

using nn::Batch;
using nn::Learner;
using nn::LearnerConfig;
using Clock = std::chrono::steady_clock;

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

LearnerGroupSpec spec(int rank, int world, int port) {
  LearnerGroupSpec s;
  s.rank = rank;
  s.world_size = world;
  s.master_host = "127.0.0.1";
  s.master_port = port;
  return s;
}

// Runs body(rank, group) on `world` threads, each in its own group connection; rethrows the
// first failure.
void run_ranks(int world, std::chrono::milliseconds timeout, const std::function<void(int, nn::DataParallelGroup&)>& body) {
  const int port = free_port();
  std::vector<std::future<void>> ranks;
  for (int r = 0; r < world; ++r) {
    ranks.push_back(std::async(std::launch::async, [&, r] {
      auto group = connect_learner_group(spec(r, world, port), "test", timeout);
      body(r, *group);
    }));
  }
  for (auto& f : ranks) f.get();
}

Batch fixed_batch(const games::Game& game, int n, std::uint64_t seed) {
  auto gen = at::detail::createCPUGenerator(seed);
  Batch b;
  b.size = n;
  const auto obs = torch::randint(0, 2, {n, game.info().observation_shape.size()}, gen).to(torch::kFloat);
  const auto pol = torch::softmax(torch::randn({n, game.info().policy_shape.size()}, gen), 1);
  const auto val = torch::rand({n, 1}, gen) * 2 - 1;
  b.observations.assign(obs.data_ptr<float>(), obs.data_ptr<float>() + obs.numel());
  b.policies.assign(pol.data_ptr<float>(), pol.data_ptr<float>() + pol.numel());
  b.policy_mask.assign(static_cast<std::size_t>(n), 1.0f);
  b.values.assign(val.data_ptr<float>(), val.data_ptr<float>() + val.numel());
  return b;
}

Batch concat(const Batch& a, const Batch& b) {
  Batch c = a;
  c.size = a.size + b.size;
  c.observations.insert(c.observations.end(), b.observations.begin(), b.observations.end());
  c.policies.insert(c.policies.end(), b.policies.begin(), b.policies.end());
  c.policy_mask.insert(c.policy_mask.end(), b.policy_mask.begin(), b.policy_mask.end());
  c.values.insert(c.values.end(), b.values.begin(), b.values.end());
  return c;
}

LearnerConfig small_config(nlohmann::json optimizer) {
  LearnerConfig lc;
  lc.network.blocks = 1;
  lc.network.channels = 8;
  lc.network.value_hidden = 8;
  lc.optimizer = std::move(optimizer);
  return lc;
}

torch::Tensor flat_parameters(Learner& learner) {
  std::vector<torch::Tensor> parts;
  for (const auto& p : learner.network().parameters()) parts.push_back(p.detach().reshape(-1).clone());
  return torch::cat(parts);
}

class LearnerDataParallelTest : public ::testing::Test {
 protected:
  void SetUp() override { torch::set_num_threads(1); }
  std::shared_ptr<const games::Game> game_ = games::make_game("tictactoe");
};

// Different initial weights (seeds) and different data on each rank: after the broadcast
// and every step, both ranks hold the same weights (hash) and report the same loss.
TEST_F(LearnerDataParallelTest, TwoRanksKeepIdenticalWeights) {
  const auto lc = small_config({{"type", "sgd"}, {"lr", 0.05}, {"momentum", 0.9}, {"weight_decay", 1e-4}});
  constexpr int kSteps = 6;
  std::vector<std::unique_ptr<Learner>> learners;
  for (int r = 0; r < 2; ++r) learners.push_back(std::make_unique<Learner>(*game_, lc, 100 + r));  // built in turn:
  // the constructor seeds LibTorch's global generator.
  ASSERT_NE(learners[0]->weights_hash(), learners[1]->weights_hash());
  std::vector<std::vector<std::uint64_t>> hashes(2);
  std::vector<std::vector<double>> losses(2);
  std::vector<std::vector<Batch>> data(2);
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < kSteps; ++i) data[r].push_back(fixed_batch(*game_, 16, 1000 * (r + 1) + i));
  }
  run_ranks(2, std::chrono::seconds(60), [&](int r, nn::DataParallelGroup& group) {
    Learner& l = *learners[r];
    l.set_group(&group);
    l.broadcast_from_root();
    hashes[r].push_back(l.weights_hash());
    for (int i = 0; i < kSteps; ++i) {
      losses[r].push_back(l.train_step(data[r][i]).loss);
      hashes[r].push_back(l.weights_hash());
    }
  });
  EXPECT_EQ(hashes[0], hashes[1]);
  EXPECT_EQ(losses[0], losses[1]);
  EXPECT_NE(hashes[0].front(), hashes[0].back());  // they did train
}

// Two ranks on the same shard A take exactly the step of one learner on A twice over
// (batch-norm statistics of A∪A are A's): averaged, not summed.
TEST_F(LearnerDataParallelTest, AlikeShardsStepExactlyLikeTheDoubledBatch) {
  const auto lc = small_config({{"type", "sgd"}, {"lr", 0.1}, {"momentum", 0.9}, {"weight_decay", 0.0}});
  const Batch a = fixed_batch(*game_, 32, 7);
  Learner single(*game_, lc, 3);
  std::vector<double> single_losses;
  for (int i = 0; i < 3; ++i) single_losses.push_back(single.train_step(concat(a, a)).loss);
  std::vector<std::unique_ptr<Learner>> learners;
  for (int r = 0; r < 2; ++r) learners.push_back(std::make_unique<Learner>(*game_, lc, 3));
  std::vector<std::vector<double>> losses(2);
  run_ranks(2, std::chrono::seconds(60), [&](int r, nn::DataParallelGroup& group) {
    learners[r]->set_group(&group);
    for (int i = 0; i < 3; ++i) losses[r].push_back(learners[r]->train_step(a).loss);
  });
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(losses[0][i], single_losses[i], 1e-5 * std::abs(single_losses[i])) << i;
  const auto d = (flat_parameters(*learners[0]) - flat_parameters(single)).abs().max().item<double>();
  EXPECT_LT(d, 1e-5);
}

// Shards A and B (plain SGD): the step is exactly the mean of the steps of a learner on A and
// one on B, i.e. the step on the mean of the two batch losses; the loss both ranks report is
// that mean, close to a single learner's on A∪B; and the step is close to the doubled
// batch's (batch norm normalises each shard by its own statistics), far closer than A's alone.
TEST_F(LearnerDataParallelTest, DifferentShardsStepLikeTheDoubledBatch) {
  const auto lc = small_config({{"type", "sgd"}, {"lr", 0.1}, {"momentum", 0.0}, {"weight_decay", 0.0}});
  const Batch a = fixed_batch(*game_, 128, 11), b = fixed_batch(*game_, 128, 12);
  Learner single(*game_, lc, 5), only_a(*game_, lc, 5), only_b(*game_, lc, 5);
  const torch::Tensor w0 = flat_parameters(single);
  const double single_loss = single.train_step(concat(a, b)).loss;
  const double loss_a = only_a.train_step(a).loss, loss_b = only_b.train_step(b).loss;
  std::vector<std::unique_ptr<Learner>> learners;
  for (int r = 0; r < 2; ++r) learners.push_back(std::make_unique<Learner>(*game_, lc, 5));
  std::vector<double> losses(2);
  run_ranks(2, std::chrono::seconds(60), [&](int r, nn::DataParallelGroup& group) {
    learners[r]->set_group(&group);
    losses[r] = learners[r]->train_step(r == 0 ? a : b).loss;
  });
  EXPECT_EQ(losses[0], losses[1]);
  EXPECT_NEAR(losses[0], (loss_a + loss_b) / 2, 1e-5 * losses[0]);
  EXPECT_NEAR(losses[0], single_loss, 0.01 * single_loss);
  const torch::Tensor d_mean = (flat_parameters(only_a) + flat_parameters(only_b)) / 2 - w0;
  const double err_mean = (flat_parameters(*learners[0]) - w0 - d_mean).norm().item<double>() / d_mean.norm().item<double>();
  EXPECT_LT(err_mean, 1e-4);
  const torch::Tensor d_full = flat_parameters(single) - w0;
  const double err_group = (flat_parameters(*learners[0]) - w0 - d_full).norm().item<double>() / d_full.norm().item<double>();
  const double err_a = (flat_parameters(only_a) - w0 - d_full).norm().item<double>() / d_full.norm().item<double>();
  std::printf("loss: single on A+B %.6f, two ranks %.6f; step error: vs the mean of A's and B's %.2g, vs A+B %.4f "
              "(A alone %.4f)\n", single_loss, losses[0], err_mean, err_group, err_a);
  EXPECT_LT(err_group, 0.2);
  EXPECT_LT(err_group, 0.4 * err_a);
}

// A rank that leaves (its connections close) fails the other's next collective at once.
TEST_F(LearnerDataParallelTest, AGonePeerFailsTheCollectiveQuickly) {
  const auto start = Clock::now();
  EXPECT_THROW(run_ranks(2, std::chrono::seconds(60),
                         [&](int r, nn::DataParallelGroup& group) {
                           auto t = torch::ones({4}, torch::kFloat32);
                           group.all_reduce_sum(t);
                           if (r == 1) return;  // its group is destroyed: the process is gone
                           std::this_thread::sleep_for(std::chrono::milliseconds(300));
                           group.all_reduce_sum(t);
                         }),
               nn::GroupError);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 30.0);
}

// A rank that stays connected but never calls: the other gives up after the timeout.
TEST_F(LearnerDataParallelTest, ASilentPeerTimesOut) {
  const auto start = Clock::now();
  std::atomic<bool> done{false};
  try {
    run_ranks(2, std::chrono::seconds(2), [&](int r, nn::DataParallelGroup& group) {
      auto t = torch::ones({4}, torch::kFloat32);
      group.all_reduce_sum(t);
      if (r == 1) {
        while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return;
      }
      try {
        group.all_reduce_sum(t);
      } catch (...) {
        done = true;
        throw;
      }
    });
    FAIL() << "no error";
  } catch (const nn::GroupError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0 of 2"), std::string::npos) << e.what();
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_GT(seconds, 1.5);
  EXPECT_LT(seconds, 30.0);
}

// Rank 0 alone: the rendezvous gives up after the timeout, saying who is missing.
TEST_F(LearnerDataParallelTest, AMissingPeerFailsTheRendezvous) {
  const auto start = Clock::now();
  try {
    connect_learner_group(spec(0, 2, free_port()), "test", std::chrono::seconds(2));
    FAIL() << "no error";
  } catch (const nn::GroupError& e) {
    EXPECT_NE(std::string(e.what()).find("did not all join"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 30.0);
}

}  // namespace
}  // namespace pz::distributed
