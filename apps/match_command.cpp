// polyzero match --game G --p1 SPEC --p2 SPEC --games N: a match between two players
// (arena/match.h); W/D/L from p1's point of view. For single-player games, each player's
// mean score over the same N chance seeds (p2 optional), and W/D/L of the paired games.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "arena/match.h"
#include "arena/player_factory.h"
#include "util/stop_signal.h"

namespace pz::apps {

void add_match_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("match", "play a match between two players, alternating colours (single-player games: "
                                          "mean scores over the same seeds)");
  struct Args {
    GameArgs game;
    arena::MatchOptions match;
    std::int64_t seed = 1;
    bool json = false;
    bool quiet = false;
  };
  auto args = std::make_shared<Args>();
  args->game.add_to(*cmd, "connect4");
  cmd->add_option("--p1", args->match.p1, "first player (seat 0 in odd-numbered games)")->required();
  cmd->add_option("--p2", args->match.p2, "second player (optional in single-player games)");
  cmd->add_option("--games,-n", args->match.games, "number of games")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--threads,-t", args->match.threads, "games played in parallel")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--seed", args->seed, "match seed (players and chance derive theirs from it)")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--max-moves", args->match.max_moves, "adjudicate a draw after this many moves (0: never)")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", args->json, "one JSON object: wins, draws, losses, games and every game's record");
  cmd->add_flag("--quiet,-q", args->quiet, "no line per game");
  cmd->footer("Ctrl-C stops the match and reports the games finished so far.\nPlayers are written kind[:key=value,...]:\n" +
              arena::describe_player_kinds());
  cmd->callback([args] {
    auto game = args->game.make();
    args->match.seed = static_cast<std::uint64_t>(args->seed);
    const bool per_game = !args->json && !args->quiet;
    const bool solo = game->info().num_players == 1;
    args->match.stop = &util::install_stop_signal_handlers();
    const auto result = arena::play_match(*game, args->match, [&](const arena::GameResult& g) {
      if (!per_game) return;
      if (solo) {
        std::printf("game %3d  p1 score %g  %zu moves", g.index + 1, g.returns.at(0), g.moves.size());
        if (g.forfeit_seat >= 0) std::printf("  p1 %s", g.termination.c_str());
        std::printf("\n");
      } else {
        std::printf("game %3d  p1 as %s  %-4s  %zu moves", g.index + 1, g.p1_seat == 0 ? "first " : "second",
                    arena::outcome_name(g.p1_outcome), g.moves.size());
        if (g.forfeit_seat >= 0) {
          std::printf("  %s %s", g.forfeit_seat == g.p1_seat ? "p1" : "p2", g.termination.c_str());
        }
        std::printf("\n");
      }
      std::fflush(stdout);
    });
    if (result.interrupted) {
      std::fprintf(stderr, "stopped by Ctrl-C after %d of %d games\n", result.played(), args->match.games);
    }
    const auto p1_scores = arena::summarize_scores(result.games);
    const auto p2_scores = arena::summarize_scores(result.p2_games);
    const auto score_json = [](const arena::ScoreSummary& s) {
      return nlohmann::json{{"mean", s.mean}, {"stderr", s.stderr_mean}, {"min", s.min}, {"max", s.max}};
    };
    if (args->json) {
      nlohmann::json games = nlohmann::json::array();
      for (const auto& g : result.games) {
        games.push_back({{"index", g.index}, {"p1_seat", g.p1_seat}, {"result", arena::outcome_name(g.p1_outcome)},
                         {"returns", g.returns}, {"moves", g.moves}, {"final_state", g.final_state},
                         {"cut_short", g.cut_short}, {"termination", g.termination}});
        if (g.forfeit_seat >= 0) games.back()["forfeit_by"] = g.forfeit_seat == g.p1_seat ? "p1" : "p2";
      }
      nlohmann::json out{{"game", result.game}, {"p1", result.p1}, {"p2", result.p2}, {"wins", result.wins},
                         {"draws", result.draws}, {"losses", result.losses}, {"games", result.played()},
                         {"score", result.score()}, {"records", games}};
      if (solo) {
        out["p1_score"] = score_json(p1_scores);
        if (!result.p2_games.empty()) {
          out["p2_score"] = score_json(p2_scores);
          nlohmann::json p2_games = nlohmann::json::array();
          for (const auto& g : result.p2_games) {
            p2_games.push_back({{"index", g.index}, {"returns", g.returns}, {"moves", g.moves}, {"cut_short", g.cut_short}});
          }
          out["p2_records"] = p2_games;
        }
      }
      std::cout << out.dump() << std::endl;
    } else if (solo) {
      std::printf("%s on %s: mean score %.3f +- %.3f (min %g, max %g) over %d games\n", result.p1.c_str(),
                  result.game.c_str(), p1_scores.mean, p1_scores.stderr_mean, p1_scores.min, p1_scores.max,
                  result.played());
      if (!result.p2_games.empty()) {
        std::printf("%s on the same seeds: mean score %.3f +- %.3f (min %g, max %g)\n", result.p2.c_str(),
                    p2_scores.mean, p2_scores.stderr_mean, p2_scores.min, p2_scores.max);
        std::printf("p1 scored more in %d games, the same in %d, less in %d\n", result.wins, result.draws,
                    result.losses);
      }
    } else {
      std::printf("%s vs %s on %s: %d wins, %d draws, %d losses for p1 (score %.3f over %d games)\n", result.p1.c_str(),
                  result.p2.c_str(), result.game.c_str(), result.wins, result.draws, result.losses, result.score(),
                  result.played());
    }
  });
}

}  // namespace pz::apps
