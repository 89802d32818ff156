#include "util/sqlite.h"

#include <sqlite3.h>

#include <map>
#include <stdexcept>

#include "util/error.h"

namespace pz::util {

Database::Database(const std::string& path) : path_(path) {
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string reason = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw UsageError("cannot open the database " + path + ": " + reason);
  }
  sqlite3_busy_timeout(db_, 10000);
  try {
    execute("PRAGMA foreign_keys = ON");
    execute("SELECT count(*) FROM sqlite_master");  // reads the header: fails on a file that is not SQLite
  } catch (const std::exception& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw UsageError("cannot use " + path + " as a database (" + e.what() + "); is it an SQLite file?");
  }
}

Database::~Database() { sqlite3_close_v2(db_); }

namespace {

// A file whose pages SQLite finds damaged is bad input (status 2), not a bug: say so.
[[noreturn]] void throw_sqlite_error(sqlite3* db, const std::string& path, const std::string& message) {
  const int code = sqlite3_errcode(db) & 0xff;
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
    throw UsageError("the database " + path + " is damaged (" + message +
                     "); restore it from a copy, or give a new file name to start a new one");
  throw std::runtime_error("database " + path + ": " + message);
}

}  // namespace

void Database::fail(std::string_view what) const {
  throw_sqlite_error(db_, path_, std::string(what) + ": " + sqlite3_errmsg(db_));
}

void Database::execute(std::string_view sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string reason = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw_sqlite_error(db_, path_, reason);
  }
}

namespace {

// Each table of `db` with its columns' names and declared types, in order.
std::map<std::string, std::string> table_columns(Database& db) {
  std::map<std::string, std::string> tables;
  auto names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  while (names.step()) tables[names.column_text(0)] = "";
  for (auto& [name, columns] : tables) {
    auto info = db.prepare("SELECT name, type FROM pragma_table_info(?1)");
    info.bind(1, name);
    while (info.step()) columns += info.column_text(0) + " " + info.column_text(1) + ", ";
  }
  return tables;
}

}  // namespace

void Database::require_schema(std::string_view schema, const std::string& what) {
  Database expected(":memory:");
  expected.execute(schema);
  const auto want = table_columns(expected);
  const auto have = table_columns(*this);
  for (const auto& [name, columns] : have) {
    const auto it = want.find(name);
    if (it == want.end()) {
      throw UsageError("cannot use " + path_ + " as " + what + ": it holds a table '" + name +
                       "' that is not ours (another program's database, or another kind of polyzero file); "
                       "give a new file or one this command wrote");
    }
    if (it->second != columns) {
      throw UsageError("cannot use " + path_ + " as " + what + ": its table '" + name +
                       "' has other columns than this polyzero writes (another version's or another program's "
                       "database); give a new file");
    }
  }
  // Ours: now it may be written, in WAL mode (a killed process loses at most its last
  // transaction; a second reader waits instead of failing).
  if (path_ != ":memory:") execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
  execute(schema);
}

Statement Database::prepare(std::string_view sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement, nullptr) != SQLITE_OK) {
    fail("preparing '" + std::string(sql.substr(0, 60)) + "'");
  }
  return Statement(*this, statement);
}

std::int64_t Database::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

Statement::~Statement() { sqlite3_finalize(statement_); }

Statement::Statement(Statement&& other) noexcept : db_(other.db_), statement_(other.statement_) {
  other.statement_ = nullptr;
}

Statement& Statement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(statement_, index, value) != SQLITE_OK) db_->fail("binding an integer");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(statement_, index, value) != SQLITE_OK) db_->fail("binding a number");
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  if (sqlite3_bind_text(statement_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT) !=
      SQLITE_OK) {
    db_->fail("binding text");
  }
  return *this;
}

Statement& Statement::bind_null(int index) {
  if (sqlite3_bind_null(statement_, index) != SQLITE_OK) db_->fail("binding null");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail("running a statement");
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

std::int64_t Statement::column_int(int index) const { return sqlite3_column_int64(statement_, index); }
double Statement::column_double(int index) const { return sqlite3_column_double(statement_, index); }
std::string Statement::column_text(int index) const {
  const auto* text = sqlite3_column_text(statement_, index);
  return text ? std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(sqlite3_column_bytes(statement_, index)))
              : std::string();
}
bool Statement::column_is_null(int index) const { return sqlite3_column_type(statement_, index) == SQLITE_NULL; }

}  // namespace pz::util
