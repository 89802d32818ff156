// polyzero match --game G --p1 SPEC --p2 SPEC --games N: a match between two players
// (arena/match.h); W/D/L from p1's point of view.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "arena/match.h"
#include "arena/player_factory.h"

namespace pz::apps {

void add_match_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("match", "play a match between two players, alternating colours");
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
  cmd->add_option("--p2", args->match.p2, "second player")->required();
  cmd->add_option("--games,-n", args->match.games, "number of games")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--threads,-t", args->match.threads, "games played in parallel")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--seed", args->seed, "match seed (players and chance derive theirs from it)")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--max-moves", args->match.max_moves, "adjudicate a draw after this many moves (0: never)")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", args->json, "one JSON object: wins, draws, losses, games and every game's record");
  cmd->add_flag("--quiet,-q", args->quiet, "no line per game");
  cmd->footer("Players are written kind[:key=value,...]:\n" + arena::describe_player_kinds());
  cmd->callback([args] {
    auto game = args->game.make();
    args->match.seed = static_cast<std::uint64_t>(args->seed);
    const bool per_game = !args->json && !args->quiet;
    const auto result = arena::play_match(*game, args->match, [&](const arena::GameResult& g) {
      if (!per_game) return;
      std::printf("game %3d  p1 as %s  %-4s  %zu moves\n", g.index + 1, g.p1_seat == 0 ? "first " : "second",
                  arena::outcome_name(g.p1_outcome), g.moves.size());
      std::fflush(stdout);
    });
    if (args->json) {
      nlohmann::json games = nlohmann::json::array();
      for (const auto& g : result.games) {
        games.push_back({{"index", g.index}, {"p1_seat", g.p1_seat}, {"result", arena::outcome_name(g.p1_outcome)},
                         {"returns", g.returns}, {"moves", g.moves}, {"final_state", g.final_state},
                         {"cut_short", g.cut_short}});
      }
      std::cout << nlohmann::json{{"game", result.game}, {"p1", result.p1}, {"p2", result.p2}, {"wins", result.wins},
                                  {"draws", result.draws}, {"losses", result.losses}, {"games", result.played()},
                                  {"score", result.score()}, {"records", games}}
                       .dump()
                << std::endl;
    } else {
      std::printf("%s vs %s on %s: %d wins, %d draws, %d losses for p1 (score %.3f over %d games)\n", result.p1.c_str(),
                  result.p2.c_str(), result.game.c_str(), result.wins, result.draws, result.losses, result.score(),
                  result.played());
    }
  });
}

}  // namespace pz::apps
