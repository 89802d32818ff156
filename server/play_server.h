// The play server behind `polyzero serve`: the web page, the JSON API and the event
// streams of server/README.md, over cpp-httplib.
//
// Sessions live in memory (the most recently used ones, up to a bound) and in SQLite; a
// request for a session not in memory reloads it. AI moves run in an AiPool: when an AI
// seat is to move — after a session is created, after a human move, after an AI move in an
// AI-vs-AI game, or on POST …/ai — one job is queued for the session, its search streams
// "thinking" events, and its move is played only if the session did not change meanwhile
// (undo and resignation change its generation).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arena/untrusted_specs.h"
#include "server/ai_pool.h"
#include "server/event_hub.h"
#include "server/session.h"
#include "server/session_store.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace pz::server {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                           // 0: any free port
  std::string db = "serve.sqlite";           // ":memory:" keeps nothing
  std::string web_dir;                       // the page's files (server/web)
  std::map<std::string, std::string> models; // game name → checkpoint: the networks clients may name
  std::map<std::string, std::string> model_games;  // game name → the network_spec (games/game.h) its network plays
  std::vector<std::string> allowed_hosts;    // names besides the address and loopback a browser may use
  int ai_threads = 1;
  int ai_queue = 64;
  std::size_t sessions_in_memory = 1000;
  int max_event_streams = 32;   // open event streams at once; more are refused (503)
  int http_threads = 192;       // connections served at once (streams and slow clients hold one each)
  int read_timeout_seconds = 2; // a client that sends nothing for this long is dropped
};

class PlayServer {
 public:
  // Throws util::UsageError for a missing web directory, an unusable database, or a model
  // that does not exist.
  explicit PlayServer(ServeOptions options);
  ~PlayServer();

  // Binds the listening socket; returns the port (useful with port 0). Throws
  // util::UsageError when the address cannot be bound.
  int bind();
  // Serves until stop() (from any thread, e.g. a signal watcher).
  void run();
  void stop();

 private:
  struct Entry {
    std::mutex mutex;
    std::unique_ptr<Session> session;
    bool thinking = false;
    std::uint64_t last_used = 0;
  };

  void add_routes();
  // The same-origin rule of server/README.md (threat model): nullopt when the request may
  // proceed, else the refusal's status and message.
  std::optional<std::pair<int, std::string>> refuse_request(const httplib::Request& request) const;
  bool allowed_host(const std::string& host_header) const;
  std::shared_ptr<Entry> find(const std::string& id);  // throws ApiError(404)
  void remember(const std::shared_ptr<Entry>& entry);
  // With the entry locked: queue the AI's move for the seat to move if an AI plays it (or
  // `force`). Throws ApiError(503) when the queue is full.
  void schedule_ai(const std::shared_ptr<Entry>& entry, bool force);
  void run_ai(const std::shared_ptr<Entry>& entry, int generation, int move_count);
  void changed(Entry& entry);  // saves the session and publishes its state (entry locked)
  // After a change: queue the AI's reply if an AI is to move, then save and publish (so the
  // published state says whether the AI is thinking). Rethrows a full queue's ApiError.
  void continue_after_change(const std::shared_ptr<Entry>& entry);

  nlohmann::json games_json() const;
  nlohmann::json players_json() const;
  // The AI a new seat gets: the game's network when one is registered for exactly this
  // game (size and options included), else network-free search.
  std::string default_ai(const games::Game& game) const;
  nlohmann::json create_session(const nlohmann::json& body);

  ServeOptions options_;
  arena::UntrustedSpecs specs_;
  int port_ = 0;
  std::atomic<int> open_streams_{0};
  SessionStore store_;
  EventHub events_;
  std::unique_ptr<httplib::Server> http_;
  std::mutex sessions_mutex_;
  std::map<std::string, std::shared_ptr<Entry>> sessions_;
  std::atomic<std::uint64_t> clock_{0};
  std::atomic<bool> stopping_{false};
  AiPool ai_;  // last: its threads stop before the sessions they use go away
};

}  // namespace pz::server
