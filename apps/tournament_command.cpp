// polyzero tournament: ratings of several players from a round-robin or gauntlet
// (arena/tournament.h), stored in SQLite and resumable; or, with --run, of a training run's
// models against fixed anchors, with the rating curve drawn into the run directory.
#include <filesystem>
#include <iostream>
#include <regex>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "arena/player_factory.h"
#include "arena/tournament.h"
#include "arena/tournament_report.h"
#include "games/registry.h"
#include "nn/run_dir.h"
#include "util/error.h"
#include "util/files.h"
#include "util/spec.h"
#include "util/stop_signal.h"
#include "util/svg_plot.h"

namespace pz::apps {
namespace {

struct TournamentArgs {
  GameArgs game;
  std::vector<std::string> players;
  std::string format = "round-robin";
  int games = 10;
  int concurrency = 1;
  std::string openings;
  std::string db;
  std::int64_t seed = 1;
  int max_moves = 0;
  std::string anchor;
  bool json = false;
  bool quiet = false;
  // --run
  std::string run;
  std::vector<std::string> anchors = {"random", "uct:sims=200"};
  int sims = 200;
  int max_models = 8;
};

std::string duration_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%ldh%02ldm", s / 3600, s / 60 % 60);
  } else {
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  }
  return text;
}

// "--anchor SPEC[=ELO]": the player (by its spec as listed) whose rating is fixed.
arena::RatingOptions rating_options(const std::string& anchor, const std::vector<std::string>& players) {
  arena::RatingOptions options;
  if (anchor.empty()) return options;
  std::string spec = anchor;
  const auto equals = anchor.rfind('=');
  // A trailing "=number" is the rating; a spec's own options also contain '=', so only a
  // number after the last '=' counts, and only when the rest is a listed player.
  if (equals != std::string::npos) {
    const std::string value = anchor.substr(equals + 1);
    char* end = nullptr;
    const double elo = std::strtod(value.c_str(), &end);
    const std::string head = anchor.substr(0, equals);
    if (!value.empty() && end && *end == '\0' && std::find(players.begin(), players.end(), head) != players.end()) {
      if (!std::isfinite(elo) || std::abs(elo) > 100000) {
        throw util::UsageError("--anchor " + anchor + ": the rating must lie between -100000 and 100000");
      }
      spec = head;
      options.anchor_elo = elo;
    }
  }
  const auto it = std::find(players.begin(), players.end(), spec);
  if (it == players.end()) {
    throw util::UsageError("--anchor '" + spec + "' is not one of the players; give a player's spec exactly as listed, "
                           "optionally followed by =ELO");
  }
  options.anchor = static_cast<int>(it - players.begin());
  return options;
}

// The game a training run played, from its config.json.
std::shared_ptr<const games::Game> run_game(const std::string& run) {
  const std::string path = nn::RunDir(run).config_path();
  if (!std::filesystem::is_regular_file(path)) {
    throw util::UsageError(run + " is not a training run directory (no config.json in it); give the directory "
                           "`train` wrote, e.g. runs/connect4-20261201-101500");
  }
  const auto config = nlohmann::json::parse(util::read_text_file(path), nullptr, false);
  if (!config.is_object() || !config.contains("game") || !config["game"].is_string()) {
    throw util::UsageError(path + " does not name the run's game (\"game\": \"...\")");
  }
  return games::make_game(config["game"].get<std::string>());
}

// The run's evaluated models (models/step-N.pt), oldest first, thinned to at most `max`
// evenly spaced ones (the newest always kept).
std::vector<std::pair<std::int64_t, std::string>> run_models(const std::string& run, int max) {
  const nn::RunDir dir(run);
  if (!std::filesystem::is_directory(dir.models_dir())) {
    throw util::UsageError(run + " is not a training run directory (no models/ in it); give the directory `train` "
                           "wrote, e.g. runs/connect4-20261201-101500");
  }
  std::vector<std::pair<std::int64_t, std::string>> models;
  const std::regex name(R"(step-(\d{1,15})\.pt)");
  for (const auto& entry : std::filesystem::directory_iterator(dir.models_dir())) {
    std::smatch match;
    const std::string file = entry.path().filename().string();
    if (std::regex_match(file, match, name)) models.emplace_back(std::stoll(match[1].str()), entry.path().string());
  }
  if (models.empty()) {
    throw util::UsageError(run + "/models has no step-N.pt models yet; a run writes one at each evaluation");
  }
  std::sort(models.begin(), models.end());
  if (static_cast<int>(models.size()) <= max) return models;
  std::vector<std::pair<std::int64_t, std::string>> kept;
  for (int k = 0; k < max; ++k) {
    kept.push_back(models[static_cast<std::size_t>((models.size() - 1) * static_cast<std::size_t>(k) / static_cast<std::size_t>(max - 1))]);
  }
  return kept;
}

void write_rating_plot(const std::string& run, const std::vector<std::pair<std::int64_t, std::string>>& models,
                       const arena::RatingReport& report, int first_model) {
  util::PlotSeries rating{"Elo", {}, {}}, low{"95% low", {}, {}}, high{"95% high", {}, {}};
  for (std::size_t k = 0; k < models.size(); ++k) {
    const int i = first_model + static_cast<int>(k);
    if (!report.ratings.rated(i)) continue;
    const double x = static_cast<double>(models[k].first);
    const double elo = report.ratings.elo[static_cast<std::size_t>(i)], half = report.ratings.interval95(i);
    rating.x.push_back(x), rating.y.push_back(elo);
    low.x.push_back(x), low.y.push_back(elo - half);
    high.x.push_back(x), high.y.push_back(elo + half);
  }
  util::PlotOptions plot;
  plot.title = "Rating against training step (anchor " + report.players[static_cast<std::size_t>(report.options.anchor)] +
               " = " + std::to_string(static_cast<int>(report.options.anchor_elo)) + ")";
  plot.x_label = "training step";
  plot.y_label = "Elo";
  const nn::RunDir dir(run);
  std::filesystem::create_directories(dir.plots_dir());
  util::write_text_atomically(dir.root() + "/ratings.svg", util::svg_line_plot({rating, low, high}, plot));
}

void print_report(const TournamentArgs& args, const arena::Tournament& tournament, const arena::RatingReport& report,
                  bool stopped) {
  const auto& record = tournament.record();
  const int played = static_cast<int>(tournament.games().size());
  if (args.json) {
    auto out = arena::rating_report_json(report);
    out["game"] = record.game;
    out["format"] = record.format;
    out["games_per_pairing"] = record.games_per_pairing;
    out["games_played"] = played;
    out["games_total"] = tournament.total_games();
    out["complete"] = played == tournament.total_games();
    out["tournament_id"] = record.id;
    std::cout << out.dump() << std::endl;
    return;
  }
  std::cout << record.game << ", " << record.format << ", " << played << " of " << tournament.total_games()
            << " games (" << record.games_per_pairing << " per pairing"
            << (record.openings.empty() ? "" : ", openings " + record.openings) << ")\n\n";
  std::cout << arena::rating_table_text(report) << "\n" << arena::crosstable_text(report);
  if (stopped && played < tournament.total_games()) {
    std::cout << "\nstopped with " << tournament.missing_games()
              << " games left; run the same command with the same --db to continue\n";
  }
}

// Plays the games the record lacks, with a progress line per game, and prints the ratings
// with the players named by `labels` (default: their specs).
arena::RatingReport play_and_report(TournamentArgs& args, const games::Game& game, arena::TournamentOptions options,
                                    std::vector<std::string> labels = {}) {
  const auto& stop = util::install_stop_signal_handlers();  // before the record exists (scripts wait for it)
  arena::TournamentDb db(args.db.empty() ? ":memory:" : args.db);
  arena::Tournament tournament(game, std::move(options), db);
  const auto rating = rating_options(args.anchor, tournament.record().players);
  const int already = static_cast<int>(tournament.games().size());
  if (already > 0 && !args.quiet) {
    std::cerr << "continuing tournament " << tournament.record().id << " in " << db.path() << ": " << already << " of "
              << tournament.total_games() << " games already played\n";
  }
  const auto start = std::chrono::steady_clock::now();
  int played_now = 0;
  const int to_play = tournament.missing_games();
  tournament.run(stop, [&](const arena::StoredGame& g) {
    ++played_now;
    if (args.quiet) return true;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double eta = elapsed / played_now * (to_play - played_now);
    std::cerr << "[" << tournament.games().size() << "/" << tournament.total_games() << "] " << g.first_player << " vs "
              << g.second_player << ": " << g.result << " (" << g.moves.size() << " moves"
              << (g.reason == "game over" ? "" : ", " + g.reason) << ")  ETA " << duration_text(eta) << "\n    "
              << arena::standings_line(tournament.record().players, tournament.results()) << "\n";
    return true;
  });
  if (labels.empty()) labels = tournament.record().players;
  auto report = arena::make_rating_report(labels, tournament.results(), rating);
  print_report(args, tournament, report, stop.load());
  return report;
}

void run_training_tournament(TournamentArgs& args, const games::Game& game) {
  const auto models = run_models(args.run, args.max_models);
  arena::TournamentOptions options;
  options.players = args.anchors;
  std::vector<std::string> labels = args.anchors;
  for (const auto& [step, path] : models) {
    options.players.push_back("mcts:model=" + path + ",sims=" + std::to_string(args.sims));
    labels.push_back("step " + std::to_string(step) + " (sims=" + std::to_string(args.sims) + ")");
  }
  options.format = arena::TournamentFormat::kChainGauntlet;
  options.anchors = static_cast<int>(args.anchors.size());
  options.games_per_pairing = args.games;
  options.concurrency = args.concurrency;
  options.openings = args.openings;
  options.seed = static_cast<std::uint64_t>(args.seed);
  options.max_moves = args.max_moves;
  if (args.db.empty()) args.db = nn::RunDir(args.run).root() + "/tournament.sqlite";
  const auto report = play_and_report(args, game, std::move(options), labels);
  write_rating_plot(args.run, models, report, static_cast<int>(args.anchors.size()));
  if (!args.json) std::cout << "\nrating curve: " << args.run << "/ratings.svg\n";
}

}  // namespace

void add_tournament_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("tournament", "ratings with 95% intervals from a round-robin or gauntlet, "
                                               "resumable from an SQLite record; or a training run's models (--run)");
  auto args = std::make_shared<TournamentArgs>();
  args->game.add_to(*cmd, "connect4");
  cmd->add_option("--players,-p", args->players, "player specs (at least two), e.g. random uct:sims=400");
  cmd->add_option("--format", args->format, "round-robin (every pair) or gauntlet (the first player against the rest)")
      ->capture_default_str();
  cmd->add_option("--games,-n", args->games, "games per pairing, played in pairs with colours swapped")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--concurrency,-c", args->concurrency, "games played at once")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--openings", args->openings, "random:K (K random plies per game pair) or a file of move lines");
  cmd->add_option("--db", args->db, "SQLite file of the records; the same command on the same file resumes");
  cmd->add_option("--seed", args->seed, "tournament seed")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--max-moves", args->max_moves, "adjudicate a draw after this many moves (0: never)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--anchor", args->anchor, "player whose rating is fixed, as SPEC or SPEC=ELO (default: the first, at 0)");
  cmd->add_flag("--json", args->json, "print the ratings and crosstable as one JSON object");
  cmd->add_flag("--quiet,-q", args->quiet, "no progress lines");
  cmd->add_option("--run", args->run, "a training run directory: rate its models against --anchors, draw ratings.svg");
  cmd->add_option("--anchors", args->anchors, "with --run: the fixed opponents")->capture_default_str();
  cmd->add_option("--sims", args->sims, "with --run: simulations per move of the models' searches")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--max-models", args->max_models, "with --run: rate at most this many models, evenly spaced")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  cmd->footer(
      "Ratings are maximum-likelihood Elo with draws and a first-move advantage (BayesElo's model).\n"
      "Ctrl-C stops between moves; the finished games are in --db, and the same command continues.\n"
      "Players are written kind[:key=value,...]:\n" +
      arena::describe_player_kinds());
  cmd->callback([args, cmd] {
    if (!args->run.empty()) {
      if (!args->players.empty()) throw util::UsageError("--run rates a run's models; give --anchors, not --players");
      const auto game = run_game(args->run);
      if (cmd->count("--game") > 0 && args->game.make()->spec().to_string() != game->spec().to_string()) {
        throw util::UsageError("--game " + args->game.game + " differs from the run's game " +
                               game->spec().to_string() + "; leave --game out with --run");
      }
      run_training_tournament(*args, *game);
      return;
    }
    auto game = args->game.make();
    if (args->players.size() < 2) {
      throw util::UsageError("a tournament needs at least two players: --players SPEC SPEC ... (or --run RUN_DIR)");
    }
    arena::TournamentOptions options;
    options.players = args->players;
    options.format = arena::parse_format(args->format);
    options.games_per_pairing = args->games;
    options.concurrency = args->concurrency;
    options.openings = args->openings;
    options.seed = static_cast<std::uint64_t>(args->seed);
    options.max_moves = args->max_moves;
    play_and_report(*args, *game, std::move(options));
  });
}

}  // namespace pz::apps
