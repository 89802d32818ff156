#include "server/session_store.h"

#include <stdexcept>

#include "arena/tournament_db.h"
#include "util/error.h"

namespace pz::server {

using nlohmann::json;

SessionStore::SessionStore(const std::string& path) : db_(path) {
  try {
    db_.require_schema(
        "CREATE TABLE IF NOT EXISTS sessions(id TEXT PRIMARY KEY, game TEXT NOT NULL, seats TEXT NOT NULL, "
        "seed INTEGER NOT NULL, actions TEXT NOT NULL, ai_values TEXT NOT NULL, resigned_seat INTEGER NOT NULL, "
        "created TEXT NOT NULL, updated TEXT NOT NULL)",
        "the play server's session database");
  } catch (const util::UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw util::UsageError("cannot keep sessions in " + path + ": " + e.what());
  }
}

void SessionStore::save(const SessionRecord& r) {
  db_.prepare(
         "INSERT INTO sessions(id, game, seats, seed, actions, ai_values, resigned_seat, created, updated) "
         "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT(id) DO UPDATE SET actions = excluded.actions, "
         "ai_values = excluded.ai_values, resigned_seat = excluded.resigned_seat, updated = excluded.updated")
      .bind(1, r.id)
      .bind(2, r.game)
      .bind(3, json(r.seats).dump())
      .bind(4, static_cast<std::int64_t>(r.seed))
      .bind(5, json(r.actions).dump())
      .bind(6, r.values.dump())
      .bind(7, static_cast<std::int64_t>(r.resigned_seat))
      .bind(8, r.created)
      .bind(9, arena::TournamentDb::now_utc())
      .run();
}

std::optional<SessionRecord> SessionStore::load(const std::string& id) {
  auto row = db_.prepare(
      "SELECT id, game, seats, seed, actions, ai_values, resigned_seat, created, updated FROM sessions WHERE id = ?1");
  row.bind(1, id);
  if (!row.step()) return std::nullopt;
  SessionRecord r;
  r.id = row.column_text(0);
  r.game = row.column_text(1);
  const auto seats = json::parse(row.column_text(2), nullptr, false);
  const auto actions = json::parse(row.column_text(4), nullptr, false);
  const auto values = json::parse(row.column_text(5), nullptr, false);
  if (!seats.is_array() || !actions.is_array() || !values.is_array()) {
    throw ApiError(500, "session " + id + " is damaged in the database");
  }
  for (const auto& s : seats) r.seats.push_back(s.get<std::string>());
  for (const auto& a : actions) r.actions.push_back(a.get<games::Action>());
  r.seed = static_cast<std::uint64_t>(row.column_int(3));
  r.values = values;
  r.resigned_seat = static_cast<int>(row.column_int(6));
  r.created = row.column_text(7);
  r.updated = row.column_text(8);
  return r;
}

}  // namespace pz::server
