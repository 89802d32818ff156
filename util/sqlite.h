// A thin owner of SQLite connections and statements (https://sqlite.org/cintro.html): RAII,
// errors as exceptions that name the database file, values bound by position.
//
// A Database has a busy timeout, so another reader (a second command on the same file)
// waits instead of failing; once require_schema accepts a file it is in WAL mode with
// synchronous=NORMAL, so a killed process loses at most its last transaction. Nothing is
// written to a file before require_schema accepts it. ":memory:" opens a private database.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace pz::util {

class Statement;

class Database {
 public:
  // Opens (creating when absent) the database at `path`. Throws UsageError when the file
  // cannot be opened or is not an SQLite database.
  explicit Database(const std::string& path);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const std::string& path() const { return path_; }

  // Runs SQL without results (several statements allowed). Throws std::runtime_error, or
  // UsageError when the file's pages are damaged (as every statement here does).
  void execute(std::string_view sql);
  // Makes this database hold `schema` (CREATE TABLE IF NOT EXISTS statements), after
  // checking that it is one of ours: a database with tables `schema` does not create
  // (another program's, or another polyzero file's), or with one of those tables in other
  // columns, is refused with UsageError naming the file and `what` it was to be ("a
  // tournament database"), and left untouched.
  void require_schema(std::string_view schema, const std::string& what);
  Statement prepare(std::string_view sql);
  std::int64_t last_insert_id() const;

  // Runs `body` inside BEGIN IMMEDIATE … COMMIT, rolling back when it throws.
  template <typename Body>
  void transaction(Body&& body) {
    execute("BEGIN IMMEDIATE");
    try {
      body();
    } catch (...) {
      execute("ROLLBACK");
      throw;
    }
    execute("COMMIT");
  }

  [[noreturn]] void fail(std::string_view what) const;  // throws with SQLite's message

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(Database& db, sqlite3_stmt* statement) : db_(&db), statement_(statement) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;

  // Parameters count from 1, as in SQL's ?1, ?2, ...
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind_null(int index);

  // Advances to the next row: true while there is one.
  bool step();
  // Runs a statement that returns no rows.
  void run();
  void reset();

  std::int64_t column_int(int index) const;
  double column_double(int index) const;
  std::string column_text(int index) const;
  bool column_is_null(int index) const;

 private:
  Database* db_;
  sqlite3_stmt* statement_;
};

}  // namespace pz::util
