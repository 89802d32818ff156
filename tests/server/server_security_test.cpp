// The play server's threat model (server/README.md): a web client holds no capability
// beyond playing, a foreign page can neither post nor read, no request ends the process,
// and floods of streams and slow clients do not starve other requests.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "tests/server/running_server.h"

namespace pz::server {
namespace {

std::string error_of(const Answer& a) { return a.body.is_object() ? a.body.value("error", "") : ""; }

// The server still answers a plain request, and quickly.
void expect_alive(RunningServer& server) {
  auto c = server.client();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(get(c, "/api/games").status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(ServerSecurity, SeatsThatRunCommandsOrOpenFilesAreRefused) {
  RunningServer server(":memory:");
  auto c = server.client();
  const auto marker = std::filesystem::temp_directory_path() / ("pz_rce_" + std::to_string(::getpid()));
  std::filesystem::remove(marker);
  const std::vector<std::string> hostile = {
      "gtp:cmd=touch " + marker.string(),
      "gtp:cmd=/usr/games/gnugo --mode gtp,log=" + marker.string(),
      "mcts:model=/etc/passwd",
      "mcts:model=../models/latest.pt,sims=10",
      "policy:model=/dev/zero",
      "mcts:sims=100000000",
      "mcts:sims=400,seconds=1e9",
      "mcts:sims=400,seconds=nan",
      "mcts:threads=256",
      "uct:rollouts=1000",
      "solver:seconds=86400",
      "mcts:sims=400,log=/tmp/x",
  };
  for (const auto& seat : hostile) {
    auto a = post(c, "/api/sessions", {{"game", "go:size=5"}, {"seats", {seat, "human"}}});
    EXPECT_EQ(a.status, 400) << seat << ": " << a.body.dump();
    EXPECT_FALSE(error_of(a).empty()) << seat;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(std::filesystem::exists(marker)) << "a seat ran a shell command";
  // What computes within bounds is still offered.
  EXPECT_EQ(post(c, "/api/sessions", {{"game", "go:size=5"}, {"seats", {"human", "mcts:sims=50,threads=2"}}}).status, 201);
  EXPECT_EQ(post(c, "/api/sessions", {{"game", "tictactoe"}, {"seats", {"human", "uct:sims=100,seconds=5"}}}).status, 201);
}

TEST(ServerSecurity, ModelsAreNamedNeverGivenByPath) {
  const auto models = std::filesystem::temp_directory_path() / ("pz_models_" + std::to_string(::getpid()));
  std::filesystem::create_directories(models);
  const auto checkpoint = models / "connect4.pt";
  { std::ofstream(checkpoint) << "not read in this test"; }
  RunningServer server(":memory:", 1, 64, [&](ServeOptions& o) { o.models["connect4"] = checkpoint.string(); });
  auto c = server.client();
  const auto players = get(c, "/api/players");
  ASSERT_EQ(players.status, 200);
  EXPECT_EQ(players.body["models"], json::array({"connect4"}));
  EXPECT_EQ(players.body["default_ai"]["connect4"], "mcts:model=connect4,sims=400");
  EXPECT_EQ(players.body.dump().find(checkpoint.string()), std::string::npos) << "a path reached the client";
  const auto by_path = post(c, "/api/sessions", {{"game", "connect4"}, {"seats", {"human", "mcts:model=" + checkpoint.string()}}});
  EXPECT_EQ(by_path.status, 400);
  EXPECT_NE(error_of(by_path).find("named"), std::string::npos) << by_path.body.dump();
  std::filesystem::remove_all(models);
}

TEST(ServerSecurity, OnlyJsonBodiesAreAccepted) {
  RunningServer server(":memory:");
  auto c = server.client();
  const std::string body = R"({"game":"tictactoe","seats":["human","random"]})";
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""}) {
    auto r = c.Post("/api/sessions", body, type);
    ASSERT_TRUE(r) << type;
    EXPECT_EQ(r->status, 415) << type << ": " << r->body;
  }
  auto r = c.Post("/api/sessions", body, "application/json; charset=utf-8");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 201) << r->body;
}

TEST(ServerSecurity, ForeignOriginsAndHostsAreRefused) {
  RunningServer server(":memory:");
  auto c = server.client();
  const std::string body = R"({"game":"tictactoe","seats":["human","random"]})";
  const std::string own = "http://127.0.0.1:" + std::to_string(server.port());
  auto foreign = c.Post("/api/sessions", httplib::Headers{{"Origin", "https://evil.example"}}, body, "application/json");
  ASSERT_TRUE(foreign);
  EXPECT_EQ(foreign->status, 403) << foreign->body;
  auto null_origin = c.Get("/api/games", httplib::Headers{{"Origin", "null"}});
  ASSERT_TRUE(null_origin);
  EXPECT_EQ(null_origin->status, 403);
  auto cross_site = c.Get("/api/games", httplib::Headers{{"Sec-Fetch-Site", "cross-site"}});
  ASSERT_TRUE(cross_site);
  EXPECT_EQ(cross_site->status, 403);
  auto same = c.Post("/api/sessions", httplib::Headers{{"Origin", own}}, body, "application/json");
  ASSERT_TRUE(same);
  EXPECT_EQ(same->status, 201) << same->body;
  // DNS rebinding: a page of attacker.example whose name now points at 127.0.0.1.
  auto rebound = c.Get("/api/games", httplib::Headers{{"Host", "attacker.example:" + std::to_string(server.port())}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
  auto other_port = c.Get("/api/games", httplib::Headers{{"Host", "127.0.0.1:1"}});
  ASSERT_TRUE(other_port);
  EXPECT_EQ(other_port->status, 403);
  auto localhost = c.Get("/api/games", httplib::Headers{{"Host", "localhost:" + std::to_string(server.port())}});
  ASSERT_TRUE(localhost);
  EXPECT_EQ(localhost->status, 200);
  // The page itself is public.
  auto page = c.Get("/", httplib::Headers{{"Host", "attacker.example"}});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
}

TEST(ServerSecurity, BytesThatAreNotUtf8AreAnsweredNotFatal) {
  RunningServer server(":memory:");
  auto c = server.client();
  for (const char* path : {"/api/%ff", "/api/sessions/%c3", "/api/%c3%28/x", "/api/sessions/%ed%a0%80"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path << ": the server died";
    EXPECT_EQ(r->status, 404) << path;
    EXPECT_TRUE(json::parse(r->body, nullptr, false).is_object()) << r->body;
  }
  // A seat cut inside a UTF-8 sequence by the error's excerpt.
  const std::string seat = "mcts:" + std::string(198, 'x') + "\xc3\xa9";
  auto a = post(c, "/api/sessions", {{"game", "tictactoe"}, {"seats", {"human", seat}}});
  EXPECT_EQ(a.status, 400);
  auto raw = c.Post("/api/sessions", std::string("{\"game\":\"tic\xff\"}"), "application/json");
  ASSERT_TRUE(raw);
  EXPECT_EQ(raw->status, 400);
  expect_alive(server);
}

// A connection that sends part of a request and then nothing.
int half_sent_request(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  const char partial[] = "GET /api/games HTTP/1.1\r\nHost: 127.0.";
  (void)!::send(fd, partial, sizeof partial - 1, MSG_NOSIGNAL);
  return fd;
}

TEST(ServerSecurity, StreamFloodsAndSlowClientsDoNotStarveOthers) {
  constexpr int kStreams = 4, kFlood = 12, kSlow = 40;
  RunningServer server(":memory:", 1, 64, [](ServeOptions& o) {
    o.max_event_streams = kStreams;
    o.http_threads = 64;
  });
  auto c = server.client();
  const std::string id = create(c, "tictactoe", {"human", "random"});
  std::vector<int> slow;
  for (int i = 0; i < kSlow; ++i) slow.push_back(half_sent_request(server.port()));
  std::atomic<int> opened{0}, refused{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> streams;
  for (int i = 0; i < kFlood; ++i) {
    streams.emplace_back([&] {
      auto own = server.client();
      own.set_read_timeout(10, 0);
      own.Get(
          "/api/sessions/" + id + "/events",
          [&](const httplib::Response& response) {
            ++(response.status == 200 ? opened : refused);
            return response.status == 200;
          },
          [&](const char*, std::size_t) { return !done.load(); });
    });
  }
  // Every flood connection gets its answer; on a loaded machine that may take a while.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (opened.load() + refused.load() < kFlood && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(opened.load(), kStreams);
  EXPECT_EQ(refused.load(), kFlood - kStreams);
  expect_alive(server);
  // Moves still go through, and the open streams still get them.
  EXPECT_EQ(post(c, "/api/sessions/" + id + "/move", {{"move", "b2"}}).status, 200);
  done.store(true);
  post(c, "/api/sessions/" + id + "/ai", json::object());  // an event ends each stream's wait
  for (auto& t : streams) t.join();
  for (const int fd : slow) {
    if (fd >= 0) ::close(fd);
  }
  expect_alive(server);
}

}  // namespace
}  // namespace pz::server
