// A small synchronous Redis client over hiredis: one connection, owned (RAII), every call
// bounded by a timeout, reconnection with exponential backoff.
//
//   RedisEndpoint  where: parsed from redis://HOST[:PORT][/DB] (parse_redis_url). A password in
//                  the URL is refused: URLs end up in shell history, `ps` and logs.
//   RedisAuth      who: the password comes from a file (--redis-password-file) or from the
//                  environment (POLYZERO_REDIS_PASSWORD, and POLYZERO_REDIS_USER for an ACL
//                  user), never from the command line, and is never printed.
//   RedisClient    command() sends one command and returns its reply; a Redis error reply
//                  throws RedisError(kServer); a broken connection or a timeout throws
//                  RedisError(kUnavailable) and drops the connection, after which
//                  try_reconnect() connects again, at most once per backoff interval
//                  (100 ms doubling to 5 s, with jitter), so a loop that calls it never spins
//                  and never blocks for longer than the connect timeout.
//
// Replies are RESP2 (hiredis 0.14 speaks nothing else): strings, integers, nil, arrays.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct redisContext;
struct redisReply;

namespace pz::distributed {

struct RedisEndpoint {
  std::string host = "127.0.0.1";
  int port = 6379;
  int db = 0;
  // "redis://host:port/db", never with credentials: safe to print.
  std::string to_string() const;
};

// Throws util::UsageError naming what is wrong with `url` and what is accepted.
RedisEndpoint parse_redis_url(const std::string& url);

// localhost, 127.0.0.0/8, ::1: a Redis only this machine can reach.
bool is_loopback_host(const std::string& host);

struct RedisAuth {
  std::string user;      // empty: the default user
  std::string password;  // empty: no AUTH
};

// The credentials from `password_file` (first line; empty path: none) or else from the
// environment (POLYZERO_REDIS_PASSWORD, POLYZERO_REDIS_USER). Refuses (util::UsageError)
// a non-loopback endpoint without a password unless `insecure`.
RedisAuth resolve_redis_auth(const RedisEndpoint& endpoint, const std::string& password_file, bool insecure);

struct RedisOptions {
  RedisEndpoint endpoint;
  RedisAuth auth;
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds command_timeout{5000};
};

class RedisError : public std::runtime_error {
 public:
  enum class Kind {
    kUnavailable,  // cannot connect, the connection broke, or a command timed out
    kAuth,         // the server refused the credentials (or wants some)
    kServer,       // an error reply to a command (NOGROUP, WRONGTYPE, ...)
  };
  RedisError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// A reply, or an element of one (which shares ownership of the whole reply).
class RedisReply {
 public:
  RedisReply() = default;
  bool is_nil() const;
  bool is_string() const;  // bulk or status string
  bool is_integer() const;
  bool is_array() const;
  std::string str() const;        // "" unless a string
  std::string_view view() const;  // valid while this reply lives
  long long integer() const;      // 0 unless an integer (or a string holding one)
  std::size_t size() const;       // elements of an array (0 otherwise)
  RedisReply operator[](std::size_t i) const;

 private:
  friend class RedisClient;
  RedisReply(std::shared_ptr<redisReply> root, const redisReply* node) : root_(std::move(root)), node_(node) {}
  std::shared_ptr<redisReply> root_;
  const redisReply* node_ = nullptr;
};

class RedisClient {
 public:
  explicit RedisClient(RedisOptions options);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // Connects (and authenticates, and selects the database) now; throws RedisError.
  void connect();
  bool connected() const { return context_ != nullptr; }
  // Connects if not connected and the backoff allows an attempt now; true when connected.
  // Never throws for an unreachable server; an authentication failure still throws.
  bool try_reconnect();
  // How many times the connection was lost since construction.
  int disconnects() const { return disconnects_; }

  RedisReply command(const std::vector<std::string_view>& args);
  // MULTI, the commands, EXEC in one round trip: all or none. Returns EXEC's array.
  RedisReply transaction(const std::vector<std::vector<std::string_view>>& commands);

  const RedisEndpoint& endpoint() const { return options_.endpoint; }
  std::string describe() const { return options_.endpoint.to_string(); }

 private:
  void drop(const std::string& why);
  RedisReply take(void* reply, const char* what);
  [[noreturn]] void fail_io(const char* what);

  RedisOptions options_;
  redisContext* context_ = nullptr;
  int disconnects_ = 0;
  std::chrono::milliseconds backoff_{0};
  std::chrono::steady_clock::time_point next_attempt_{};
  std::uint64_t jitter_state_;
};

// client.connect() for a command starting up: a refused password becomes util::UsageError
// (status 2), an unreachable server util::RunError (status 1), each saying what to check.
void connect_at_start(RedisClient& client);

// A RedisError that reaches a command, as the error the CLI reports: refused credentials or
// permissions util::UsageError (status 2), the rest util::RunError (status 1), never an
// "internal error".
[[noreturn]] void throw_for_user(const RedisError& e);

}  // namespace pz::distributed
