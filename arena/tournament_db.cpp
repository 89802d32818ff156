#include "arena/tournament_db.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <stdexcept>

#include "util/error.h"

namespace pz::arena {
namespace {

constexpr int kSchemaVersion = 1;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players(id INTEGER PRIMARY KEY, spec TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS tournaments(
  id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, game TEXT NOT NULL, format TEXT NOT NULL,
  openings TEXT NOT NULL, seed INTEGER NOT NULL, max_moves INTEGER NOT NULL,
  games_per_pairing INTEGER NOT NULL, created TEXT NOT NULL, updated TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tournament_players(
  tournament_id INTEGER NOT NULL REFERENCES tournaments(id), position INTEGER NOT NULL,
  player_id INTEGER NOT NULL REFERENCES players(id), PRIMARY KEY(tournament_id, position));
CREATE TABLE IF NOT EXISTS games(
  id INTEGER PRIMARY KEY, tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
  pairing_a INTEGER NOT NULL, pairing_b INTEGER NOT NULL, round INTEGER NOT NULL,
  game TEXT NOT NULL, first_player_id INTEGER NOT NULL REFERENCES players(id),
  second_player_id INTEGER NOT NULL REFERENCES players(id),
  result TEXT NOT NULL CHECK(result IN ('1-0', '0-1', '1/2-1/2')), reason TEXT NOT NULL,
  opening_plies INTEGER NOT NULL, moves TEXT NOT NULL, final_state TEXT NOT NULL,
  started TEXT NOT NULL, finished TEXT NOT NULL,
  UNIQUE(tournament_id, pairing_a, pairing_b, round));
)sql";

constexpr const char* kGameColumns =
    "g.id, g.tournament_id, g.pairing_a, g.pairing_b, g.round, g.game, f.spec, s.spec, g.result, g.reason, "
    "g.opening_plies, g.moves, g.final_state, g.started, g.finished "
    "FROM games g JOIN players f ON f.id = g.first_player_id JOIN players s ON s.id = g.second_player_id";

std::string identity_key(const TournamentRecord& r) {
  return nlohmann::json{{"game", r.game},         {"players", r.players},  {"format", r.format},
                        {"openings", r.openings}, {"seed", std::to_string(r.seed)}, {"max_moves", r.max_moves}}
      .dump();
}

}  // namespace

TournamentDb::TournamentDb(const std::string& path) : db_(path) {
  try {
    db_.require_schema(kSchema, "a tournament database");
  } catch (const util::UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw util::UsageError("cannot use " + path + " as a tournament database: " + e.what());
  }
  auto version = db_.prepare("SELECT value FROM meta WHERE key = 'schema_version'");
  if (version.step()) {
    if (version.column_text(0) != std::to_string(kSchemaVersion)) {
      throw util::UsageError(path + " is a tournament database of schema version " + version.column_text(0) +
                             "; this polyzero reads version " + std::to_string(kSchemaVersion));
    }
  } else {
    db_.prepare("INSERT INTO meta(key, value) VALUES('schema_version', ?1)").bind(1, std::to_string(kSchemaVersion)).run();
  }
}

std::string TournamentDb::now_utc() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::int64_t TournamentDb::player_id(const std::string& spec) {
  db_.prepare("INSERT OR IGNORE INTO players(spec) VALUES(?1)").bind(1, spec).run();
  auto row = db_.prepare("SELECT id FROM players WHERE spec = ?1");
  row.bind(1, spec);
  if (!row.step()) db_.fail("finding player " + spec);
  return row.column_int(0);
}

TournamentRecord TournamentDb::open_tournament(TournamentRecord record) {
  const std::string key = identity_key(record);
  db_.transaction([&] {
    auto existing = db_.prepare("SELECT id, created FROM tournaments WHERE key = ?1");
    existing.bind(1, key);
    record.updated = now_utc();
    if (existing.step()) {
      record.id = existing.column_int(0);
      record.created = existing.column_text(1);
      db_.prepare("UPDATE tournaments SET games_per_pairing = ?1, updated = ?2 WHERE id = ?3")
          .bind(1, static_cast<std::int64_t>(record.games_per_pairing))
          .bind(2, record.updated)
          .bind(3, record.id)
          .run();
      return;
    }
    record.created = record.updated;
    db_.prepare(
           "INSERT INTO tournaments(key, game, format, openings, seed, max_moves, games_per_pairing, created, updated) "
           "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")
        .bind(1, key)
        .bind(2, record.game)
        .bind(3, record.format)
        .bind(4, record.openings)
        .bind(5, static_cast<std::int64_t>(record.seed))
        .bind(6, static_cast<std::int64_t>(record.max_moves))
        .bind(7, static_cast<std::int64_t>(record.games_per_pairing))
        .bind(8, record.created)
        .bind(9, record.updated)
        .run();
    record.id = db_.last_insert_id();
    auto add = db_.prepare("INSERT INTO tournament_players(tournament_id, position, player_id) VALUES(?1, ?2, ?3)");
    for (std::size_t i = 0; i < record.players.size(); ++i) {
      add.bind(1, record.id).bind(2, static_cast<std::int64_t>(i)).bind(3, player_id(record.players[i])).run();
    }
  });
  return record;
}

StoredGame TournamentDb::read_game(util::Statement& row) {
  StoredGame g;
  g.id = row.column_int(0);
  g.tournament_id = row.column_int(1);
  g.pairing_a = static_cast<int>(row.column_int(2));
  g.pairing_b = static_cast<int>(row.column_int(3));
  g.round = static_cast<int>(row.column_int(4));
  g.game = row.column_text(5);
  g.first_player = row.column_text(6);
  g.second_player = row.column_text(7);
  g.result = row.column_text(8);
  g.reason = row.column_text(9);
  g.opening_plies = static_cast<int>(row.column_int(10));
  const auto moves = nlohmann::json::parse(row.column_text(11), nullptr, false);
  if (moves.is_array()) {
    for (const auto& m : moves) {
      if (m.is_string()) g.moves.push_back(m.get<std::string>());
    }
  }
  g.final_state = row.column_text(12);
  g.started = row.column_text(13);
  g.finished = row.column_text(14);
  return g;
}

std::vector<StoredGame> TournamentDb::games_of(std::int64_t tournament_id) {
  auto row = db_.prepare(std::string("SELECT ") + kGameColumns + " WHERE g.tournament_id = ?1 ORDER BY g.id");
  row.bind(1, tournament_id);
  std::vector<StoredGame> games;
  while (row.step()) games.push_back(read_game(row));
  return games;
}

std::optional<StoredGame> TournamentDb::game(std::int64_t id) {
  auto row = db_.prepare(std::string("SELECT ") + kGameColumns + " WHERE g.id = ?1");
  row.bind(1, id);
  if (!row.step()) return std::nullopt;
  return read_game(row);
}

std::vector<TournamentRecord> TournamentDb::tournaments() {
  std::vector<TournamentRecord> out;
  auto row = db_.prepare(
      "SELECT id, game, format, openings, seed, max_moves, games_per_pairing, created, updated FROM tournaments ORDER BY id");
  while (row.step()) {
    TournamentRecord r;
    r.id = row.column_int(0);
    r.game = row.column_text(1);
    r.format = row.column_text(2);
    r.openings = row.column_text(3);
    r.seed = static_cast<std::uint64_t>(row.column_int(4));
    r.max_moves = static_cast<int>(row.column_int(5));
    r.games_per_pairing = static_cast<int>(row.column_int(6));
    r.created = row.column_text(7);
    r.updated = row.column_text(8);
    auto players = db_.prepare(
        "SELECT p.spec FROM tournament_players t JOIN players p ON p.id = t.player_id WHERE t.tournament_id = ?1 "
        "ORDER BY t.position");
    players.bind(1, r.id);
    while (players.step()) r.players.push_back(players.column_text(0));
    out.push_back(std::move(r));
  }
  return out;
}

std::int64_t TournamentDb::add_game(const StoredGame& g) {
  std::int64_t id = 0;
  db_.transaction([&] {
    const std::int64_t first = player_id(g.first_player), second = player_id(g.second_player);
    db_.prepare(
           "INSERT INTO games(tournament_id, pairing_a, pairing_b, round, game, first_player_id, second_player_id, "
           "result, reason, opening_plies, moves, final_state, started, finished) "
           "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)")
        .bind(1, g.tournament_id)
        .bind(2, static_cast<std::int64_t>(g.pairing_a))
        .bind(3, static_cast<std::int64_t>(g.pairing_b))
        .bind(4, static_cast<std::int64_t>(g.round))
        .bind(5, g.game)
        .bind(6, first)
        .bind(7, second)
        .bind(8, g.result)
        .bind(9, g.reason)
        .bind(10, static_cast<std::int64_t>(g.opening_plies))
        .bind(11, nlohmann::json(g.moves).dump())
        .bind(12, g.final_state)
        .bind(13, g.started)
        .bind(14, g.finished)
        .run();
    id = db_.last_insert_id();
  });
  return id;
}

}  // namespace pz::arena
