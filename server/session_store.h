// The play server's sessions in SQLite, so that a restarted server still has every game:
// sessions(id, game, seats, seed, actions, values, resigned_seat, created, updated), the
// JSON columns holding arrays. Each save is one statement (atomic in SQLite).
#pragma once

#include <optional>
#include <string>

#include "server/session.h"
#include "util/sqlite.h"

namespace pz::server {

class SessionStore {
 public:
  // ":memory:" keeps nothing across restarts. Throws util::UsageError when the file cannot
  // be used.
  explicit SessionStore(const std::string& path);

  void save(const SessionRecord& record);
  std::optional<SessionRecord> load(const std::string& id);

 private:
  util::Database db_;
};

}  // namespace pz::server
