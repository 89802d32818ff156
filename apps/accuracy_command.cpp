// polyzero accuracy --game G --player SPEC --positions FILE|generate:N [--seed S] [--plies A-B]
//                   [--save FILE] [--json]
// The share of solver-labelled positions where a player's move keeps the game-theoretic
// value (solve/accuracy.h), with 95% intervals, by phase and by difficulty.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "arena/player_factory.h"
#include "nn/progress.h"
#include "solve/accuracy.h"
#include "util/error.h"
#include "util/stop_signal.h"

namespace pz::apps {

namespace {

nlohmann::json share_json(const solve::AccuracyShare& s) {
  return {{"name", s.name}, {"positions", s.positions}, {"correct", s.correct}, {"share", s.share}, {"low", s.low}, {"high", s.high}};
}

void print_share(const solve::AccuracyShare& s) {
  if (s.positions == 0) {
    std::printf("  %-28s      no positions\n", s.name.c_str());
    return;
  }
  std::printf("  %-28s %5.1f%%  [%5.1f%%, %5.1f%%]  %d of %d\n", s.name.c_str(), 100 * s.share, 100 * s.low, 100 * s.high,
              s.correct, s.positions);
}

// "A-B" → (A, B); "A" → (A, A).
std::pair<int, int> parse_plies(const std::string& text) {
  try {
    const auto dash = text.find('-');
    const int a = std::stoi(text.substr(0, dash));
    const int b = dash == std::string::npos ? a : std::stoi(text.substr(dash + 1));
    if (a < 0 || b < a) throw std::invalid_argument("order");
    return {a, b};
  } catch (const std::exception&) {
    throw util::UsageError("--plies '" + text + "': expected A-B with 0 <= A <= B (e.g. 8-40)");
  }
}

}  // namespace

void add_accuracy_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("accuracy", "share of solver-labelled positions where a player's move keeps the game's value");
  struct Args {
    GameArgs game;
    std::vector<std::string> players;
    std::string positions = "generate:200", save, plies, engine = "uct:sims=200";
    std::uint64_t seed = 1;
    double solve_seconds = 10;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  args->game.add_to(*cmd);
  cmd->add_option("--player,-p", args->players, "player spec(s) to measure (as in match: mcts:model=…,sims=800, policy:model=…)")->required();
  cmd->add_option("--positions", args->positions, "a saved position set, or generate:N to label N new positions")->capture_default_str();
  cmd->add_option("--seed", args->seed, "seed of the generated positions and of the players")->capture_default_str();
  cmd->add_option("--plies", args->plies, "generate: plies A-B at which positions are taken (default: a fifth of the longest game to its end)");
  cmd->add_option("--engine", args->engine, "generate: the player that makes the non-random moves of the games")->capture_default_str();
  cmd->add_option("--solve-seconds", args->solve_seconds, "generate: solver time per position; slower ones are skipped")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--save", args->save, "generate: write the labelled positions here (reload with --positions FILE)");
  cmd->add_flag("--json", args->json, "one JSON object per player");
  cmd->callback([args] {
    const auto game = args->game.make();
    // A misspelt player is an error now, not after minutes of labelling.
    for (const std::string& spec : args->players) {
      if (arena::make_player(spec, *game, args->seed)->is_human()) {
        throw util::UsageError("--player " + spec + ": accuracy measures an AI; a person cannot be asked for thousands of moves");
      }
    }
    const auto& stop = util::install_stop_signal_handlers();
    solve::PositionSet set;
    const std::string prefix = "generate:";
    if (args->positions.rfind(prefix, 0) == 0) {
      solve::GenerateOptions o;
      try {
        o.count = std::stoi(args->positions.substr(prefix.size()));
      } catch (const std::exception&) {
        o.count = 0;
      }
      if (o.count < 1 || o.count > 1000000) throw util::UsageError("--positions generate:N needs 1 <= N <= 1000000");
      o.seed = args->seed;
      o.engine = args->engine;
      o.solve_seconds = args->solve_seconds;
      if (!args->plies.empty()) std::tie(o.min_ply, o.max_ply) = parse_plies(args->plies);
      o.stop = &stop;
      // Labelling takes minutes at a solve budget of seconds: the trainer's progress line says how far it is.
      nn::Progress progress(false);
      o.on_labelled = [&progress, count = o.count](int labelled, double seconds) {
        progress.update("labelled " + std::to_string(labelled) + " of " + std::to_string(count) + " positions (" +
                        nn::format_duration(seconds) + ")");
      };
      solve::GenerateStats stats;
      set = solve::generate_positions(*game, o, &stats);
      progress.finish();
      std::fprintf(stderr, "%zu positions labelled in %.1f s (skipped: %d over the solve budget, %d where every move is equal)%s\n",
                   set.positions.size(), stats.seconds, stats.skipped_over_budget, stats.skipped_no_choice,
                   stats.stopped ? "; stopped by Ctrl-C" : "");
      // Ctrl-C keeps what was labelled: saved, and measured by a later run on the file.
      if (!args->save.empty() && !set.positions.empty()) solve::save_positions(args->save, set);
      if (stats.stopped) {
        if (!args->save.empty() && !set.positions.empty())
          std::fprintf(stderr, "saved to %s: measure on them with --positions %s\n", args->save.c_str(), args->save.c_str());
        return;
      }
    } else {
      if (!args->save.empty()) throw util::UsageError("--save goes with --positions generate:N");
      set = solve::load_positions(args->positions, *game);
    }
    if (set.positions.empty()) throw util::UsageError("no positions to measure on");
    for (const std::string& spec : args->players) {
      const solve::AccuracyReport r = solve::measure_accuracy(*game, set, spec, args->seed, &stop);
      if (r.stopped) std::fprintf(stderr, "stopped by Ctrl-C: %s measured on the first %d positions\n", spec.c_str(), r.all.positions);
      if (args->json) {
        nlohmann::json phases = nlohmann::json::array(), difficulty = nlohmann::json::array();
        for (const auto& s : r.by_phase) phases.push_back(share_json(s));
        for (const auto& s : r.by_difficulty) difficulty.push_back(share_json(s));
        std::cout << nlohmann::json{{"game", game->spec().to_string()}, {"player", r.player}, {"all", share_json(r.all)},
                                    {"by_phase", phases}, {"by_difficulty", difficulty}, {"seconds", r.seconds}}
                         .dump()
                  << std::endl;
        continue;
      }
      std::printf("%s on %d positions of %s (%.1f s):\n", r.player.c_str(), r.all.positions, game->spec().to_string().c_str(), r.seconds);
      print_share(r.all);
      for (const auto& s : r.by_difficulty) print_share(s);
      for (const auto& s : r.by_phase) print_share(s);
    }
  });
}

}  // namespace pz::apps
