#include "bench/train_bench.h"

#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <thread>

#include "games/registry.h"
#include "mcts/batching_evaluator.h"
#include "mcts/selfplay.h"
#include "nn/encoding.h"
#include "nn/inference_engine.h"
#include "nn/learner.h"
#include "nn/replay_buffer.h"

namespace pz::bench {

namespace {

// Positions have to be counted as they are played, not when their game ends: in a short
// run (Connect Four, 64 games in lockstep × 100 simulations) no game finishes at all.
// SelfPlayActor only reports finished games, so the actors get a game whose initial states
// count the decisions applied to them. Only the actor's own game state is wrapped: the
// search clones it, and clone() hands back the inner game's plain state, so the searches
// run at full speed on unwrapped states.
class CountingState final : public games::State {
 public:
  CountingState(const games::Game* owner, std::unique_ptr<games::State> inner, std::atomic<std::int64_t>& positions)
      : State(owner), inner_(std::move(inner)), positions_(positions) {}

  std::unique_ptr<State> clone() const override { return inner_->clone(); }
  games::Player current_player() const override { return inner_->current_player(); }
  int move_number() const override { return inner_->move_number(); }
  void legal_actions(std::vector<games::Action>& out) const override { inner_->legal_actions(out); }
  void legal_actions(games::Player p, std::vector<games::Action>& out) const override { inner_->legal_actions(p, out); }
  std::string explain_illegal(games::Action action) const override { return inner_->explain_illegal(action); }
  std::vector<std::pair<games::Action, double>> chance_outcomes() const override { return inner_->chance_outcomes(); }
  void apply_action(games::Action action) override {
    // Chance outcomes are not searched positions.
    if (!inner_->is_chance_node()) positions_.fetch_add(1, std::memory_order_relaxed);
    inner_->apply_action(action);
  }
  void apply_joint_action(const std::vector<games::Action>& actions) override {
    positions_.fetch_add(1, std::memory_order_relaxed);
    inner_->apply_joint_action(actions);
  }
  std::vector<double> returns() const override { return inner_->returns(); }
  void observation(games::Player player, float* out) const override { inner_->observation(player, out); }
  std::unique_ptr<State> resample(games::Player player, util::Rng& rng) const override {
    return inner_->resample(player, rng);
  }
  std::string action_to_string(games::Player player, games::Action action) const override {
    return inner_->action_to_string(player, action);
  }
  std::optional<games::Action> parse_action(std::string_view text, std::string* error) const override {
    return inner_->parse_action(text, error);
  }
  std::string to_string() const override { return inner_->to_string(); }
  std::uint64_t hash() const override { return inner_->hash(); }
  std::string serialize() const override { return inner_->serialize(); }

 private:
  std::unique_ptr<games::State> inner_;
  std::atomic<std::int64_t>& positions_;
};

class CountingGame final : public games::Game {
 public:
  CountingGame(std::shared_ptr<const games::Game> inner, std::atomic<std::int64_t>& positions)
      : Game(inner->info(), inner->spec(), inner->symmetries()), inner_(std::move(inner)), positions_(positions) {}

  std::unique_ptr<games::State> new_initial_state() const override {
    return std::make_unique<CountingState>(this, inner_->new_initial_state(), positions_);
  }
  std::unique_ptr<games::State> deserialize(std::string_view text) const override { return inner_->deserialize(text); }
  games::Action transform_action(games::Symmetry symmetry, games::Action action) const override {
    return inner_->transform_action(symmetry, action);
  }
  games::Action transform_chance_outcome(games::Symmetry symmetry, games::Action outcome) const override {
    return inner_->transform_chance_outcome(symmetry, outcome);
  }

 private:
  std::shared_ptr<const games::Game> inner_;
  std::atomic<std::int64_t>& positions_;
};

}  // namespace

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
  nn::Learner learner(*game, lc, config.seed);
  nn::InferenceOptions io;
  io.max_batch = config.actor_threads * config.selfplay.games_per_actor * config.selfplay.leaves_per_tree;
  io.cache_entries = config.cache_entries;
  nn::InferenceEngine engine(*game, learner.network_handle(), io);
  mcts::BatchingEvaluator batching(engine, static_cast<std::size_t>(io.max_batch), std::chrono::microseconds(2000),
                                   config.actor_threads);

  // Self-play: the actors run until the engine is cancelled; positions (searched moves) are
  // counted as they are played, games as they end.
  nn::ReplayBuffer buffer(*game, 1 << 16);
  std::mutex mutex;
  std::atomic<std::int64_t> positions{0}, games{0};
  const auto counting_game = std::make_shared<CountingGame>(game, positions);
  const auto start = Clock::now();
  std::vector<std::thread> actors;
  for (int t = 0; t < config.actor_threads; ++t) {
    actors.emplace_back([&, t] {
      try {
        mcts::SelfPlayActor actor(*counting_game, config.selfplay, batching, config.seed + 17 * static_cast<std::uint64_t>(t) + 1);
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
    learner.train_step(batch);
    ++r.learner_steps;
  }
  r.learner_seconds = std::chrono::duration<double>(Clock::now() - learn_start).count();
  return r;
}

}  // namespace pz::bench
