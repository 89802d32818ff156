#include "bench/train_step_bench.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>

#include "bench/text.h"
#include "games/registry.h"
#include "nn/learner.h"
#include "nn/poly/learner.h"
#include "nn/poly/network.h"
#include "util/rng.h"

namespace pz::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Random binary planes, a policy target spread over a few actions, outcomes in {−1, 0, 1};
// for games scored on the board, cell owners in {−1, 0, 1} and scores in [−0.5, 0.5].
nn::Batch random_batch(const games::GameInfo& info, int value_outputs, int size, util::Rng& rng) {
  nn::Batch b;
  b.size = size;
  const std::size_t actions = static_cast<std::size_t>(info.policy_shape.size());
  b.observations.resize(static_cast<std::size_t>(size) * static_cast<std::size_t>(info.observation_shape.size()));
  for (float& x : b.observations) x = rng.uniform() < 0.5 ? 0.0f : 1.0f;
  b.policies.assign(static_cast<std::size_t>(size) * actions, 0.0f);
  for (int r = 0; r < size; ++r) {
    for (int k = 0; k < 3; ++k) b.policies[static_cast<std::size_t>(r) * actions + rng.below(actions)] += 1.0f / 3;
  }
  b.policy_mask.assign(static_cast<std::size_t>(size), 1.0f);
  b.values.resize(static_cast<std::size_t>(size) * static_cast<std::size_t>(value_outputs));
  for (float& v : b.values) v = static_cast<float>(static_cast<int>(rng.below(3)) - 1);
  if (info.board_ownership) {  // the auxiliary targets, used when the network has their heads
    b.ownership.resize(static_cast<std::size_t>(size) * static_cast<std::size_t>(info.observation_shape.plane_size()));
    for (float& o : b.ownership) o = static_cast<float>(static_cast<int>(rng.below(3)) - 1);
    b.score.resize(static_cast<std::size_t>(size));
    for (float& s : b.score) s = static_cast<float>(rng.uniform() - 0.5);
    b.auxiliary_mask.assign(static_cast<std::size_t>(size), 1.0f);
  }
  return b;
}

double best_step_ms(nn::TrainingLearner& learner, const nn::Batch& batch, double seconds) {
  double best = 1e30;
  const auto start = Clock::now();
  do {
    const auto t = Clock::now();
    learner.train_step(batch);
    best = std::min(best, seconds_since(t));
  } while (seconds_since(start) < seconds);
  return best * 1e3;
}

}  // namespace

TrainStepResult measure_training_steps(const TrainStepOptions& o) {
  torch::set_num_threads(o.threads);
  const auto game = games::make_game(o.game);
  nn::LearnerConfig config;
  config.network = o.network;
  nn::LearnerConfig poly_config = config;
  poly_config.backend = "poly";
  nn::LearnerConfig weighed_config = poly_config;  // the footprint-weighed fusions, against the default
  weighed_config.fusion_batch = o.batches.empty() ? 256 : *std::max_element(o.batches.begin(), o.batches.end());
  nn::Learner torch_learner(*game, config, 1), poly_learner(*game, poly_config, 1), weighed(*game, weighed_config, 1);
  nn::PolyLearner without_torch(game->info(), poly_config, 1);
  const nn::NetShape shape = nn::net_shape(game->info());
  TrainStepResult r;
  r.flops_per_position = nn::PolyNetwork(o.network, shape).flops_per_position();
  util::Rng rng(3);
  for (int size : o.batches) {
    const nn::Batch batch = random_batch(game->info(), shape.value_outputs, size, rng);
    TrainStepRow row;
    row.batch = size;
    row.torch_ms = row.poly_ms = row.poly_weighed_ms = row.without_torch_ms = 1e30;
    const double slice = o.seconds / std::max(1, o.rounds);
    for (int round = 0; round < std::max(1, o.rounds); ++round) {
      row.torch_ms = std::min(row.torch_ms, best_step_ms(torch_learner, batch, slice));
      row.poly_ms = std::min(row.poly_ms, best_step_ms(poly_learner, batch, slice));
      row.poly_weighed_ms = std::min(row.poly_weighed_ms, best_step_ms(weighed, batch, slice));
      row.without_torch_ms = std::min(row.without_torch_ms, best_step_ms(without_torch, batch, slice));
    }
    const double flops = 3 * r.flops_per_position * size;
    row.torch_gflops = flops / (row.torch_ms * 1e-3) / 1e9;
    row.poly_gflops = flops / (row.poly_ms * 1e-3) / 1e9;
    r.rows.push_back(row);
  }
  return r;
}

void write_training_steps(const TrainStepResult& r, bool json, std::ostream& out) {
  if (json) {
    for (const TrainStepRow& row : r.rows) {
      out << nlohmann::json{{"training_step_batch", row.batch}, {"torch_ms", row.torch_ms}, {"poly_ms", row.poly_ms},
                            {"torch_gflops", row.torch_gflops}, {"poly_gflops", row.poly_gflops},
                            {"poly_over_torch", row.ratio()}, {"poly_weighed_fusions_ms", row.poly_weighed_ms},
                            {"without_torch_ms", row.without_torch_ms}, {"without_torch_over_torch", row.torch_ms / row.without_torch_ms}}
                 .dump()
          << std::endl;
    }
    return;
  }
  out << "training step (forward + backward + optimiser; GFLOP/s count 3x the forward pass): torch learner against "
         "the poly learner\n";
  out << format("%6s  %10s %8s  %10s %8s  %10s  %15s %9s  %17s %10s\n", "batch", "torch ms", "GFLOP/s", "poly ms", "GFLOP/s",
                "poly/torch", "weighed fusions", "speed-up", "without LibTorch", "/torch");
  for (const TrainStepRow& row : r.rows) {
    out << format("%6d  %10.3f %8.1f  %10.3f %8.1f  %9.2fx  %12.3f ms %8.2fx  %14.3f ms %9.2fx\n", row.batch, row.torch_ms,
                  row.torch_gflops, row.poly_ms, row.poly_gflops, row.ratio(), row.poly_weighed_ms,
                  row.poly_ms / row.poly_weighed_ms, row.without_torch_ms, row.torch_ms / row.without_torch_ms);
  }
}

}  // namespace pz::bench
