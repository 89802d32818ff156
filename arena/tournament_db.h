// Tournament records in SQLite: players, tournaments and every finished game (moves in the
// game's notation, result, how it ended, timestamps). One file holds any number of
// tournaments; a tournament is identified by what decides its games (game, players in
// order, format, openings, seed, move limit), so running the same command again finds it
// and plays only the games it lacks — raising the number of games per pairing extends it.
//
// Schema (version 1):
//   players(id, spec UNIQUE)
//   tournaments(id, key UNIQUE, game, format, openings, seed, max_moves, games_per_pairing,
//               created, updated)
//   tournament_players(tournament_id, position, player_id)
//   games(id, tournament_id, pairing_a, pairing_b, round, game, first_player_id,
//         second_player_id, result '1-0'|'0-1'|'1/2-1/2' for the first player, reason,
//         opening_plies, moves (JSON array), final_state, started, finished)
// Each game is inserted in its own transaction: a killed tournament loses only the games
// that were being played.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/sqlite.h"

namespace pz::arena {

struct TournamentRecord {
  std::int64_t id = 0;
  std::string game;      // the game's spec
  std::string format;    // "round-robin" or "gauntlet"
  std::string openings;  // as given to Openings
  std::vector<std::string> players;  // specs, in the tournament's order
  std::uint64_t seed = 1;
  int max_moves = 0;
  int games_per_pairing = 0;
  std::string created, updated;
};

struct StoredGame {
  std::int64_t id = 0;
  std::int64_t tournament_id = 0;
  int pairing_a = 0, pairing_b = 0;  // positions of the pairing's players, pairing_a < pairing_b
  int round = 0;                     // game number within the pairing, from 0
  std::string game;                  // the game's spec
  std::string first_player, second_player;  // specs (first: seat 0)
  std::string result;                // "1-0", "0-1" or "1/2-1/2", the first player's view
  std::string reason;                // how the game ended
  int opening_plies = 0;             // moves that came from the opening
  std::vector<std::string> moves;    // in the game's notation, chance outcomes included
  std::string final_state;           // State::serialize()
  std::string started, finished;     // UTC, ISO 8601
};

class TournamentDb {
 public:
  // ":memory:" keeps the records in memory only. Throws util::UsageError when `path` cannot
  // be opened or holds another kind of database.
  explicit TournamentDb(const std::string& path);

  const std::string& path() const { return db_.path(); }

  // The stored tournament with the record's identity (its id and creation time filled in),
  // created when there is none; the stored games_per_pairing becomes the record's.
  TournamentRecord open_tournament(TournamentRecord record);

  std::vector<StoredGame> games_of(std::int64_t tournament_id);
  std::optional<StoredGame> game(std::int64_t id);
  std::vector<TournamentRecord> tournaments();

  // Stores a finished game; returns its id. Fails (std::runtime_error) on a duplicate slot.
  std::int64_t add_game(const StoredGame& game);

  // "2026-12-01T18:44:15Z"
  static std::string now_utc();

 private:
  std::int64_t player_id(const std::string& spec);
  StoredGame read_game(util::Statement& row);

  util::Database db_;
};

}  // namespace pz::arena
