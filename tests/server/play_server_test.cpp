// The play server's API against a real server on a loopback port, spoken to over HTTP.
#include "server/play_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "games/registry.h"
#include "server/board_view.h"
#include "tests/server/running_server.h"
#include "util/error.h"

namespace pz::server {
namespace {

using nlohmann::json;

TEST(PlayServer, HumanMoveGetsAnAiReply) {
  RunningServer server(":memory:");
  auto c = server.client();
  const std::string id = create(c, "connect4", {"human", "mcts:sims=50"});
  ASSERT_EQ(id.size(), 32u);
  auto a = post(c, "/api/sessions/" + id + "/move", {{"move", "4"}});
  ASSERT_EQ(a.status, 200) << a.body.dump();
  const json state = settled(c, id);
  ASSERT_EQ(state["moves"].size(), 2u);
  EXPECT_EQ(state["moves"][0]["move"], "4");
  EXPECT_EQ(state["to_move"], 0);
  EXPECT_EQ(state["board"]["kind"], "columns");
  EXPECT_EQ(state["board"]["cells"][5 * 7 + 3], 0);  // the bottom row, column 4
  EXPECT_FALSE(state["analysis"].is_null());
  EXPECT_GT(state["analysis"]["simulations"].get<int>(), 0);
  ASSERT_EQ(state["values"].size(), 1u);
  EXPECT_EQ(state["values"][0]["seat"], 1);
  EXPECT_EQ(state["legal_moves"].size(), 7u);
}

TEST(PlayServer, BadRequestsGetClearErrors) {
  RunningServer server(":memory:");
  auto c = server.client();
  const std::string id = create(c, "tictactoe", {"human", "random"});
  auto illegal = post(c, "/api/sessions/" + id + "/move", {{"move", "z9"}});
  EXPECT_EQ(illegal.status, 400);
  EXPECT_NE(illegal.body["error"].get<std::string>().find("z9"), std::string::npos);
  ASSERT_EQ(post(c, "/api/sessions/" + id + "/move", {{"move", "b2"}}).status, 200);
  settled(c, id);
  auto taken = post(c, "/api/sessions/" + id + "/move", {{"move", "b2"}});
  EXPECT_EQ(taken.status, 400);
  EXPECT_EQ(get(c, "/api/sessions/0123456789abcdef0123456789abcdef").status, 404);
  EXPECT_EQ(post(c, "/api/sessions", {{"game", "chess"}}).status, 400);
  EXPECT_EQ(post(c, "/api/sessions", {{"game", "connect4"}, {"seats", {"human"}}}).status, 400);
  EXPECT_EQ(post(c, "/api/sessions", {{"game", "connect4"}, {"seats", {"human", "nonsense:x=1"}}}).status, 400);
  auto r = c.Post("/api/sessions", "{\"game\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
                  "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  auto big = c.Post("/api/sessions", std::string(100 * 1024, ' '), "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  auto unknown = c.Get("/api/nothing");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_TRUE(json::parse(unknown->body, nullptr, false).contains("error"));
}

// A player that does not evaluate (random) adds no point to the value graph: its move has
// no entry in "values", where a fixed 50% used to stand.
TEST(PlayServer, AMoveWithoutAnEvaluationHasNoValue) {
  RunningServer server(":memory:");
  auto c = server.client();
  const std::string id = create(c, "tictactoe", {"human", "random"});
  ASSERT_EQ(post(c, "/api/sessions/" + id + "/move", {{"move", "b2"}}).status, 200);
  const json state = settled(c, id);
  ASSERT_EQ(state["moves"].size(), 2u);
  EXPECT_TRUE(state["values"].empty()) << state["values"].dump();
  EXPECT_TRUE(state["analysis"].is_null());
}

TEST(PlayServer, UndoTakesBackTheHumanMoveAndTheReply) {
  RunningServer server(":memory:");
  auto c = server.client();
  const std::string id = create(c, "connect4", {"human", "mcts:sims=20"});
  EXPECT_EQ(post(c, "/api/sessions/" + id + "/undo", json::object()).status, 409);  // nothing to undo
  post(c, "/api/sessions/" + id + "/move", {{"move", "1"}});
  settled(c, id);
  post(c, "/api/sessions/" + id + "/move", {{"move", "2"}});
  ASSERT_EQ(settled(c, id)["moves"].size(), 4u);
  auto a = post(c, "/api/sessions/" + id + "/undo", json::object());
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["moves"].size(), 2u);
  EXPECT_EQ(a.body["values"].size(), 1u);
  auto resigned = post(c, "/api/sessions/" + id + "/resign", json::object());
  EXPECT_EQ(resigned.body["status"], "finished");
  EXPECT_EQ(resigned.body["result"]["winner"], 1);
  EXPECT_EQ(post(c, "/api/sessions/" + id + "/move", {{"move", "3"}}).status, 409);
}

TEST(PlayServer, SessionsAreIsolatedAndSurviveARestart) {
  const std::string db = temp_db("sessions.sqlite");
  std::string first, second;
  {
    RunningServer server(db);
    auto c = server.client();
    first = create(c, "hex:size=5", {"human", "mcts:sims=20"});
    second = create(c, "hex:size=5", {"human", "mcts:sims=20"});
    post(c, "/api/sessions/" + first + "/move", {{"move", "c3"}});
    settled(c, first);
    EXPECT_TRUE(get(c, "/api/sessions/" + second).body["moves"].empty());
  }
  RunningServer restarted(db);
  auto c = restarted.client();
  auto a = get(c, "/api/sessions/" + first);
  ASSERT_EQ(a.status, 200);
  ASSERT_EQ(a.body["moves"].size(), 2u);
  EXPECT_EQ(a.body["moves"][0]["move"], "c3");
  EXPECT_EQ(a.body["board"]["kind"], "hex");
  EXPECT_EQ(get(c, "/api/sessions/" + second).body["moves"].size(), 0u);
  const std::string free_cell = a.body["legal_moves"][0].get<std::string>();
  EXPECT_EQ(post(c, "/api/sessions/" + first + "/move", {{"move", free_cell}}).status, 200);
}

TEST(PlayServer, ABurstOfAiRequestsIsAllAnswered) {
  RunningServer server(":memory:", 2, 64);
  auto c = server.client();
  std::vector<std::string> ids;
  for (int i = 0; i < 12; ++i) ids.push_back(create(c, "tictactoe", {"mcts:sims=30", "human"}));  // the AI opens
  std::vector<std::thread> clients;
  for (const auto& id : ids) {
    clients.emplace_back([&server, id] {
      auto own = server.client();
      EXPECT_EQ(settled(own, id)["moves"].size(), 1u);
    });
  }
  for (auto& t : clients) t.join();
}

TEST(PlayServer, AFullQueueIsRefusedNotQueuedForever) {
  RunningServer server(":memory:", 1, 1);
  auto c = server.client();
  int refused = 0;
  for (int i = 0; i < 6; ++i) {
    auto a = post(c, "/api/sessions", {{"game", "connect4"}, {"seats", {"mcts:sims=0,seconds=1", "mcts:sims=0,seconds=1"}}});
    refused += a.status == 503;
    EXPECT_TRUE(a.status == 201 || a.status == 503) << a.status;
  }
  EXPECT_GT(refused, 0);
}

TEST(PlayServer, EventsStreamTheStateAndTheThinking) {
  RunningServer server(":memory:");
  auto c = server.client();
  const std::string id = create(c, "connect4", {"human", "mcts:sims=2000"});
  std::string stream;
  std::atomic<bool> subscribed{false};
  std::thread listener([&] {
    auto own = server.client();
    own.Get("/api/sessions/" + id + "/events", [&](const char* data, std::size_t size) {
      stream.append(data, size);
      if (stream.find("event: state") != std::string::npos) subscribed.store(true);
      return stream.find("event: thinking") == std::string::npos || stream.find("\"done\":true") == std::string::npos;
    });
    subscribed.store(true);  // the stream ended: nothing left to wait for
  });
  // The move is made once the stream is open, so its thinking cannot be missed.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!subscribed.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  post(c, "/api/sessions/" + id + "/move", {{"move", "4"}});
  listener.join();
  EXPECT_NE(stream.find("event: state"), std::string::npos);
  EXPECT_NE(stream.find("event: thinking"), std::string::npos);
  EXPECT_NE(stream.find("\"win_probability\""), std::string::npos);
}

TEST(PlayServer, SimultaneousMovesWaitForEverySeat) {
  RunningServer server(":memory:");
  auto c = server.client();
  auto created = post(c, "/api/sessions", {{"game", "tron:rows=7,columns=7"}, {"seats", {"human", "random"}}});
  ASSERT_EQ(created.status, 201) << created.body.dump();
  const std::string id = created.body["id"];
  EXPECT_TRUE(created.body["simultaneous"].get<bool>());
  EXPECT_EQ(created.body["to_move"], 0);
  EXPECT_EQ(created.body["board"]["kind"], "tron");
  EXPECT_EQ(created.body["legal_moves"].size(), 4u);
  EXPECT_EQ(created.body["board"]["other_moves"].size(), 4u);
  ASSERT_EQ(post(c, "/api/sessions/" + id + "/move", {{"move", "up"}}).status, 200);
  const json state = settled(c, id);
  ASSERT_EQ(state["moves"].size(), 2u);  // one joint move, seat by seat
  EXPECT_EQ(state["moves"][0]["seat"], 0);
  EXPECT_EQ(state["moves"][0]["move"], "up");
  EXPECT_EQ(state["moves"][1]["seat"], 1);
  auto undone = post(c, "/api/sessions/" + id + "/undo", json::object());
  ASSERT_EQ(undone.status, 200) << undone.body.dump();
  EXPECT_TRUE(undone.body["moves"].empty());
  EXPECT_EQ(undone.body["to_move"], 0);
}

TEST(PlayServer, SinglePlayerGamesWithChance) {
  RunningServer server(":memory:");
  auto c = server.client();
  auto created = post(c, "/api/sessions", {{"game", "2048"}, {"seats", {"human"}}});
  ASSERT_EQ(created.status, 201) << created.body.dump();
  const json& board = created.body["board"];
  EXPECT_EQ(board["kind"], "tiles");
  int tiles = 0;
  for (const auto& v : board["cells"]) tiles += v.get<int>() > 0;
  EXPECT_EQ(tiles, 2);  // the two opening spawns, drawn by the session
  EXPECT_TRUE(created.body["moves"][0]["seat"].is_null());
  const std::string move = created.body["legal_moves"][0];
  auto moved = post(c, "/api/sessions/" + created.body["id"].get<std::string>() + "/move", {{"move", move}});
  ASSERT_EQ(moved.status, 200) << moved.body.dump();
  EXPECT_EQ(moved.body["moves"].size(), 4u);  // two spawns, the move, a spawn
}

TEST(BoardView, CellsAndMovesOfEachDrawnGame) {
  const auto go = games::make_game("go:size=9");
  auto state = go->new_initial_state();
  state->apply_action(*state->parse_action("d4"));
  const json view = board_view(*state, state->parse_action("d4"), {"pass"});
  EXPECT_EQ(view["kind"], "go");
  const int d4 = 5 * 9 + 3;  // row 4 from the bottom is the sixth from the top
  EXPECT_EQ(view["cells"][d4], 0);
  EXPECT_EQ(view["cell_moves"][d4], "d4");
  EXPECT_EQ(view["last_cell"], d4);
  EXPECT_EQ(view["col_labels"][8], "j");
  EXPECT_EQ(view["other_moves"], json::array({"pass"}));
  EXPECT_TRUE(board_view(*games::make_game("einstein")->new_initial_state(), std::nullopt, {}).is_null());
}

}  // namespace
}  // namespace pz::server
