// polyzero replay --db FILE: the tournaments a record holds, one tournament's games, or one
// game move by move with the board after each move (--sgf: as SGF, for Go games).
#include <filesystem>
#include <iostream>

#include "apps/commands.h"
#include "arena/record_check.h"
#include "arena/sgf.h"
#include "arena/tournament_db.h"
#include "games/registry.h"
#include "util/error.h"

namespace pz::apps {
namespace {

struct ReplayArgs {
  std::string db;
  std::int64_t game_id = 0;
  std::int64_t tournament_id = 0;
  bool sgf = false;
};

void list_tournaments(arena::TournamentDb& db) {
  const auto tournaments = db.tournaments();
  if (tournaments.empty()) std::cout << db.path() << " holds no tournaments\n";
  for (const auto& t : tournaments) {
    std::cout << "tournament " << t.id << ": " << t.game << ", " << t.format << ", " << db.games_of(t.id).size()
              << " games stored (" << t.games_per_pairing << " per pairing), created " << t.created << "\n";
    for (std::size_t i = 0; i < t.players.size(); ++i) std::cout << "  " << i + 1 << ". " << t.players[i] << "\n";
  }
}

void list_games(arena::TournamentDb& db, std::int64_t tournament_id) {
  const auto games = db.games_of(tournament_id);
  if (games.empty()) throw util::UsageError("tournament " + std::to_string(tournament_id) + " has no games in " + db.path());
  int damaged = 0;
  for (const auto& g : games) {
    std::cout << "game " << g.id << ": " << g.first_player << " vs " << g.second_player << "  " << g.result << "  "
              << g.moves.size() << " moves  " << g.reason;
    if (const std::string problem = arena::record_problem(g); !problem.empty()) {
      std::cout << "  DAMAGED: " << problem;
      ++damaged;
    }
    std::cout << "\n";
  }
  if (damaged > 0) {
    throw util::UsageError(std::to_string(damaged) + " of the " + std::to_string(games.size()) + " games in " + db.path() +
                           " are damaged (marked DAMAGED above): the record was changed after they were played");
  }
}

void print_game(const arena::StoredGame& g, const std::string& db) {
  if (const std::string problem = arena::record_problem(g); !problem.empty()) {
    throw util::UsageError("game " + std::to_string(g.id) + " in " + db + " is damaged: " + problem +
                           " (the record was changed after it was played)");
  }
  std::cout << "game " << g.id << " of tournament " << g.tournament_id << ": " << g.game << "\n"
            << "first: " << g.first_player << "\nsecond: " << g.second_player << "\n"
            << "result: " << g.result << " (" << g.reason << "), " << g.started << " to " << g.finished << "\n";
  const auto game = games::make_game(g.game);
  auto state = game->new_initial_state();
  std::cout << "\n" << state->to_string() << "\n";
  for (std::size_t i = 0; i < g.moves.size(); ++i) {
    std::string error;
    std::optional<games::Action> action;
    if (!state->is_simultaneous_node()) action = state->parse_action(g.moves[i], &error);
    const bool opening = static_cast<int>(i) < g.opening_plies;
    std::cout << i + 1 << ". " << g.moves[i] << (opening ? "  (opening)" : "") << "\n";
    if (!action || !state->is_legal(*action)) {
      std::cout << "(the remaining moves are listed without boards)\n";
      for (std::size_t k = i + 1; k < g.moves.size(); ++k) std::cout << k + 1 << ". " << g.moves[k] << "\n";
      return;
    }
    state->apply_action(*action);
    std::cout << state->to_string() << "\n";
  }
}

}  // namespace

void add_replay_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("replay", "show stored tournament games: list them, or one move by move (or as SGF)");
  auto args = std::make_shared<ReplayArgs>();
  cmd->add_option("--db", args->db, "the SQLite record a tournament or sprt wrote")->required();
  cmd->add_option("--game-id", args->game_id, "the game to show")->check(CLI::PositiveNumber);
  cmd->add_option("--tournament", args->tournament_id, "list this tournament's games")->check(CLI::PositiveNumber);
  cmd->add_flag("--sgf", args->sgf, "with --game-id: print the game as SGF (Go games)");
  cmd->callback([args] {
    if (!std::filesystem::exists(args->db)) {
      throw util::UsageError("--db " + args->db + " does not exist; give the file a tournament wrote with --db");
    }
    if (std::filesystem::is_directory(args->db)) throw util::UsageError("--db " + args->db + " is a directory, not a record file");
    arena::TournamentDb db(args->db);
    if (args->game_id == 0) {
      if (args->sgf) throw util::UsageError("--sgf needs --game-id N");
      if (args->tournament_id > 0) {
        list_games(db, args->tournament_id);
      } else {
        list_tournaments(db);
      }
      return;
    }
    const auto game = db.game(args->game_id);
    if (!game) throw util::UsageError("no game " + std::to_string(args->game_id) + " in " + args->db);
    if (args->sgf) {
      if (const std::string problem = arena::record_problem(*game); !problem.empty()) {
        throw util::UsageError("game " + std::to_string(game->id) + " in " + args->db + " is damaged: " + problem);
      }
      std::cout << arena::go_game_to_sgf(*game);
    } else {
      print_game(*game, args->db);
    }
  });
}

}  // namespace pz::apps
