#include "mcts/selfplay.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "mcts/batching_evaluator.h"
#include "mcts/determinization.h"
#include "mcts/move_choice.h"

namespace pz::mcts {

bool GameRecord::false_resignation() const {
  if (!no_resign || would_have_resigned < 0 || returns.size() < 2) return false;
  const auto seat = static_cast<std::size_t>(would_have_resigned);
  return returns[seat] >= returns[1 - seat];
}

struct SelfPlayActor::Slot {
  std::unique_ptr<Search> search;
  std::unique_ptr<games::State> state;
  GameRecord record;
  bool active = false;
  bool full = true;
  int low_streak[2] = {0, 0};
};

SelfPlayActor::SelfPlayActor(const games::Game& game, SelfPlayConfig config, Evaluator& evaluator, std::uint64_t seed)
    : game_(game), config_(std::move(config)), evaluator_(evaluator), rng_(seed) {
  if (config_.games_per_actor < 1 || config_.leaves_per_tree < 1 || config_.full_simulations < 1) {
    throw std::invalid_argument("self-play: games_per_actor, leaves_per_tree and full_simulations must be >= 1");
  }
  for (int i = 0; i < config_.games_per_actor; ++i) {
    auto slot = std::make_unique<Slot>();
    SearchConfig sc = config_.search;
    sc.simulations = config_.full_simulations;
    sc.threads = 1;
    slot->search = std::make_unique<Search>(game_, sc, rng_());
    slots_.push_back(std::move(slot));
  }
}

SelfPlayActor::~SelfPlayActor() = default;

void SelfPlayActor::start_game(Slot& slot) {
  --games_to_start_;
  slot.active = true;
  slot.state = game_.new_initial_state();
  slot.record = GameRecord{};
  slot.record.game = game_.spec().to_string();
  slot.record.no_resign = config_.resign && rng_.uniform() < config_.no_resign_fraction;
  slot.low_streak[0] = slot.low_streak[1] = 0;
  slot.search->set_root(*slot.state);
  slot.search->clear_tree();
  if (prepare_move(slot)) return;
}

bool SelfPlayActor::prepare_move(Slot& slot) {
  games::State& state = *slot.state;
  while (state.is_chance_node()) {
    const games::Action outcome = sample_chance_outcome(state, rng_);
    slot.record.actions.push_back(outcome);
    state.apply_action(outcome);
    slot.search->advance(outcome);
  }
  const int max_moves = config_.max_moves > 0 ? config_.max_moves : game_.info().max_game_length;
  if (state.is_terminal() || (max_moves > 0 && state.move_number() >= max_moves)) {
    finish(slot, state.returns());
    return false;
  }
  slot.full = config_.fast_simulations <= 0 || rng_.uniform() < config_.full_search_probability;
  SearchConfig sc = slot.search->config();
  sc.simulations = slot.full ? config_.full_simulations : config_.fast_simulations;
  sc.root_noise = slot.full && config_.search.root_noise;
  sc.forced_playouts = slot.full && config_.search.forced_playouts;
  slot.search->set_config(sc);
  // Hidden information: the search sees one world consistent with what the mover has
  // observed, never the true hidden state (determinization.h).
  if (needs_worlds(state)) {
    slot.search->set_root(*world_for(state, state.current_player(), rng_));
  } else {
    slot.search->set_root(state);
  }
  slot.search->begin();
  return true;
}

void SelfPlayActor::finish(Slot& slot, std::vector<double> returns) {
  slot.record.returns = std::move(returns);
  slot.active = false;
  (*sink_)(std::move(slot.record));
  if (games_to_start_ > 0) start_game(slot);
}

void SelfPlayActor::make_move(Slot& slot) {
  games::State& state = *slot.state;
  if (positions_) positions_->fetch_add(1, std::memory_order_relaxed);
  const SearchConfig& sc = slot.search->config();
  const bool prune = config_.prune_policy_target && sc.forced_playouts;
  if (state.is_simultaneous_node()) {
    std::vector<games::Action> joint;
    for (int seat = 0; seat < 2; ++seat) {
      const SearchReport report = slot.search->report(seat);
      if (slot.full) {
        slot.record.samples.push_back({state.serialize(), seat, state.move_number(), policy_target(report, sc, prune),
                                       report.value(), true});
      }
      joint.push_back(choose_move(report, config_.move_selection, state.move_number(), rng_));
    }
    slot.record.actions.insert(slot.record.actions.end(), joint.begin(), joint.end());
    state.apply_joint_action(joint);
    slot.search->advance_joint(joint);
  } else {
    const SearchReport report = slot.search->report();
    const games::Player mover = state.current_player();
    TrainingSample sample{state.serialize(), mover, state.move_number(), {}, report.value(), slot.full};
    if (slot.full) sample.policy = policy_target(report, sc, prune);
    slot.record.samples.push_back(std::move(sample));

    if (config_.resign && game_.info().num_players == 2 && mover >= 0 && mover < 2) {
      const double value = report.value();
      slot.low_streak[mover] = value < config_.resign_threshold ? slot.low_streak[mover] + 1 : 0;
      if (slot.low_streak[mover] >= config_.resign_consecutive) {
        if (!slot.record.no_resign) {
          slot.record.resigned = mover;
          std::vector<double> returns(2);
          returns[static_cast<std::size_t>(mover)] = game_.info().min_return;
          returns[static_cast<std::size_t>(1 - mover)] = game_.info().max_return;
          finish(slot, std::move(returns));
          return;
        }
        if (slot.record.would_have_resigned < 0) slot.record.would_have_resigned = mover;
      }
    }
    const games::Action action = choose_move(report, config_.move_selection, state.move_number(), rng_);
    slot.record.actions.push_back(action);
    state.apply_action(action);
    slot.search->advance(action);
  }
  prepare_move(slot);
}

void SelfPlayActor::play(int games, const std::function<void(GameRecord&&)>& sink) {
  sink_ = &sink;
  games_to_start_ = games;
  for (auto& slot : slots_) {
    if (games_to_start_ > 0) start_game(*slot);
  }
  LeafBatch batch;
  for (;;) {
    bool any = false;
    for (auto& slot : slots_) {
      if (!slot->active) continue;
      any = true;
      slot->search->gather(batch, config_.leaves_per_tree, rng_);
    }
    if (!any) break;
    if (!batch.empty()) {
      ++evaluator_calls_;
      leaves_evaluated_ += static_cast<std::int64_t>(batch.size());
      evaluate_batch(evaluator_, batch);
    }
    for (auto& slot : slots_) {
      // A move can end a game and start the next in this slot; one move per step is enough.
      if (slot->active && slot->search->finished()) make_move(*slot);
    }
  }
  sink_ = nullptr;
}

void run_selfplay(const games::Game& game, const SelfPlayConfig& config, Evaluator& evaluator, int threads, int games,
                  std::uint64_t seed, const std::function<void(GameRecord&&)>& sink) {
  threads = std::max(1, threads);
  const auto max_batch = static_cast<std::size_t>(threads * config.games_per_actor * config.leaves_per_tree);
  BatchingEvaluator batching(evaluator, max_batch, std::chrono::microseconds(2000), threads);
  std::mutex sink_mutex;
  const std::function<void(GameRecord&&)> locked_sink = [&](GameRecord&& record) {
    std::lock_guard lock(sink_mutex);
    sink(std::move(record));
  };
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    const int share = games / threads + (t < games % threads ? 1 : 0);
    pool.emplace_back([&, t, share] {
      try {
        SelfPlayActor actor(game, config, batching, seed + 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(t + 1));
        actor.play(share, locked_sink);
      } catch (...) {
        errors[static_cast<std::size_t>(t)] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace pz::mcts
