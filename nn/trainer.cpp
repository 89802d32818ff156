#include "nn/trainer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "arena/match.h"
#include "arena/openings.h"
#include "arena/player_factory.h"
#include "arena/sprt_match.h"
#include "games/registry.h"
#include "mcts/batching_evaluator.h"
#include "mcts/selfplay.h"
#include "nn/encoding.h"
#include "nn/files.h"
#include "nn/inference_engine.h"
#include "nn/metrics.h"
#include "nn/model_file.h"
#include "nn/progress.h"
#include "nn/replay_buffer.h"
#include "nn/run_dir.h"
#include "nn/training_learner.h"
#include "solve/accuracy.h"
#include "util/error.h"
#include "util/fnv1a.h"

namespace pz::nn {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

TrainConfig load_run_config(const std::string& run_dir) {
  const RunDir run(run_dir);
  run.open_existing();
  json j;
  try {
    j = json::parse(read_text_file(run.config_path()));
  } catch (const json::exception& e) {
    throw util::UsageError(run.config_path() + " is not valid JSON: " + e.what());
  }
  return parse_train_config(j);
}

LearnerConfig learner_config(const TrainConfig& config) {
  LearnerConfig lc;
  lc.network = config.network;
  lc.optimizer = config.optimizer;
  lc.scheduler = config.scheduler;
  lc.value_weight = config.value_weight;
  lc.ownership_weight = config.ownership_weight;
  lc.score_weight = config.score_weight;
  lc.backend = config.learner_backend;
  return lc;
}

void check_train_config(const TrainConfig& config) {
  const auto game = games::make_game(config.game);
  // The network, optimiser and schedule, without building a learner (no kernels compiled).
  check_learner_config(*game, learner_config(config));
  // Opponents are built only when evaluations run: `eval.every_steps=0` turns them off, so a
  // recipe's 8x8-only engine does not stop the same recipe on another board size.
  const std::size_t opponents = config.eval_every_steps > 0 ? config.eval_opponents.size() : 0;
  for (std::size_t i = 0; i < opponents; ++i) {
    try {
      arena::make_player(config.eval_opponents[i], *game, config.seed);
    } catch (const util::UsageError& e) {
      throw util::UsageError("eval.opponents[" + std::to_string(i) + "]: " + e.what());
    }
  }
  if (config.gate) {
    try {
      arena::Openings(config.gate_openings, *game);
    } catch (const util::UsageError& e) {
      throw util::UsageError(std::string("eval.gate.openings: ") + e.what());
    }
  }
}

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string hex_hash(std::uint64_t h) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// A game record line: the moves in the game's notation, replayed from the initial state.
json game_record_json(const games::Game& game, const mcts::GameRecord& record) {
  auto state = game.new_initial_state();
  json moves = json::array();
  std::size_t i = 0;
  while (i < record.actions.size() && !state->is_terminal()) {
    if (state->is_simultaneous_node()) {
      const int n = game.info().num_players;
      std::vector<games::Action> joint;
      for (int p = 0; p < n && i < record.actions.size(); ++p, ++i) {
        joint.push_back(record.actions[i]);
        moves.push_back(state->action_to_string(p, record.actions[i]));
      }
      if (static_cast<int>(joint.size()) < n) break;
      state->apply_joint_action(joint);
    } else {
      const games::Action a = record.actions[i++];
      moves.push_back(state->action_to_string(state->current_player(), a));
      state->apply_action(a);
    }
  }
  return {{"game", record.game}, {"moves", moves}, {"returns", record.returns}, {"resigned", record.resigned},
          {"no_resign", record.no_resign}};
}

class Trainer {
 public:
  Trainer(const TrainConfig& config, const TrainOptions& options)
      : config_(config),
        options_(options),
        game_(games::make_game(config.game)),
        run_(options.run_dir),
        buffer_(*game_, config.replay_capacity, config.network.auxiliary()),
        progress_(options.quiet) {
    if (options.run_dir.find(',') != std::string::npos) {
      throw util::UsageError("run directory " + options.run_dir +
                             ": commas are not allowed (model paths appear in player specs)");
    }
  }

  TrainResult run();
  TrainResult run_loop();

 private:
  void restore();
  void restore_from(std::int64_t step);
  void check_checkpoint_form(const std::string& dir) const;
  // Data-parallel: the ranks resume from the newest checkpoint step they all hold (or all
  // start afresh), then take rank 0's weights and optimiser state.
  void restore_in_group();
  void check_group_agrees();
  int rank() const { return options_.group ? options_.group->rank() : 0; }
  [[noreturn]] void stop_diverged(const TrainingDiverged& e);
  void start_actors();
  void stop_actors();
  void run_actor(int index, int games, const std::function<void(mcts::GameRecord&&)>& sink);
  void on_game(mcts::GameRecord&& record);
  bool must_stop(TrainResult& result);
  bool learner_may_step() const;
  // `checkpoint_due`: the ranks' agreement that the checkpoint interval has passed (a single
  // learner reads its own clock).
  void learner_step(bool publish, std::optional<bool> checkpoint_due = std::nullopt);
  bool checkpoint_time_due() const;
  void train_asynchronously(TrainResult& result);
  void train_in_group(TrainResult& result);
  void train_synchronously(TrainResult& result);
  void write_checkpoint();
  void evaluate();
  // eval.gate: an SPRT of the model at `path` against the best one; the actors switch to it
  // when it passes.
  void gate(std::int64_t step, const std::string& path, std::string& summary);
  ModelInfo model_info(std::int64_t step) const;
  void evaluate_accuracy(std::int64_t step, const std::string& model, const std::string& search, std::string& summary);
  solve::PositionSet accuracy_positions();
  void log_step(const StepStats& stats);
  std::string progress_line() const;
  double elapsed() const { return seconds_since(started_); }
  LearnerProgress learner_progress() const;
  void publish_weights();
  std::int64_t stop_step() const { return options_.max_steps > 0 ? options_.max_steps : config_.steps; }

  TrainConfig config_;
  TrainOptions options_;
  std::shared_ptr<const games::Game> game_;
  RunDir run_;
  ReplayBuffer buffer_;
  std::unique_ptr<TrainingLearner> learner_;
  std::unique_ptr<InferenceEngine> engine_;
  std::unique_ptr<mcts::BatchingEvaluator> batching_;
  std::unique_ptr<MetricsLog> metrics_;
  std::ofstream games_out_;
  Progress progress_;

  std::vector<std::unique_ptr<mcts::SelfPlayActor>> actor_objects_;
  std::vector<std::thread> actors_;
  // Synchronous mode: each actor's games of the current round, added in actor order.
  std::vector<std::vector<mcts::GameRecord>> round_records_;
  std::atomic<int> actors_running_{0};
  std::atomic<bool> stopping_{false};
  std::mutex sink_mutex_, error_mutex_;
  std::exception_ptr actor_error_;
  std::atomic<std::int64_t> games_{0};

  Clock::time_point started_ = Clock::now();
  double elapsed_before_ = 0;  // seconds of earlier invocations (resume)
  int resumes_ = 0;
  std::int64_t last_checkpoint_step_ = -1;
  Clock::time_point last_checkpoint_time_ = Clock::now();
  std::string last_checkpoint_;
  std::string previous_model_;
  std::string best_model_;  // eval.gate: the model the actors play
  double learner_seconds_ = 0;
  std::int64_t learner_steps_here_ = 0;
  std::int64_t games_at_start_ = 0, samples_at_start_ = 0;
  StepStats last_stats_;
  std::map<std::string, double> last_eval_;
  std::optional<solve::PositionSet> accuracy_set_;  // labelled at the first evaluation
  Clock::time_point last_summary_ = Clock::now();
  // The previous metrics line, for per-interval rates.
  struct Snapshot {
    double time = 0;
    std::int64_t games = 0, samples = 0, positions = 0, forwards = 0, forward_rows = 0, hits = 0;
  } last_snapshot_;
};

// Resumes from the newest checkpoint that verifies and loads; the damaged newer ones are then
// set aside (damaged-step-N), each with a message. A run that has trained (checkpoints, or models
// past step 0) but has no usable checkpoint is refused: restarting would overwrite its models.
void Trainer::restore() {
  run_.open_existing();
  const auto steps = run_.checkpoint_steps();
  if (!steps.empty()) check_checkpoint_form(run_.checkpoint_dir(steps.back()));
  std::string failures;
  std::vector<std::int64_t> damaged;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    try {
      restore_from(*it);
      for (const std::int64_t step : damaged) run_.set_aside_damaged(step);
      return;
    } catch (const util::UsageError& e) {
      failures += "\n  " + run_.checkpoint_dir(*it) + ": " + e.what();
      progress_.warning("checkpoint " + run_.checkpoint_dir(*it) + " is damaged (" + e.what() + ")" +
                        (std::next(it) != steps.rend() ? "; trying the previous one" : ""));
      damaged.push_back(*it);
    }
  }
  if (!steps.empty() || run_.has_trained()) {
    throw util::UsageError("--resume " + run_.root() + ": no usable checkpoint" +
                           (failures.empty() ? std::string(" (the run has models but no checkpoints)") : ":" + failures) +
                           "\nThe run was not restarted, so its models are kept; start a new run with --run-dir, "
                           "or train from one of its models' weights in a new run.");
  }
  // Killed before its first checkpoint: nothing to restore, start over in the same directory.
  run_.truncate_metrics_after(0);
}

// A checkpoint written by the other kind of learner (training_learner.h) is not damaged: it
// needs the other build, which the message names.
void Trainer::check_checkpoint_form(const std::string& dir) const {
  std::error_code ec;
  if (std::filesystem::exists(dir + "/" + learner_->state_file_name(), ec)) return;
  if (std::filesystem::exists(dir + "/learner.pt", ec)) {
    throw util::UsageError("--resume " + run_.root() + ": its checkpoints hold the state of the learner with LibTorch "
                           "(learner.pt); resume it with a polyzero built with LibTorch");
  }
  if (std::filesystem::exists(dir + "/learner.safetensors", ec)) {
    throw util::UsageError("--resume " + run_.root() + ": its checkpoints hold the state of the learner without "
                           "LibTorch (learner.safetensors); resume it with a polyzero built without LibTorch "
                           "(-DPZ_WITH_TORCH=OFF)");
  }
}

// Loads checkpoint `step` into the learner, the buffer and the counters. Throws
// util::UsageError when it is damaged or does not fit the run's config.
void Trainer::restore_from(std::int64_t step) {
  const std::string dir = run_.checkpoint_dir(step);
  RunDir::verify_manifest(dir);
  const ModelFile model = read_model_file_for(dir + "/model" + run_.model_extension(), *game_);
  if (!(model.info.network == config_.network)) {
    throw util::UsageError("it holds a " + model.info.network.to_json().dump() +
                           " network, but the run's config.json asks for " + config_.network.to_json().dump());
  }
  json state;
  try {
    state = json::parse(read_text_file(dir + "/state.json"));
    games_ = state.at("games").get<std::int64_t>();
    elapsed_before_ = state.at("elapsed_seconds").get<double>();
    resumes_ = state.at("resumes").get<int>() + 1;
    previous_model_ = state.value("previous_model", "");
  } catch (const json::exception& e) {
    throw util::UsageError(std::string("its state.json is corrupt: ") + e.what());
  }
  const int world = options_.group ? options_.group->world_size() : 1;
  const int saved_world = state.value("world_size", 1), saved_rank = state.value("rank", 0);
  if (saved_world != world || saved_rank != rank()) {
    throw util::UsageError("it was written by learner rank " + std::to_string(saved_rank) + " of " +
                           std::to_string(saved_world) + ", and this learner is rank " + std::to_string(rank()) + " of " +
                           std::to_string(world) + ": a run keeps its number of learners; start " +
                           std::to_string(saved_world) + " learner(s) (--world-size " + std::to_string(saved_world) +
                           "), this one as --rank " + std::to_string(saved_rank));
  }
  learner_->set_weights(model.weights);
  learner_->load_state(dir + "/" + learner_->state_file_name());
  if (learner_->step() != step) {
    throw util::UsageError("it is inconsistent: its learner state is at step " + std::to_string(learner_->step()));
  }
  buffer_.load(dir + "/replay.bin");
  if (!previous_model_.empty() && !std::filesystem::exists(previous_model_)) previous_model_.clear();
  last_checkpoint_step_ = step;
  last_checkpoint_ = dir;
  run_.truncate_metrics_after(step);
  if (options_.exchange) options_.exchange->restore(state.value("exchange", json()));
  progress_.message("resumed " + run_.root() + " at step " + std::to_string(step) + " (" +
                    std::to_string(buffer_.size()) + " samples in the buffer, " + std::to_string(games_.load()) +
                    " games so far)");
}

// Every rank lists its newest checkpoints; the ranks resume from the newest step that all of
// them hold and that loads on all of them. A rank killed while its peers wrote a checkpoint
// lacks that one, which then is not used (the peers' games read after the older common
// checkpoint were not acknowledged: the barrier in write_checkpoint() came first, so they are
// read again). No common step: when no rank holds more than its first checkpoint, nothing was
// acknowledged yet and all start afresh; otherwise the directories do not belong together.
void Trainer::restore_in_group() {
  DataParallelGroup& group = *options_.group;
  constexpr std::size_t kListed = 16;
  std::vector<std::int64_t> mine = options_.resume ? run_.checkpoint_steps() : std::vector<std::int64_t>{};
  if (mine.size() > kListed) mine.erase(mine.begin(), mine.end() - static_cast<std::ptrdiff_t>(kListed));
  const auto lists = all_gather(group, std::vector<double>(mine.begin(), mine.end()), kListed, -1);
  std::vector<std::int64_t> common;
  for (auto it = mine.rbegin(); it != mine.rend(); ++it) {
    bool everywhere = true;
    for (const auto& list : lists) everywhere = everywhere && std::find(list.begin(), list.end(), static_cast<double>(*it)) != list.end();
    if (everywhere) common.push_back(*it);
  }
  // Every rank computes the same `common` from the same lists (its own list is one of them).
  std::string held;
  std::size_t most = 0;
  for (std::size_t r = 0; r < lists.size(); ++r) {
    std::string steps;
    std::size_t n = 0;
    for (const double x : lists[r]) {
      if (x < 0) continue;
      steps += (n++ ? ", " : "") + std::to_string(static_cast<std::int64_t>(x));
    }
    most = std::max(most, n);
    held += "\n  rank " + std::to_string(r) + ": " + (steps.empty() ? std::string("none") : steps);
  }
  for (const std::int64_t step : common) {
    std::string failure;
    try {
      restore_from(step);
    } catch (const util::UsageError& e) {
      failure = e.what();
      progress_.warning("checkpoint " + run_.checkpoint_dir(step) + " does not load (" + failure + ")");
    }
    const auto failed = all_reduce_sum(group, {failure.empty() ? 0.0 : 1.0});
    if (failed[0] == 0) {
      for (const std::int64_t s : run_.checkpoint_steps()) {
        if (s <= step) continue;
        progress_.warning("checkpoint " + run_.checkpoint_dir(s) + " is set aside (" + run_.checkpoints_dir() +
                          "/damaged-…): the other learners do not hold step " + std::to_string(s));
        run_.set_aside_damaged(s);
      }
      return;
    }
    if (!failure.empty() && step == common.back()) {
      throw util::UsageError("learner rank " + std::to_string(rank()) + ": no checkpoint that all learners hold loads here: " + failure);
    }
  }
  if (!common.empty()) {
    throw util::UsageError("the learners hold no checkpoint in common that loads on all of them:" + held +
                           "\nSee the other learners' messages.");
  }
  if (most > 1) {
    throw util::UsageError("the learners' run directories hold no checkpoint step in common:" + held +
                           "\nThey are not the directories of one data-parallel run (check --run-dir and --rank), "
                           "or some were removed; start a new run with another --run name.");
  }
  // Nothing in common and at most the first checkpoint anywhere: nothing was acknowledged yet.
  for (const std::int64_t s : mine) {
    progress_.warning("checkpoint " + run_.checkpoint_dir(s) + " is set aside: the other learners did not write " +
                      "theirs; all start afresh");
    run_.set_aside_damaged(s);
  }
  if (options_.resume) run_.truncate_metrics_after(0);
}

// The ranks must train the same config towards the same step.
void Trainer::check_group_agrees() {
  DataParallelGroup& group = *options_.group;
  const std::uint64_t h = util::fnv1a(config_.resolved.dump());
  // Two halves of the hash: float64 holds each exactly.
  const std::vector<double> mine = {static_cast<double>(h >> 32), static_cast<double>(h & 0xFFFFFFFFULL),
                                    static_cast<double>(stop_step()), static_cast<double>(group.world_size())};
  const auto all = all_gather(group, mine, mine.size(), 0);
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r] == mine) continue;
    if (all[r][3] != mine[3]) {
      throw util::UsageError("learner rank " + std::to_string(r) + " was started with --world-size " +
                             std::to_string(static_cast<std::int64_t>(all[r][3])) + ", this one with " +
                             std::to_string(group.world_size()) + ": start every learner with the same world size");
    }
    if (all[r][2] != mine[2]) {
      throw util::UsageError("learner rank " + std::to_string(r) + " stops at step " +
                             std::to_string(static_cast<std::int64_t>(all[r][2])) + ", this one (rank " +
                             std::to_string(rank()) + ") at step " + std::to_string(stop_step()) +
                             ": give every learner the same --steps");
    }
    throw util::UsageError("learner rank " + std::to_string(r) + " has another training config than this one (rank " +
                           std::to_string(rank()) + "): start every learner with the same --game, --config, --set " +
                           "and --backend (resumed learners keep their run directory's config.json)");
  }
}

// A NaN or inf in the loss, the gradients or the weights: nothing more is written from this
// learner (a checkpoint at this step would hold the state that led there), so the newest
// checkpoint and models/latest.pt keep the last finite weights.
void Trainer::stop_diverged(const TrainingDiverged& e) {
  metrics_->write({{"kind", "event"}, {"event", "diverged"}, {"step", e.step()}, {"reason", e.what()},
                   {"time_of_day", iso_time_now()}});
  write_plots(run_.metrics_path(), run_.plots_dir());
  const std::string kept = last_checkpoint_.empty()
                               ? std::string("no checkpoint had been written yet")
                               : "its newest checkpoint " + last_checkpoint_ + " and " + run_.latest_model_path() +
                                     " hold the last finite weights";
  const json clip = config_.optimizer.value("clip_grad_norm", json());
  const std::string remedy = clip.is_number() ? "a lower learner.optimizer.lr or learner.optimizer.clip_grad_norm (now " +
                                                    clip.dump() + ")"
                                              : "a lower learner.optimizer.lr or with learner.optimizer.clip_grad_norm "
                                                "set (e.g. 1.0)";
  throw util::RunError("training diverged: " + std::string(e.what()) + ".\nThe run stopped; " + kept +
                       ".\nStart a new run with " + remedy + ".");
}

void Trainer::start_actors() {
  const auto max_batch =
      static_cast<std::size_t>(selfplay_inference_options(config_, config_.actor_threads).max_batch);
  batching_ = std::make_unique<mcts::BatchingEvaluator>(*engine_, max_batch, std::chrono::microseconds(2000),
                                                        config_.actor_threads);
  for (int t = 0; t < config_.actor_threads; ++t) {
    const std::uint64_t seed = config_.seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(resumes_) * 7919 +
                               static_cast<std::uint64_t>(t) + 1;
    actor_objects_.push_back(std::make_unique<mcts::SelfPlayActor>(*game_, config_.selfplay, *batching_, seed));
  }
  if (config_.synchronous) return;  // rounds start their own threads
  for (int t = 0; t < config_.actor_threads; ++t) {
    // Games never run out: the actor plays until the engine is cancelled.
    actors_.emplace_back([this, t] {
      run_actor(t, std::numeric_limits<int>::max() / 2, [this](mcts::GameRecord&& r) { on_game(std::move(r)); });
    });
  }
}

void Trainer::run_actor(int index, int games, const std::function<void(mcts::GameRecord&&)>& sink) {
  try {
    actor_objects_[static_cast<std::size_t>(index)]->play(games, sink);
  } catch (const Cancelled&) {
  } catch (...) {
    std::lock_guard lock(error_mutex_);
    if (!actor_error_) actor_error_ = std::current_exception();
    stopping_ = true;
  }
  --actors_running_;
}

void Trainer::on_game(mcts::GameRecord&& record) {
  if (stopping_) return;
  auto samples = samples_from_game(*game_, record, config_.q_mix, config_.network);
  buffer_.add(samples);
  ++games_;
  const std::string line = game_record_json(*game_, record).dump();
  std::lock_guard lock(sink_mutex_);
  games_out_ << line << '\n';
  games_out_.flush();
}

void Trainer::stop_actors() {
  stopping_ = true;
  if (engine_) engine_->cancel();
  for (auto& t : actors_) t.join();
  actors_.clear();
}

void Trainer::write_checkpoint() {
  const std::int64_t step = learner_->step();
  if (step == last_checkpoint_step_) return;
  const std::string final_dir = run_.checkpoint_dir(step);
  const std::string tmp = run_.checkpoints_dir() + "/.tmp-step-" + std::to_string(step);
  std::error_code ec;
  std::filesystem::remove_all(tmp, ec);
  std::filesystem::create_directories(tmp);
  ModelInfo info;
  info.game = game_->spec().to_string();
  info.network = config_.network;
  info.step = step;
  info.run = run_.root();
  const NetWeights weights = learner_->current_weights();
  write_model_file(tmp + "/model" + run_.model_extension(), info, weights);
  learner_->save_state(tmp + "/" + learner_->state_file_name());
  buffer_.save(tmp + "/replay.bin");
  sync_path(tmp + "/replay.bin");
  json state = {{"step", step},
                {"games", games_.load()},
                {"samples", buffer_.total_added()},
                {"elapsed_seconds", elapsed_before_ + elapsed()},
                {"resumes", resumes_},
                {"previous_model", previous_model_},
                {"seed", config_.seed},
                {"weights_fnv1a", hex_hash(learner_->weights_hash())}};
  if (options_.group) {
    state["rank"] = options_.group->rank();
    state["world_size"] = options_.group->world_size();
  }
  if (options_.exchange) state["exchange"] = options_.exchange->checkpoint_state();
  write_text_atomically(tmp + "/state.json", state.dump(2) + "\n");
  RunDir::write_manifest(tmp);
  std::filesystem::remove_all(final_dir, ec);
  std::filesystem::rename(tmp, final_dir);
  sync_path(run_.checkpoints_dir());
  // Every rank's checkpoint of this step is durable before any rank acknowledges its games: a
  // rank that dies writing its own makes the others fail here, and all resume from the
  // previous step with these games still pending.
  if (options_.group) all_reduce_sum(*options_.group, {1.0});
  if (options_.exchange) options_.exchange->checkpoint_written(learner_progress());
  // The newest model also under a fixed name, for players and `polyzero info`.
  write_model_file(run_.latest_model_path(), info, weights);
  run_.prune_checkpoints(config_.keep_checkpoints);
  last_checkpoint_step_ = step;
  last_checkpoint_time_ = Clock::now();
  last_checkpoint_ = final_dir;
  write_plots(run_.metrics_path(), run_.plots_dir());
}

// The positions accuracy is measured on: labelled once per run by the game's exact solver
// (a quarter of the longest game in, so that labelling fits its time limit) and kept in the
// run directory, so a resumed run scores on the same set. Empty when the game has no solver
// or none was solved in time.
solve::PositionSet Trainer::accuracy_positions() {
  const std::string path = run_.root() + "/accuracy_positions.jsonl";
  if (std::filesystem::exists(path)) {
    try {
      return solve::load_positions(path, *game_);
    } catch (const util::UsageError& e) {
      progress_.message(std::string("accuracy: relabelling (") + e.what() + ")");
    }
  }
  std::string why;
  if (!solve::make_solver(*game_, &why)) {
    progress_.message("accuracy: off (" + why + ")");
    return {};
  }
  solve::GenerateOptions o;
  o.count = config_.eval_accuracy_positions;
  o.seed = config_.seed;
  o.min_ply = game_->info().max_game_length / 4;
  o.solve_seconds = 2;
  o.total_seconds = config_.eval_accuracy_seconds;
  solve::GenerateStats stats;
  solve::PositionSet set = solve::generate_positions(*game_, o, &stats);
  char buf[200];
  std::snprintf(buf, sizeof buf, "accuracy: %zu positions labelled by the solver in %.0f s%s", set.positions.size(),
                stats.seconds, stats.out_of_time ? " (time limit reached)" : "");
  progress_.message(buf);
  if (!set.positions.empty()) solve::save_positions(path, set);
  return set;
}

// Accuracy (solve/accuracy.h) of the raw policy and of the evaluation search.
void Trainer::evaluate_accuracy(std::int64_t step, const std::string& model, const std::string& search,
                                std::string& summary) {
  if (config_.eval_accuracy_positions <= 0) return;
  if (!accuracy_set_) accuracy_set_ = accuracy_positions();
  if (accuracy_set_->positions.empty()) return;
  for (const auto& [label, spec] : {std::pair<std::string, std::string>{"policy", "policy:model=" + model}, {"search", search}}) {
    const solve::AccuracyReport r = solve::measure_accuracy(*game_, *accuracy_set_, spec, config_.seed);
    const solve::AccuracyShare& harder = r.by_difficulty.back();
    const json line = {{"kind", "accuracy"},   {"step", step},          {"player", label},
                       {"positions", r.all.positions}, {"share", r.all.share}, {"low", r.all.low},
                       {"high", r.all.high},   {"harder_positions", harder.positions}, {"harder_share", harder.share},
                       {"seconds", r.seconds}};
    metrics_->write(line);
    if (options_.log_json) std::cout << line.dump() << std::endl;
    char buf[120];
    std::snprintf(buf, sizeof buf, "  accuracy %s %.0f%% (harder %.0f%%)", label.c_str(), 100 * r.all.share, 100 * harder.share);
    summary += buf;
  }
}

ModelInfo Trainer::model_info(std::int64_t step) const {
  ModelInfo info;
  info.game = game_->spec().to_string();
  info.network = config_.network;
  info.step = step;
  info.run = run_.root();
  return info;
}

void Trainer::gate(std::int64_t step, const std::string& path, std::string& summary) {
  const std::string search = ",sims=" + std::to_string(config_.eval_sims) + ",batch=" + std::to_string(config_.eval_batch);
  arena::SprtMatchOptions options;
  options.tested = "mcts:model=" + path + search;
  options.baseline = "mcts:model=" + best_model_ + search;
  options.sprt = {config_.gate_elo0, config_.gate_elo1, config_.gate_alpha, config_.gate_beta};
  options.max_pairs = config_.gate_max_pairs;
  options.openings = config_.gate_openings;
  options.seed = config_.seed * 1000003ULL + static_cast<std::uint64_t>(step);
  static const std::atomic<bool> never{false};
  arena::TournamentDb records(run_.root() + "/gate.sqlite");
  const auto t0 = Clock::now();
  const auto result = arena::play_sprt(*game_, options, records, options_.stop ? *options_.stop : never);
  const bool accepted = result.status.decision == arena::SprtDecision::kAcceptH1;
  const json line = {{"kind", "gate"},          {"step", step},
                     {"best", best_model_},      {"accepted", accepted},
                     {"decision", arena::decision_name(result.status.decision)},
                     {"llr", result.status.llr}, {"pairs", result.counts.total()},
                     {"score", result.counts.mean_score()}, {"seconds", seconds_since(t0)}};
  metrics_->write(line);
  if (options_.log_json) std::cout << line.dump() << std::endl;
  char buf[160];
  std::snprintf(buf, sizeof buf, "  gate %s after %.0f pairs (score %.2f, LLR %.2f)",
                accepted ? "passed: the actors now play it" : "not passed", result.counts.total(),
                result.counts.mean_score(), result.status.llr);
  summary += buf;
  if (accepted) {
    engine_->publish(learner_->current_weights());
    best_model_ = path;
  }
}

void Trainer::evaluate() {
  const std::int64_t step = learner_->step();
  const std::string path = run_.model_path(step);
  write_model_file(path, model_info(step), learner_->current_weights());
  const std::string me = "mcts:model=" + path + ",sims=" + std::to_string(config_.eval_sims) +
                         ",batch=" + std::to_string(config_.eval_batch);
  std::vector<std::pair<std::string, std::string>> matches;  // (label, opponent spec)
  std::vector<std::string> p1s;
  for (const auto& opponent : config_.eval_opponents) {
    matches.push_back({opponent, opponent});
    p1s.push_back(me);
  }
  if (config_.eval_previous && !previous_model_.empty()) {
    // Both sides sample their first moves: two greedy players would replay two games.
    const std::string temp = ",temp=1,temp_moves=4";
    matches.push_back({"previous", "mcts:model=" + previous_model_ + ",sims=" + std::to_string(config_.eval_sims) +
                                       ",batch=" + std::to_string(config_.eval_batch) + temp});
    p1s.push_back(me + temp);
  }
  std::string summary = "eval at step " + std::to_string(step) + ":";
  for (std::size_t i = 0; i < matches.size(); ++i) {
    arena::MatchOptions mo;
    mo.p1 = p1s[i];
    mo.p2 = matches[i].second;
    mo.games = config_.eval_games;
    mo.threads = 1;
    mo.seed = config_.seed * 1000003ULL + static_cast<std::uint64_t>(step);
    const auto t0 = Clock::now();
    arena::MatchResult result;
    try {
      result = arena::play_match(*game_, mo);
    } catch (const util::UsageError& e) {  // an opponent that cannot play (an engine that does not start)
      metrics_->write({{"kind", "eval_error"}, {"step", step}, {"opponent", matches[i].first}, {"error", e.what()}});
      summary += "  vs " + matches[i].first + ": not played (" + e.what() + ")";
      continue;
    }
    const json line = {{"kind", "eval"},          {"step", step},          {"opponent", matches[i].first},
                       {"games", result.played()}, {"wins", result.wins},   {"draws", result.draws},
                       {"losses", result.losses}, {"score", result.score()}, {"seconds", seconds_since(t0)}};
    metrics_->write(line);
    if (options_.log_json) std::cout << line.dump() << std::endl;
    last_eval_[matches[i].first] = result.score();
    char buf[160];
    std::snprintf(buf, sizeof buf, "  vs %s %d-%d-%d (%.2f)", matches[i].first.c_str(), result.wins, result.draws,
                  result.losses, result.score());
    summary += buf;
  }
  evaluate_accuracy(step, path, me, summary);
  if (config_.gate) gate(step, path, summary);
  progress_.message(summary);
  previous_model_ = path;  // every evaluated model stays: `tournament --run` rates them
}

void Trainer::log_step(const StepStats& stats) {
  const auto es = engine_ ? engine_->stats() : InferenceEngine::Stats{};
  const double now = elapsed();
  const std::int64_t games = games_.load(), samples = buffer_.total_added();
  const double dt = std::max(1e-9, now - last_snapshot_.time);
  json line = {
      {"kind", "train"},
      {"step", stats.step},
      {"time", elapsed_before_ + now},
      {"lr", stats.lr},
      {"loss", stats.loss},
      {"policy_loss", stats.policy_loss},
      {"value_loss", stats.value_loss},
      {"grad_norm", stats.grad_norm},
      {"games", games},
      {"samples", samples},
      {"buffer", buffer_.size()},
      {"games_per_s", static_cast<double>(games - last_snapshot_.games) / dt},
      {"samples_per_s", static_cast<double>(samples - last_snapshot_.samples) / dt},
      // Leaves the search asked the network about (cache hits included): simulations that did
      // not end in a terminal or proven node.
      {"sims_per_s", static_cast<double>(es.positions - last_snapshot_.positions) / dt},
      {"net_evals_per_s", static_cast<double>(es.forward_rows - last_snapshot_.forward_rows) / dt},
      {"mean_batch", es.forwards > last_snapshot_.forwards
                         ? static_cast<double>(es.forward_rows - last_snapshot_.forward_rows) /
                               static_cast<double>(es.forwards - last_snapshot_.forwards)
                         : 0.0},
      {"cache_hit_rate", es.positions > last_snapshot_.positions
                             ? static_cast<double>(es.cache_hits - last_snapshot_.hits) /
                                   static_cast<double>(es.positions - last_snapshot_.positions)
                             : 0.0},
      {"learner_samples_per_s",
       learner_seconds_ > 0 ? static_cast<double>(learner_steps_here_ * config_.batch_size) / learner_seconds_ : 0.0},
  };
  if (config_.network.auxiliary()) {
    line["ownership_loss"] = stats.ownership_loss;
    line["score_loss"] = stats.score_loss;
  }
  metrics_->write(line);
  if (options_.log_json) std::cout << line.dump() << std::endl;
  last_snapshot_ = {now, games, samples, es.positions, es.forwards, es.forward_rows, es.cache_hits};
}

std::string Trainer::progress_line() const {
  const double t = elapsed();
  const std::int64_t step = learner_->step();
  const double games_rate = static_cast<double>(games_.load() - games_at_start_) / std::max(1e-9, t);
  const double sample_rate = static_cast<double>(buffer_.total_added() - samples_at_start_) / std::max(1e-9, t);
  const double step_rate = static_cast<double>(learner_steps_here_) / std::max(1e-9, t);
  double eta = std::numeric_limits<double>::infinity();
  if (step_rate > 0) eta = static_cast<double>(stop_step() - step) / step_rate;
  if (options_.minutes > 0) eta = std::min(eta, options_.minutes * 60 - t);
  const auto es = engine_ ? engine_->stats() : InferenceEngine::Stats{};
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "step %lld/%lld | lr %.4g | loss %.3f (p %.3f v %.3f) | games %s (%.1f/s) | samples %s (%.0f/s) | "
                "buffer %s | batch %.1f | %.2f steps/s | %s elapsed, ETA %s",
                static_cast<long long>(step), static_cast<long long>(stop_step()), learner_->lr(), last_stats_.loss,
                last_stats_.policy_loss, last_stats_.value_loss, format_count(static_cast<double>(games_.load())).c_str(),
                games_rate, format_count(static_cast<double>(buffer_.total_added())).c_str(), sample_rate,
                format_count(static_cast<double>(buffer_.size())).c_str(), es.mean_batch(), step_rate,
                format_duration(t).c_str(), format_duration(eta).c_str());
  return buf;
}

bool Trainer::must_stop(TrainResult& result) {
  if (options_.stop && options_.stop->load()) {
    result.interrupted = true;
    return true;
  }
  if (stopping_) return true;  // an actor failed
  if (learner_->step() >= stop_step()) return true;
  return options_.minutes > 0 && elapsed() >= options_.minutes * 60;
}

bool Trainer::learner_may_step() const {
  const auto added = static_cast<double>(buffer_.total_added());
  const double consumed = static_cast<double>((learner_->step() + 1) * config_.batch_size);
  return buffer_.size() >= config_.min_samples && consumed <= config_.max_replay_ratio * added;
}

LearnerProgress Trainer::learner_progress() const {
  return {learner_->step(), learner_->lr(), games_.load(), buffer_.total_added(), buffer_.size()};
}

void Trainer::publish_weights() {
  if (options_.exchange) {
    options_.exchange->publish(learner_progress(), learner_->current_weights());
  } else {
    engine_->publish(learner_->current_weights());
  }
}

bool Trainer::checkpoint_time_due() const {
  return seconds_since(last_checkpoint_time_) >= config_.checkpoint_every_minutes * 60;
}

void Trainer::learner_step(bool publish, std::optional<bool> checkpoint_due) {
  // Each rank its own stream: ranks never draw the same rows (rank 0's is a single learner's).
  util::Rng rng(config_.seed ^ (static_cast<std::uint64_t>(learner_->step() + 1) * 0xD1B54A32D192ED03ULL) ^
                (static_cast<std::uint64_t>(rank()) * 0x9E3779B97F4A7C15ULL));
  const auto t0 = Clock::now();
  const Batch batch = buffer_.sample(config_.batch_size, rng, config_.augment);
  last_stats_ = learner_->train_step(batch);
  learner_seconds_ += seconds_since(t0);
  ++learner_steps_here_;
  const std::int64_t step = learner_->step();
  if (publish && !config_.gate && step % config_.publish_every == 0) publish_weights();
  if (step % config_.log_every_steps == 0) log_step(last_stats_);
  if (step % config_.checkpoint_every_steps == 0 || checkpoint_due.value_or(checkpoint_time_due())) {
    write_checkpoint();
  }
  if (config_.eval_every_steps > 0 && step % config_.eval_every_steps == 0 && rank() == 0 &&
      (!config_.eval_opponents.empty() || config_.eval_previous || config_.eval_accuracy_positions > 0 || config_.gate)) {
    evaluate();
  }
  if (seconds_since(last_summary_) >= config_.summary_minutes * 60) {
    last_summary_ = Clock::now();
    progress_.message(progress_line());
  }
  progress_.update(progress_line());
}

void Trainer::train_asynchronously(TrainResult& result) {
  auto last_poll = Clock::now() - std::chrono::hours(1);
  while (!must_stop(result)) {
    if (options_.exchange) {  // remote actors: take the games that arrived (at most every 10 ms while training)
      const bool waiting = !learner_may_step();
      if (waiting || seconds_since(last_poll) >= 0.01) {
        options_.exchange->poll(learner_progress(), waiting, [this](mcts::GameRecord&& r) { on_game(std::move(r)); });
        last_poll = Clock::now();
      }
    }
    if (!learner_may_step()) {
      progress_.update(progress_line() + (buffer_.size() < config_.min_samples ? " | filling buffer" : " | waiting for games"));
      if (!options_.exchange) std::this_thread::sleep_for(std::chrono::milliseconds(5));  // poll() waited
      continue;
    }
    learner_step(true);
  }
}

// Data-parallel learners: before each step one small all-reduce agrees on whether every rank
// may step (each has its own buffer, fed by its own share of the games), whether any rank
// must stop, and whether rank 0's checkpoint clock has run out. Waiting ranks poll for
// games (up to 50 ms) between agreements, so no rank sits in a collective while it could
// take games, and heartbeats go on.
void Trainer::train_in_group(TrainResult& result) {
  DataParallelGroup& group = *options_.group;
  auto last_poll = Clock::now() - std::chrono::hours(1);
  for (;;) {
    bool ready = learner_may_step();
    if (options_.exchange && (!ready || seconds_since(last_poll) >= 0.01)) {
      options_.exchange->poll(learner_progress(), !ready, [this](mcts::GameRecord&& r) { on_game(std::move(r)); });
      last_poll = Clock::now();
      ready = learner_may_step();
    }
    TrainResult local;
    const bool stop = must_stop(local);
    const auto votes = all_reduce_sum(group, {ready ? 0.0 : 1.0, local.interrupted ? 1.0 : 0.0, stop ? 1.0 : 0.0,
                                              rank() == 0 && checkpoint_time_due() ? 1.0 : 0.0});
    if (votes[2] > 0) {
      result.interrupted = votes[1] > 0;
      return;
    }
    if (votes[0] > 0) {
      progress_.update(progress_line() + (buffer_.size() < config_.min_samples ? " | filling buffer" : " | waiting for games") +
                       (ready ? " (other learners)" : ""));
      continue;
    }
    learner_step(true, votes[3] > 0);
  }
}

// Rounds: the actors play games_per_thread games each with the weights published at the
// end of the previous round, while the learner trains on the buffer as it was when the round
// began, as far as the replay ratio allows. Then the round's games enter the buffer in actor
// order and the learner's weights are published. What the learner sees at every step thus
// depends on the seed alone, not on how fast either side ran.
void Trainer::train_synchronously(TrainResult& result) {
  round_records_.assign(static_cast<std::size_t>(config_.actor_threads), {});
  while (!must_stop(result)) {
    actors_running_ = config_.actor_threads;
    for (int t = 0; t < config_.actor_threads; ++t) {
      actors_.emplace_back([this, t] {
        auto& records = round_records_[static_cast<std::size_t>(t)];
        run_actor(t, config_.selfplay.games_per_actor, [&records](mcts::GameRecord&& r) { records.push_back(std::move(r)); });
      });
    }
    bool stop = false;
    while (!(stop = must_stop(result)) && learner_may_step()) learner_step(false);
    // Polling rather than joining keeps the progress line alive and a signal honoured.
    while (!stop && actors_running_.load() > 0) {
      progress_.update(progress_line() + (buffer_.size() < config_.min_samples ? " | filling buffer" : " | self-play round"));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      stop = must_stop(result);
    }
    if (stop) return;  // run() cancels the round; its games are dropped like unfinished ones
    for (auto& t : actors_) t.join();
    actors_.clear();
    if (stopping_) return;
    for (auto& records : round_records_) {
      for (auto& r : records) on_game(std::move(r));
      records.clear();
    }
    if (!config_.gate) engine_->publish(learner_->current_weights());
  }
}

TrainResult Trainer::run() {
  check_train_config(config_);
  if (options_.exchange && (config_.synchronous || config_.gate)) {
    throw util::UsageError(std::string(config_.synchronous ? "selfplay.synchronous" : "eval.gate") +
                           " needs the actors in this process; it does not apply to remote actors (--redis)");
  }
  if (options_.group && !options_.exchange) {
    throw util::UsageError("data-parallel learners need remote actors (--redis): each rank reads its own share of the games");
  }
  LearnerConfig learner = learner_config(config_);
  // Data-parallel ranks average LibTorch's gradients (learner.h): "auto" takes that learner.
  if (options_.group && learner.backend == "auto") learner.backend = "torch";
  learner_ = make_training_learner(*game_, learner, config_.seed);
  if (!options_.resume) run_.set_model_extension(default_model_extension());
  if (options_.group) {
    if (options_.resume) {
      run_.open_existing();
    } else {
      run_.create_new();
      write_text_atomically(run_.config_path(), config_.resolved.dump(2) + "\n");
    }
    check_group_agrees();
    restore_in_group();
    learner_->set_group(options_.group);
    learner_->broadcast_from_root();
  } else if (options_.resume) {
    restore();
  } else {
    run_.create_new();
    write_text_atomically(run_.config_path(), config_.resolved.dump(2) + "\n");
  }
  metrics_ = std::make_unique<MetricsLog>(run_.metrics_path());
  if (options_.on_metrics) metrics_->set_observer(options_.on_metrics);
  games_out_.open(run_.games_path(), std::ios::app);
  if (!games_out_) throw util::UsageError("cannot write " + run_.games_path());
  games_at_start_ = games_.load();
  samples_at_start_ = buffer_.total_added();
  if (!options_.resume) {
    metrics_->write({{"kind", "event"}, {"event", "start"}, {"step", 0}, {"game", game_->spec().to_string()},
                     {"parameters", parameter_count(learner_->current_weights())}, {"time_of_day", iso_time_now()}});
  } else {
    metrics_->write({{"kind", "event"}, {"event", "resume"}, {"step", learner_->step()}, {"time_of_day", iso_time_now()}});
  }
  progress_.message("training " + game_->spec().to_string() + " in " + run_.root() + ": " +
                    std::to_string(config_.network.blocks) + "x" + std::to_string(config_.network.channels) + " " +
                    config_.network.type + " network, " + config_.network.describe_heads() + " (" +
                    std::to_string(parameter_count(learner_->current_weights())) + " parameters), " +
                    (options_.group ? "learner rank " + std::to_string(rank()) + " of " +
                                          std::to_string(options_.group->world_size()) + " (data-parallel), "
                                    : std::string()) +
                    (options_.exchange ? std::string("games from remote actors (polyzero selfplay), ")
                                       : std::to_string(config_.actor_threads) + " actor thread(s) x " +
                                             std::to_string(config_.selfplay.games_per_actor) + " games, ") +
                    std::to_string(config_.selfplay.full_simulations) + " simulations per move");

  if (options_.exchange) {  // remote actors: no engine, no actor threads here
    publish_weights();
    return run_loop();
  }
  const InferenceOptions io = selfplay_inference_options(config_, config_.actor_threads);
  engine_ = std::make_unique<InferenceEngine>(*game_, config_.network, learner_->current_weights(), io);
  progress_.message("self-play network backend: " + engine_->backend_name());
  if (config_.gate) {  // the actors start on the network as it is: the first best model
    best_model_ = run_.model_path(learner_->step());
    write_model_file(best_model_, model_info(learner_->step()), learner_->current_weights());
  }
  start_actors();
  return run_loop();
}

TrainResult Trainer::run_loop() {
  TrainResult result;
  try {
    if (options_.group) {
      train_in_group(result);
    } else if (config_.synchronous) {
      train_synchronously(result);
    } else {
      train_asynchronously(result);
    }
  } catch (const TrainingDiverged& e) {
    stop_actors();
    progress_.finish();
    stop_diverged(e);
  } catch (...) {
    stop_actors();
    progress_.finish();
    throw;
  }
  stop_actors();
  {
    std::lock_guard lock(error_mutex_);
    if (actor_error_) {
      progress_.finish();
      std::rethrow_exception(actor_error_);
    }
  }
  if (learner_->step() % config_.log_every_steps != 0 && learner_->step() > 0) log_step(last_stats_);
  write_checkpoint();
  write_plots(run_.metrics_path(), run_.plots_dir());
  metrics_->write({{"kind", "event"}, {"event", result.interrupted ? "interrupted" : "stop"}, {"step", learner_->step()},
                   {"time_of_day", iso_time_now()}});
  progress_.update(progress_line());
  progress_.finish();
  result.step = learner_->step();
  result.games = games_.load();
  result.samples = buffer_.total_added();
  result.checkpoint = last_checkpoint_;
  result.seconds = elapsed();
  result.weights_hash = learner_->weights_hash();
  if (options_.group) {
    progress_.message("learner rank " + std::to_string(rank()) + ": weights fnv1a " + hex_hash(result.weights_hash) +
                      " at step " + std::to_string(result.step));
  }
  progress_.message(std::string(result.interrupted ? "interrupted" : "finished") + " at step " +
                    std::to_string(result.step) + " after " + format_duration(result.seconds) + "; checkpoint " +
                    (result.checkpoint.empty() ? std::string("none") : result.checkpoint) + "; model " +
                    run_.latest_model_path());
  return result;
}

}  // namespace

TrainResult train(const TrainConfig& config, const TrainOptions& options) {
  Trainer trainer(config, options);
  return trainer.run();
}

}  // namespace pz::nn
