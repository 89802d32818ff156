#include "bench/train_bench.h"

#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "bench/text.h"
#include "games/registry.h"
#include "mcts/batching_evaluator.h"
#include "mcts/selfplay.h"
#include "nn/encoding.h"
#include "nn/inference_engine.h"
#include "nn/training_learner.h"
#include "nn/replay_buffer.h"

namespace pz::bench {

TrainBenchResult measure_training(const nn::TrainConfig& config, double seconds) {
  using Clock = std::chrono::steady_clock;
  torch::set_num_threads(1);
  const auto game = games::make_game(config.game);
  TrainBenchResult r;
  r.game = game->spec().to_string();
  r.threads = config.actor_threads;
  r.games_per_thread = config.selfplay.games_per_actor;
  r.simulations = config.selfplay.full_simulations;
  r.batch_size = config.batch_size;

  nn::LearnerConfig lc;
  lc.network = config.network;
  lc.optimizer = config.optimizer;
  lc.scheduler = config.scheduler;
  lc.backend = config.learner_backend;
  const auto learner = nn::make_training_learner(*game, lc, config.seed);
  const nn::InferenceOptions io = nn::selfplay_inference_options(config, config.actor_threads);
  nn::InferenceEngine engine(*game, config.network, learner->current_weights(), io);
  mcts::BatchingEvaluator batching(engine, static_cast<std::size_t>(io.max_batch), std::chrono::microseconds(2000),
                                   config.actor_threads);

  // Self-play: the actors run until the engine is cancelled; positions (searched moves) are
  // counted as they are played, games as they end.
  nn::ReplayBuffer buffer(*game, 1 << 16, config.network.auxiliary());
  std::mutex mutex;
  std::atomic<std::int64_t> positions{0}, games{0};
  const auto start = Clock::now();
  std::vector<std::thread> actors;
  for (int t = 0; t < config.actor_threads; ++t) {
    actors.emplace_back([&, t] {
      try {
        mcts::SelfPlayActor actor(*game, config.selfplay, batching, config.seed + 17 * static_cast<std::uint64_t>(t) + 1);
        // Counted as they are played: in a short run (Connect Four, 64 games in lockstep ×
        // 100 simulations) no game finishes at all.
        actor.count_positions(&positions);
        actor.play(std::numeric_limits<int>::max() / 2, [&](mcts::GameRecord&& record) {
          ++games;
          auto samples = nn::samples_from_game(*game, record, config.q_mix, config.network);
          std::lock_guard lock(mutex);
          buffer.add(samples);
        });
      } catch (const nn::Cancelled&) {
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const auto stats = engine.stats();
  r.selfplay_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.positions = positions.load();
  r.games = games.load();
  engine.cancel();
  for (auto& a : actors) a.join();
  r.leaf_evaluations = stats.positions;
  r.net_evaluations = stats.forward_rows;
  r.forwards = stats.forwards;
  r.cache_hits = stats.cache_hits;

  // Learner: steps on what self-play produced (random planes when it produced nothing).
  if (buffer.size() == 0) {
    nn::Sample s;
    s.observation.assign(static_cast<std::size_t>(game->info().observation_shape.size()), 0.0f);
    s.policy.assign(static_cast<std::size_t>(game->info().policy_shape.size()), 0.0f);
    s.policy[0] = 1.0f;
    s.value.assign(static_cast<std::size_t>(nn::net_shape(game->info()).value_outputs), 0.0f);
    buffer.add({s});
  }
  util::Rng rng(config.seed);
  const auto learn_start = Clock::now();
  const double learn_budget = std::max(1.0, seconds / 2);
  while (std::chrono::duration<double>(Clock::now() - learn_start).count() < learn_budget || r.learner_steps < 3) {
    const auto batch = buffer.sample(config.batch_size, rng, config.augment);
    learner->train_step(batch);
    ++r.learner_steps;
  }
  r.learner_seconds = std::chrono::duration<double>(Clock::now() - learn_start).count();
  return r;
}

namespace {

nlohmann::json train_json(const TrainBenchResult& r, const std::string& backend) {
  return {{"game", r.game},
          {"backend", backend},
          {"threads", r.threads},
          {"games_per_thread", r.games_per_thread},
          {"simulations", r.simulations},
          {"selfplay_seconds", r.selfplay_seconds},
          {"games", r.games},
          {"positions_per_second", r.positions_per_second()},
          {"leaf_evaluations_per_second", r.leaf_evaluations_per_second()},
          {"net_evaluations_per_second", r.net_evaluations_per_second()},
          {"mean_batch", r.mean_batch()},
          {"cache_hits", r.cache_hits},
          {"batch_size", r.batch_size},
          {"learner_steps", r.learner_steps},
          {"learner_samples_per_second", r.learner_samples_per_second()}};
}

std::string train_text(const TrainBenchResult& r, const std::string& backend) {
  return format("game %s, backend %s: %d actor thread(s) x %d games, %d simulations per move\n", r.game.c_str(),
                backend.c_str(), r.threads, r.games_per_thread, r.simulations) +
         format("  self-play   %10.1f positions/s  (%lld games finished in %.1f s)\n", r.positions_per_second(),
                static_cast<long long>(r.games), r.selfplay_seconds) +
         format("  search      %10.0f leaf evaluations/s (%lld cache hits)\n", r.leaf_evaluations_per_second(),
                static_cast<long long>(r.cache_hits)) +
         format("  network     %10.0f evaluations/s, mean batch %.1f\n", r.net_evaluations_per_second(), r.mean_batch()) +
         format("  learner     %10.0f samples/s (batch %d, %lld steps)\n", r.learner_samples_per_second(), r.batch_size,
                static_cast<long long>(r.learner_steps));
}

}  // namespace

void run_train_bench(nn::TrainConfig config, const TrainBenchOptions& options, std::ostream& out) {
  for (const std::string& backend : options.backends) {
    config.backend = backend;
    const auto r = measure_training(config, options.seconds);
    out << (options.json ? train_json(r, backend).dump() + "\n" : train_text(r, backend)) << std::flush;
  }
}

}  // namespace pz::bench
