// A play server on a loopback port for the server's tests, and the requests they make.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "server/play_server.h"

namespace pz::server {

using nlohmann::json;

inline std::string temp_db(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("pz_server_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::filesystem::remove(path);
  return path.string();
}

// A server on a free port, serving from a thread for the test's lifetime.
class RunningServer {
 public:
  explicit RunningServer(const std::string& db, int ai_threads = 1, int ai_queue = 64,
                         const std::function<void(ServeOptions&)>& adjust = {}) {
    ServeOptions options;
    options.port = 0;
    options.db = db;
    options.web_dir = PZ_SOURCE_DIR "/server/web";
    options.ai_threads = ai_threads;
    options.ai_queue = ai_queue;
    if (adjust) adjust(options);
    server_ = std::make_unique<PlayServer>(options);
    port_ = server_->bind();
    thread_ = std::thread([this] { server_->run(); });
  }
  ~RunningServer() {
    server_->stop();
    thread_.join();
  }
  int port() const { return port_; }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(30, 0);
    return c;
  }

 private:
  std::unique_ptr<PlayServer> server_;
  int port_ = 0;
  std::thread thread_;
};

struct Answer {
  int status = 0;
  json body;
};

inline Answer post(httplib::Client& c, const std::string& path, const json& body) {
  auto r = c.Post(path, body.dump(), "application/json");
  if (!r) return {0, nullptr};
  return {r->status, json::parse(r->body, nullptr, false)};
}

inline Answer get(httplib::Client& c, const std::string& path) {
  auto r = c.Get(path);
  if (!r) return {0, nullptr};
  return {r->status, json::parse(r->body, nullptr, false)};
}

// Polls the session until no AI is thinking (at most 20 s).
inline json settled(httplib::Client& c, const std::string& id) {
  for (int i = 0; i < 2000; ++i) {
    auto a = get(c, "/api/sessions/" + id);
    if (a.status == 200 && !a.body["thinking"].get<bool>()) return a.body;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "the AI never answered in session " << id;
  return nullptr;
}

inline std::string create(httplib::Client& c, const std::string& game, const json& seats) {
  auto a = post(c, "/api/sessions", {{"game", game}, {"seats", seats}});
  EXPECT_EQ(a.status, 201) << a.body.dump();
  return a.body.value("id", "");
}

}  // namespace pz::server
