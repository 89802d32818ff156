#include "tests/fuzz/http_probe.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <memory>
#include <optional>
#include <regex>
#include <thread>
#include <vector>

namespace pz::fuzz {

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr std::size_t kMaxAnswerBytes = 8 << 20;

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

int milliseconds_until(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1000));
}

// A connected TCP socket to 127.0.0.1:port, closed with the object.
class Connection {
 public:
  explicit Connection(int port) : fd_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0) return;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~Connection() {
    if (fd_ >= 0) close(fd_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  bool connected() const { return fd_ >= 0; }

  // Sends all of `bytes` unless the server closes first (which is its right for a bad request).
  void send_all(const std::string& bytes, Clock::time_point deadline) {
    for (std::size_t sent = 0; sent < bytes.size() && Clock::now() < deadline;) {
      pollfd p{fd_, POLLOUT, 0};
      if (poll(&p, 1, milliseconds_until(deadline)) <= 0) continue;
      const ssize_t n = send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      sent += static_cast<std::size_t>(n);
    }
  }

  // Reads until `done(received)` holds, the server closes, or the deadline; true unless the
  // deadline came first.
  template <typename Done>
  bool receive(std::string& received, Clock::time_point deadline, Done done) {
    char buffer[16384];
    while (!done(received)) {
      if (Clock::now() >= deadline) return false;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, milliseconds_until(deadline)) <= 0) continue;
      const ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return true;  // closed (or reset)
      received.append(buffer, static_cast<std::size_t>(n));
      if (received.size() > kMaxAnswerBytes) return true;
    }
    return true;
  }

 private:
  int fd_ = -1;
};

struct Answer {
  bool connected = false;
  bool complete = true;  // false: the deadline came before the answer did
  std::string bytes;     // everything received
  int status = 0;        // 0: no status line
  std::string headers;   // lower-cased
  std::string body;
};

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::optional<std::size_t> content_length(const std::string& headers) {
  static const std::regex pattern("\r\ncontent-length: *([0-9]{1,12})\r\n");
  std::smatch match;
  if (!std::regex_search(headers, match, pattern)) return std::nullopt;
  return static_cast<std::size_t>(std::stoull(match[1].str()));
}

void parse(Answer& answer) {
  static const std::regex status_line("^HTTP/1\\.[01] ([0-9]{3}) ");
  std::smatch match;
  if (std::regex_search(answer.bytes, match, status_line)) answer.status = std::stoi(match[1].str());
  const auto end = answer.bytes.find("\r\n\r\n");
  if (end == std::string::npos) return;
  answer.headers = lower(answer.bytes.substr(0, end + 2));
  answer.body = answer.bytes.substr(end + 4);
}

// Sends one request and reads its answer: the whole of it, or (headers_only) up to the
// blank line after the headers, as for an event stream that never ends.
Answer exchange(int port, const std::string& request, double seconds, bool headers_only = false,
                std::unique_ptr<Connection>* keep_open = nullptr) {
  Answer answer;
  auto connection = std::make_unique<Connection>(port);
  answer.connected = connection->connected();
  if (!answer.connected) return answer;
  const auto deadline = after(seconds);
  connection->send_all(request, deadline);
  answer.complete = connection->receive(answer.bytes, deadline, [&](const std::string& got) {
    const auto end = got.find("\r\n\r\n");
    if (end == std::string::npos) return false;
    if (headers_only) return true;
    const auto length = content_length(lower(got.substr(0, end + 2)));
    return length && got.size() >= end + 4 + *length;
  });
  parse(answer);
  if (keep_open) *keep_open = std::move(connection);
  return answer;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (auto p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size())) text.replace(p, from.size(), to);
}

// The request's first line, printable, for a failure message.
std::string first_line(const std::string& request) {
  std::string line = request.substr(0, std::min(request.find('\r'), std::size_t{160}));
  for (char& c : line)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return line;
}

// Why the answer breaks the contract, or "".
std::string judge_answer(const Answer& answer, const std::string& request) {
  const std::string what = " to '" + first_line(request) + "'";
  if (!answer.connected) return "the server refused a connection" + what;
  if (!answer.complete) return "no answer within " + std::to_string(static_cast<int>(kAnswerSeconds)) + " s" + what;
  if (answer.bytes.empty()) return "";  // closed without a word: the server's right for a request it cannot parse
  if (answer.status == 0) return "an answer without an HTTP status line" + what;
  if (answer.status >= 500 && answer.status != 503) return "status " + std::to_string(answer.status) + what;
  const bool has_body = !request.starts_with("HEAD ");  // an answer to HEAD has the headers of GET's, no body
  if (has_body && answer.headers.find("content-type: application/json") != std::string::npos &&
      json::parse(answer.body, nullptr, false).is_discarded())
    return "a JSON answer that does not parse (or is not UTF-8)" + what;
  return "";
}

std::string plain_request(const std::string& method, const std::string& path, const std::string& host,
                          const std::string& body = "", bool close = true) {
  std::string request = method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n";
  if (close) request += "Connection: close\r\n";
  if (!body.empty()) request += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  return request + "\r\n" + body;
}

// The port from the server's "serving on http://HOST:PORT" line, once it is written.
std::optional<int> served_port(const std::string& stdout_path, const StartedChild& child, Clock::time_point deadline) {
  static const std::regex line("serving on http://[^:\\s]+:([0-9]{1,5})");
  while (Clock::now() < deadline && child_running(child)) {
    std::smatch match;
    const std::string text = read_head(stdout_path, 4096);
    if (std::regex_search(text, match, line)) return std::stoi(match[1].str());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::nullopt;
}

class Prober {
 public:
  Prober(int port, const std::string& dir) : port_(port), host_("127.0.0.1:" + std::to_string(port)), dir_(dir) {}

  std::string run(const HttpScript& script) {
    if (std::string failure = create_session(); !failure.empty()) return failure;
    for (const auto& raw : script.requests) {
      const std::string request = substitute(raw);
      if (std::string failure = judge_answer(exchange(port_, request, kAnswerSeconds), request); !failure.empty())
        return failure;
    }
    if (std::string failure = flood(script.event_streams); !failure.empty()) return failure;
    const std::string health = plain_request("GET", "/api/games", host_);
    const Answer last = exchange(port_, health, kAnswerSeconds);
    if (last.status != 200) return "after the requests, GET /api/games answered " + describe_answer(last);
    return "";
  }

 private:
  std::string substitute(std::string text) const {
    replace_all(text, "@SESSION@", session_);
    replace_all(text, "@HOST@", host_);
    replace_all(text, "@DIR@", dir_);
    return text;
  }

  static std::string describe_answer(const Answer& a) {
    if (!a.connected) return "nothing (connection refused)";
    if (!a.complete) return "nothing in time";
    return a.status ? "status " + std::to_string(a.status) : "no status line";
  }

  std::string create_session() {
    const std::string request =
        plain_request("POST", "/api/sessions", host_, R"({"game": "tictactoe", "seats": ["human", "human"]})");
    const Answer answer = exchange(port_, request, kAnswerSeconds);
    const json state = json::parse(answer.body, nullptr, false);
    if (answer.status != 201 || !state.is_object() || !state.contains("id") || !state["id"].is_string())
      return "a valid session could not be created: " + describe_answer(answer);
    session_ = state["id"].get<std::string>();
    return "";
  }

  // `streams` event streams at once; the server answers each 200 or 503 and stays responsive.
  std::string flood(int streams) {
    std::vector<std::unique_ptr<Connection>> open;
    const std::string request = plain_request("GET", "/api/sessions/" + session_ + "/events", host_, "", false);
    for (int i = 0; i < streams; ++i) {
      std::unique_ptr<Connection> connection;
      const Answer answer = exchange(port_, request, kAnswerSeconds, true, &connection);
      if (answer.status != 200 && answer.status != 503)
        return "event stream " + std::to_string(i + 1) + " of " + std::to_string(streams) + " got " + describe_answer(answer);
      open.push_back(std::move(connection));
    }
    if (streams == 0) return "";
    const auto start = Clock::now();
    const Answer busy = exchange(port_, plain_request("GET", "/api/games", host_), kBusyAnswerSeconds);
    if (busy.status != 200)
      return "with " + std::to_string(streams) + " event streams open, GET /api/games got " + describe_answer(busy) +
             " after " + std::to_string(std::chrono::duration<double>(Clock::now() - start).count()) + " s";
    return "";
  }

  int port_;
  std::string host_, dir_, session_;
};

}  // namespace

HttpCaseOutcome run_http_case(const ChildRun& run, const ChildLimits& limits, const HttpScript& script,
                              const std::string& dir) {
  HttpCaseOutcome result;
  const StartedChild server = start_child(run, limits);
  if (server.pid < 0) {
    result.outcome = server.not_started;
    return result;
  }
  const auto port = served_port(run.stdout_path, server, server.start + std::chrono::duration_cast<Clock::duration>(
                                                                         std::chrono::duration<double>(limits.seconds / 2)));
  if (port) result.failure = Prober(*port, dir).run(script);
  else if (child_running(server)) result.failure = "the server did not say where it serves";
  if (!child_running(server)) {
    result.outcome = wait_child(server, limits);  // ended by itself: judged as any command
    if (result.failure.empty() && port) result.failure = "the server exited while serving";
    return result;
  }
  signal_child(server, SIGTERM);
  ChildLimits stop = limits;
  stop.seconds = std::chrono::duration<double>(Clock::now() - server.start).count() + kStopSeconds;
  result.outcome = wait_child(server, stop);
  if (result.failure.empty() && (result.outcome.kind != ChildOutcome::Kind::kExited || result.outcome.exit_code != 0))
    result.failure = "on SIGTERM the server ended with " + describe(result.outcome) + " (expected exit status 0 within " +
                     std::to_string(static_cast<int>(kStopSeconds)) + " s)";
  return result;
}

}  // namespace pz::fuzz
