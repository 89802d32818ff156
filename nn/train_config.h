// A training run's configuration: one JSON document, checked field by field.
//
// Where it comes from (train_command): built-in defaults (default_train_config), merged
// with configs/<game>.json when there is one (RFC 7386 merge patch), then the command
// line's --config file and --set overrides. The resolved document — every default spelled
// out — is written to the run directory as config.json, and a resumed run reads only that.
//
//   game        game spec ("connect4")
//   seed        run seed (weights, actors, sampling)
//   network     net_config.h
//   selfplay    threads, games_per_thread (trees in lockstep per thread), simulations,
//               fast_simulations + full_search_probability (playout-cap randomisation),
//               leaves_per_tree, c_puct, c_puct_base, fpu, root_noise, noise_fraction,
//               noise_alpha_total, forced_playouts, temperature, temperature_moves,
//               final_temperature, resign, resign_threshold, resign_consecutive,
//               no_resign_fraction, max_moves, solver, win_check (search_config.h:
//               check_immediate_wins), cache_entries (evaluation cache),
//               synchronous (actors and learner in lockstep rounds, trainer.h: the run is
//               reproducible from its seed however loaded the machine is), backend (the
//               actors' network backend: "auto", "torch" or "poly", backend.h),
//               backend_threads (threads of one evaluation; the actors are the parallelism)
//   replay      capacity, min_samples (before the first step), max_replay_ratio (each
//               sample is trained on at most this many times on average: the learner waits
//               for self-play beyond it), q_mix (search value blended into the value target),
//               augment (random symmetry per sample)
//   learner     batch_size, steps (the run's length: the schedule is sized to it),
//               publish_every (steps between weight hot-swaps to the actors), value_weight,
//               ownership_weight and score_weight (the auxiliary heads' loss weights, for a
//               network with them: net_config.h; learner.h has the losses),
//               backend (the learner's network passes: "torch", LibTorch's ops, or "poly",
//               the kernels polyc generates, nn/poly/training.h),
//               optimizer (optim/optimizer_config.h), scheduler (optim/scheduler_factory.h;
//               a poly schedule without total_iters gets steps − warmup steps)
//   checkpoint  every_steps, every_minutes, keep (the newest N are kept)
//   eval        every_steps (0: never), games, sims, batch (leaves per evaluation),
//               opponents (player specs), previous (also play the previous evaluation's model),
//               accuracy_positions (positions labelled by the game's exact solver once per
//               run, on which the raw policy and the search are scored: solve/accuracy.h;
//               0: off), accuracy_seconds (the labelling's time limit), gate (an object:
//               enabled, elo0, elo1, alpha, beta, max_pairs, openings — when enabled the
//               actors play the best model so far, and each evaluated model replaces it only
//               when an SPRT of the two (arena/sprt_match.h) accepts that it is elo1 stronger,
//               as AlphaGo Zero's evaluator gated its self-play network; a run starts, and
//               resumes, with the network it has as the best; games in RUN/gate.sqlite)
//   log         every_steps (metrics lines), summary_minutes (terminal summaries)
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "games/game.h"

#include "mcts/selfplay.h"
#include "nn/net_config.h"

namespace pz::nn {

struct TrainConfig {
  std::string game;
  std::uint64_t seed = 1;
  NetConfig network;

  int actor_threads = 1;
  mcts::SelfPlayConfig selfplay;
  std::size_t cache_entries = 0;
  bool synchronous = false;
  std::string backend = "auto";  // the actors' network backend (backend.h)
  int backend_threads = 1;        // threads of one self-play network evaluation (backend.h)

  std::size_t replay_capacity = 100000;
  std::size_t min_samples = 1000;
  double max_replay_ratio = 8.0;
  double q_mix = 0.0;
  bool augment = true;

  int batch_size = 256;
  std::int64_t steps = 10000;
  int publish_every = 50;
  double value_weight = 1.0;
  double ownership_weight = 1.5, score_weight = 0.5;
  std::string learner_backend = "auto";  // "auto", "torch" or "poly" (learner.h)
  nlohmann::json optimizer, scheduler;

  int checkpoint_every_steps = 500;
  double checkpoint_every_minutes = 5.0;
  int keep_checkpoints = 3;

  int eval_every_steps = 0;
  int eval_games = 20;
  int eval_sims = 64;
  int eval_batch = 8;
  std::vector<std::string> eval_opponents;
  bool eval_previous = true;
  int eval_accuracy_positions = 100;
  double eval_accuracy_seconds = 60;
  bool gate = false;
  double gate_elo0 = 0, gate_elo1 = 20, gate_alpha = 0.05, gate_beta = 0.05;
  int gate_max_pairs = 100;
  std::string gate_openings = "random:4";

  int log_every_steps = 10;
  double summary_minutes = 2.0;

  nlohmann::json resolved;  // the whole config, defaults filled in (what config.json holds)
};

// The defaults every game starts from (configs/<game>.json overrides them).
nlohmann::json default_train_config();

// configs/<game_name>.json, found as util/data_dirs.h finds data ($PZ_CONFIG_DIR, or a
// configs/ beside the program or above the working directory), or "" where there is none.
std::string find_recipe_file(const std::string& game_name);

// The game a new run of `spec` trains: the spec as given, or, when it names a game without
// options, the board its recipe (configs/<game>.json) was made for (its "game", e.g.
// "hex:size=8,swap=false").
std::shared_ptr<const games::Game> recipe_game(const std::string& spec);

// The config a new run of `game` starts from: the defaults, merged with its recipe where
// there is one, "game" set to the game's spec.
nlohmann::json recipe_config(const games::Game& game);

// Throws util::UsageError naming the field for anything wrong or unknown.
TrainConfig parse_train_config(const nlohmann::json& config);

// Applies "a.b.c=VALUE" (VALUE as JSON, or a plain string when it is not JSON).
void apply_override(nlohmann::json& config, const std::string& assignment);

}  // namespace pz::nn
