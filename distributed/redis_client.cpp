#include "distributed/redis_client.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "util/error.h"
#include "util/files.h"

namespace pz::distributed {

namespace {

const char* kAccepted = "write redis://HOST[:PORT][/DB], e.g. redis://127.0.0.1:6379";

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

std::string RedisEndpoint::to_string() const {
  const bool v6 = host.find(':') != std::string::npos;
  std::string s = "redis://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
  if (db != 0) s += "/" + std::to_string(db);
  return s;
}

RedisEndpoint parse_redis_url(const std::string& url) {
  const std::string shown = url.size() <= 60 ? url : url.substr(0, 57) + "...";
  const std::string scheme = "redis://";
  if (url.rfind(scheme, 0) != 0) {
    if (url.rfind("rediss://", 0) == 0) {
      throw util::UsageError("--redis " + shown + ": TLS (rediss://) is not supported; reach Redis through a "
                             "tunnel (ssh -L, stunnel) and " + kAccepted);
    }
    throw util::UsageError("--redis " + shown + ": not a redis:// URL; " + kAccepted);
  }
  std::string rest = url.substr(scheme.size());
  if (rest.find('@') != std::string::npos) {
    throw util::UsageError("--redis: the URL holds credentials (user:password@); a password on the command line "
                           "ends up in shell history and `ps`: put it in a file (--redis-password-file FILE) or in "
                           "POLYZERO_REDIS_PASSWORD, and " + std::string(kAccepted));
  }
  RedisEndpoint e;
  std::string hostport = rest, db;
  if (const auto slash = rest.find('/'); slash != std::string::npos) {
    hostport = rest.substr(0, slash);
    db = rest.substr(slash + 1);
  }
  std::string port;
  if (!hostport.empty() && hostport[0] == '[') {  // [IPv6]:port
    const auto close = hostport.find(']');
    if (close == std::string::npos) throw util::UsageError("--redis " + shown + ": unclosed '[' in the host; " + kAccepted);
    e.host = hostport.substr(1, close - 1);
    const std::string after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') throw util::UsageError("--redis " + shown + ": expected ':PORT' after ']'; " + kAccepted);
      port = after.substr(1);
      if (port.empty()) throw util::UsageError("--redis " + shown + ": empty port; " + kAccepted);
    }
  } else {
    const auto colon = hostport.find(':');
    e.host = hostport.substr(0, colon);
    if (colon != std::string::npos) {
      port = hostport.substr(colon + 1);
      if (port.empty()) throw util::UsageError("--redis " + shown + ": empty port; " + kAccepted);
    }
  }
  if (e.host.empty()) throw util::UsageError("--redis " + shown + ": no host; " + kAccepted);
  for (const unsigned char c : e.host) {
    if (!(std::isalnum(c) || c == '.' || c == '-' || c == '_' || c == ':')) {
      throw util::UsageError("--redis " + shown + ": the host holds '" + std::string(1, static_cast<char>(c)) +
                             "'; " + kAccepted);
    }
  }
  if (!port.empty()) {
    if (!all_digits(port) || port.size() > 5 || std::stoi(port) < 1 || std::stoi(port) > 65535) {
      throw util::UsageError("--redis " + shown + ": port '" + port + "' is not a number from 1 to 65535; " + kAccepted);
    }
    e.port = std::stoi(port);
  }
  if (!db.empty()) {
    if (!all_digits(db) || db.size() > 5) {
      throw util::UsageError("--redis " + shown + ": database '" + db + "' is not a number (0, 1, ...); " + kAccepted);
    }
    e.db = std::stoi(db);
  }
  return e;
}

bool is_loopback_host(const std::string& host) {
  if (host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1") return true;
  if (host.rfind("127.", 0) != 0) return false;
  int dots = 0;
  for (const char c : host) {
    if (c == '.') ++dots;
    else if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return dots == 3;
}

RedisAuth resolve_redis_auth(const RedisEndpoint& endpoint, const std::string& password_file, bool insecure) {
  RedisAuth auth;
  if (const char* user = std::getenv("POLYZERO_REDIS_USER")) auth.user = user;
  if (!password_file.empty()) {
    if (const std::string problem = util::file_problem(password_file); !problem.empty()) {
      throw util::UsageError("--redis-password-file " + password_file + ": " + problem +
                             "; give a file whose first line is the password");
    }
    std::ifstream in(password_file);
    if (!in) {
      throw util::UsageError("--redis-password-file " + password_file +
                             ": cannot read it; give a file whose first line is the password");
    }
    // A password is one short line: read at most 4 KiB of it, whatever the file holds.
    constexpr std::size_t kMaxPassword = 4096;
    std::string line;
    for (char c; line.size() <= kMaxPassword && in.get(c) && c != '\n';) line += c;
    if (line.size() > kMaxPassword) {
      throw util::UsageError("--redis-password-file " + password_file + ": its first line is longer than 4 KiB; it must hold the password");
    }
    auth.password = line;
    while (!auth.password.empty() && (auth.password.back() == '\r' || auth.password.back() == '\n')) auth.password.pop_back();
    if (auth.password.empty()) {
      throw util::UsageError("--redis-password-file " + password_file + ": its first line is empty; it must hold the password");
    }
  } else if (const char* pw = std::getenv("POLYZERO_REDIS_PASSWORD")) {
    auth.password = pw;
  }
  if (auth.password.empty() && !insecure && !is_loopback_host(endpoint.host)) {
    throw util::UsageError("refusing to use " + endpoint.to_string() +
                           " without a password: it is not on this machine, so anyone who can reach it could read "
                           "and change the run. Set POLYZERO_REDIS_PASSWORD or --redis-password-file FILE (and "
                           "requirepass in redis.conf), or pass --insecure on a network you trust");
  }
  return auth;
}

// --- replies ------------------------------------------------------------------------------

bool RedisReply::is_nil() const { return node_ == nullptr || node_->type == REDIS_REPLY_NIL; }
bool RedisReply::is_string() const {
  return node_ != nullptr && (node_->type == REDIS_REPLY_STRING || node_->type == REDIS_REPLY_STATUS);
}
bool RedisReply::is_integer() const { return node_ != nullptr && node_->type == REDIS_REPLY_INTEGER; }
bool RedisReply::is_array() const { return node_ != nullptr && node_->type == REDIS_REPLY_ARRAY; }
std::string RedisReply::str() const { return std::string(view()); }
std::string_view RedisReply::view() const {
  return is_string() ? std::string_view(node_->str, node_->len) : std::string_view();
}
long long RedisReply::integer() const {
  if (is_integer()) return node_->integer;
  if (is_string()) {
    char* end = nullptr;
    const std::string s = str();
    const long long v = std::strtoll(s.c_str(), &end, 10);
    return end != nullptr && *end == '\0' ? v : 0;
  }
  return 0;
}
std::size_t RedisReply::size() const { return is_array() ? node_->elements : 0; }
RedisReply RedisReply::operator[](std::size_t i) const {
  if (i >= size()) return RedisReply(root_, nullptr);
  return RedisReply(root_, node_->element[i]);
}

// --- the client -----------------------------------------------------------------------------

RedisClient::RedisClient(RedisOptions options)
    : options_(std::move(options)),
      jitter_state_(static_cast<std::uint64_t>(::getpid()) * 0x9E3779B97F4A7C15ULL +
                    static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count())) {}

RedisClient::~RedisClient() {
  if (context_ != nullptr) redisFree(context_);
}

void RedisClient::drop(const std::string&) {
  if (context_ != nullptr) {
    redisFree(context_);
    context_ = nullptr;
    ++disconnects_;
  }
}

[[noreturn]] void RedisClient::fail_io(const char* what) {
  const std::string detail = context_ != nullptr && context_->errstr[0] != '\0' ? context_->errstr : "connection lost";
  drop(detail);
  throw RedisError(RedisError::Kind::kUnavailable,
                   describe() + ": " + what + " failed (" + detail + ")");
}

RedisReply RedisClient::take(void* raw, const char* what) {
  if (raw == nullptr) fail_io(what);
  auto* reply = static_cast<redisReply*>(raw);
  std::shared_ptr<redisReply> owned(reply, [](redisReply* r) { freeReplyObject(r); });
  if (reply->type == REDIS_REPLY_ERROR) {
    const std::string message(reply->str, reply->len);
    if (starts_with(message, "NOAUTH") || starts_with(message, "WRONGPASS") || starts_with(message, "NOPERM")) {
      throw RedisError(RedisError::Kind::kAuth, describe() + ": " + message);
    }
    throw RedisError(RedisError::Kind::kServer, describe() + ": " + what + ": " + message);
  }
  return RedisReply(owned, reply);
}

void RedisClient::connect() {
  drop("reconnect");
  const std::string& host = options_.endpoint.host;
  redisContext* c = redisConnectWithTimeout(host.c_str(), options_.endpoint.port, to_timeval(options_.connect_timeout));
  if (c == nullptr) throw RedisError(RedisError::Kind::kUnavailable, describe() + ": cannot allocate a connection");
  if (c->err != 0) {
    const std::string why = c->errstr;
    redisFree(c);
    throw RedisError(RedisError::Kind::kUnavailable, "cannot connect to " + describe() + " (" + why + ")");
  }
  redisSetTimeout(c, to_timeval(options_.command_timeout));
  redisEnableKeepAlive(c);
  context_ = c;
  try {
    if (!options_.auth.password.empty()) {
      std::vector<std::string_view> args{"AUTH"};
      if (!options_.auth.user.empty()) args.push_back(options_.auth.user);
      args.push_back(options_.auth.password);
      try {
        command(args);
      } catch (const RedisError& e) {
        if (e.kind() == RedisError::Kind::kUnavailable) throw;
        // The message never repeats the password (Redis does not echo it either).
        throw RedisError(RedisError::Kind::kAuth,
                         describe() + " refused the password" + (options_.auth.user.empty() ? "" : " of user " + options_.auth.user) +
                             ": check POLYZERO_REDIS_PASSWORD or --redis-password-file (and requirepass or the ACL of the server)");
      }
    }
    try {
      command({"PING"});
    } catch (const RedisError& e) {
      if (e.kind() != RedisError::Kind::kAuth) throw;
      throw RedisError(RedisError::Kind::kAuth, describe() + " requires a password: set POLYZERO_REDIS_PASSWORD or "
                                                             "--redis-password-file FILE");
    }
    if (options_.endpoint.db != 0) {
      const std::string db = std::to_string(options_.endpoint.db);
      command({"SELECT", db});
    }
  } catch (...) {
    if (context_ != nullptr) {
      redisFree(context_);
      context_ = nullptr;
    }
    throw;
  }
  backoff_ = std::chrono::milliseconds(0);
}

bool RedisClient::try_reconnect() {
  if (context_ != nullptr) return true;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_attempt_) return false;
  try {
    connect();
    return true;
  } catch (const RedisError& e) {
    if (e.kind() == RedisError::Kind::kAuth) throw;
    backoff_ = std::clamp(backoff_ * 2, std::chrono::milliseconds(100), std::chrono::milliseconds(5000));
    jitter_state_ = jitter_state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    const double jitter = 0.8 + 0.4 * static_cast<double>(jitter_state_ >> 40) / static_cast<double>(1ULL << 24);
    next_attempt_ = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(static_cast<long long>(static_cast<double>(backoff_.count()) * jitter));
    return false;
  }
}

RedisReply RedisClient::command(const std::vector<std::string_view>& args) {
  if (context_ == nullptr) throw RedisError(RedisError::Kind::kUnavailable, describe() + ": not connected");
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  argv.reserve(args.size());
  lengths.reserve(args.size());
  for (const auto& a : args) {
    argv.push_back(a.data());
    lengths.push_back(a.size());
  }
  const std::string what = args.empty() ? std::string("command") : std::string(args[0]);
  void* reply = redisCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data());
  return take(reply, what.c_str());
}

RedisReply RedisClient::transaction(const std::vector<std::vector<std::string_view>>& commands) {
  if (context_ == nullptr) throw RedisError(RedisError::Kind::kUnavailable, describe() + ": not connected");
  auto append = [this](const std::vector<std::string_view>& args) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lengths;
    for (const auto& a : args) {
      argv.push_back(a.data());
      lengths.push_back(a.size());
    }
    if (redisAppendCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data()) != REDIS_OK) {
      fail_io("MULTI");
    }
  };
  append({"MULTI"});
  for (const auto& c : commands) append(c);
  append({"EXEC"});
  // Every reply is read, so the connection stays in step even when one is an error.
  std::string first_error;
  RedisReply exec;
  for (std::size_t i = 0; i < commands.size() + 2; ++i) {
    void* raw = nullptr;
    if (redisGetReply(context_, &raw) != REDIS_OK) fail_io("MULTI/EXEC");
    try {
      RedisReply r = take(raw, i == 0 ? "MULTI" : "EXEC");
      if (i == commands.size() + 1) exec = r;
    } catch (const RedisError& e) {
      if (e.kind() == RedisError::Kind::kUnavailable) throw;
      if (first_error.empty()) first_error = e.what();
    }
  }
  if (!first_error.empty()) throw RedisError(RedisError::Kind::kServer, first_error);
  if (exec.is_nil()) throw RedisError(RedisError::Kind::kServer, describe() + ": transaction aborted");
  return exec;
}

void throw_for_user(const RedisError& e) {
  if (e.kind() == RedisError::Kind::kAuth) throw util::UsageError(e.what());
  throw util::RunError(e.what());
}

void connect_at_start(RedisClient& client) {
  try {
    client.connect();
  } catch (const RedisError& e) {
    if (e.kind() == RedisError::Kind::kUnavailable) {
      throw util::RunError(std::string(e.what()) + ": is redis-server running there, and is the host and port right?");
    }
    throw util::UsageError(e.what());
  }
}

}  // namespace pz::distributed
