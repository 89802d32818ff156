// Server-sent events (https://html.spec.whatwg.org/multipage/server-sent-events.html) per
// session: every subscriber of a session gets each event published to it, in order. A
// subscriber that falls behind loses its oldest events (at most 256 wait), so a stalled
// browser never grows the server's memory.
#pragma once

#include <condition_variable>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace pz::server {

class EventHub {
 public:
  struct Subscription {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<std::string> pending;  // formatted "event: …\ndata: …\n\n" messages
    bool closed = false;
  };

  std::shared_ptr<Subscription> subscribe(const std::string& session);
  void unsubscribe(const std::string& session, const std::shared_ptr<Subscription>& subscription);

  // Sends `event` with one line of `data` (JSON) to the session's subscribers.
  void publish(const std::string& session, const std::string& event, const std::string& data);
  static void push(Subscription& subscription, const std::string& event, const std::string& data);

  // The next message, waiting at most `timeout`; nullopt on timeout or when closed.
  static std::optional<std::string> next(Subscription& subscription, std::chrono::milliseconds timeout);

  // Ends every subscription (server shutdown).
  void close_all();

 private:
  std::mutex mutex_;
  std::map<std::string, std::vector<std::shared_ptr<Subscription>>> subscribers_;
};

}  // namespace pz::server
