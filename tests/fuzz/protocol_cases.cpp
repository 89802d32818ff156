// Fuzz cases for the programs that read a protocol: `analyze` and `gtp` on standard input,
// `serve` over HTTP (case_builders.h).
#include <nlohmann/json.hpp>

#include "tests/fuzz/case_builders.h"

namespace pz::fuzz {

namespace {

using nlohmann::json;

// Games whose searches stay short at the budgets below (a case must end in seconds).
const std::vector<std::string>& small_games() {
  static const std::vector<std::string> games = {"tictactoe", "connect4:width=4,height=4", "hex:size=3", "hex:size=4"};
  return games;
}

// Text that a JSON parser must refuse or that must reach the program as a hostile string.
std::string broken_utf8(Mutator& m) {
  return m.one_of(std::vector<std::string>{"\xff", "\xc3", "\xed\xa0\x80", "\xc0\x80", "\xf4\x90\x80\x80", "\xe2\x82",
                                           std::string(1, '\0'), "\xfe\xff"});
}

std::string with_broken_utf8(Mutator& m, std::string text) {
  const auto at = text.empty() ? 0 : static_cast<std::size_t>(m.pick(0, static_cast<int>(text.size())));
  return text.insert(at, broken_utf8(m));
}

// One move's text: a legal-looking one for the small games, or junk.
std::string move_text(Mutator& m) {
  if (m.chance(0.7)) return m.one_of(std::vector<std::string>{"1", "2", "3", "4", "a1", "b2", "c3", "d4", "pass", "resign"});
  return m.chance(0.5) ? m.option_value({"1", "a1"}) : with_broken_utf8(m, "a1");
}

// A JSON object as text, from pieces that may already be invalid JSON (raw bytes).
std::string object_text(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string text = "{";
  for (const auto& [key, value] : fields) text += (text.size() > 1 ? "," : "") + json(key).dump() + ":" + value;
  return text + "}";
}

// A JSON string of `text`, or the raw bytes between quotes (invalid JSON when not UTF-8).
std::string string_value(Mutator& m, const std::string& text) {
  if (m.chance(0.8)) return json(text).dump(-1, ' ', false, json::error_handler_t::replace);
  return "\"" + text + "\"";
}

std::string analyze_query(Mutator& m, bool untrusted, int index) {
  std::vector<std::pair<std::string, std::string>> fields;
  fields.push_back({"id", m.chance(0.9) ? json("q" + std::to_string(index)).dump() : m.json_value_text()});
  fields.push_back({"game", string_value(m, m.chance(0.85) ? m.one_of(small_games()) : m.option_value({"tictactoe"}))});
  std::string moves = "[";
  for (int n = m.pick(0, 4); n > 0; --n) moves += (moves.size() > 1 ? "," : "") + string_value(m, move_text(m));
  fields.push_back({"moves", m.chance(0.9) ? moves + "]" : m.json_value_text()});
  if (m.chance(0.5)) {
    // Without --untrusted the query's player is trusted: never one that runs a program.
    const std::string spec = untrusted && m.chance(0.6) ? hostile_spec(m) : player_spec(m);
    fields.push_back({"player", string_value(m, spec)});
  } else {
    fields.push_back({"sims", m.chance(0.8) ? m.one_of(std::vector<std::string>{"1", "8", "50"}) : m.option_value({"8"})});
  }
  if (m.chance(0.2)) fields.push_back({"max_moves", m.option_value({"1", "3", "1000"})});
  if (m.chance(0.1)) fields.push_back({"position", string_value(m, m.option_value({}))});
  const std::string text = object_text(fields);
  return m.chance(0.2) ? m.mutate_json(text, {}) : text;
}

// One GTP command line: the commands a controller sends, with valid or hostile arguments.
std::string gtp_command(Mutator& m, const std::string& board) {
  static const std::vector<std::string> plain = {"protocol_version", "name", "version", "list_commands", "clear_board",
                                                 "showboard", "final_score", "undo", "quit", "known_command genmove",
                                                 "genmove b", "genmove w", "play b pass", "play w pass"};
  std::string line;
  switch (m.pick(0, 9)) {
    case 0:
    case 1:
    case 2:
      line = m.one_of(plain);
      break;
    case 3:
    case 4:
      line = "play " + m.one_of(std::vector<std::string>{"b", "w", "black", "white", "x"}) + " " +
             (m.chance(0.8) ? m.one_of(std::vector<std::string>{"a1", "b2", "c3", "d4", "e5", "j9", "pass"}) : move_text(m));
      break;
    case 5:
      line = "boardsize " + (m.chance(0.5) ? board : m.option_value({"5", "9", "19", "25"}));
      break;
    case 6:
      line = "komi " + m.option_value({"0", "6.5", "7.5"});
      break;
    case 7:
      line = "time_settings " + m.option_value({"0"}) + " " + m.option_value({"1"}) + " " + m.option_value({"0"});
      break;
    case 8:
      line = m.one_of(std::vector<std::string>{"time_left b 1 0", "kgs-genmove_cleanup b", "reg_genmove w",
                                               "fixed_handicap 2", "loadsgf @DIR@/missing.sgf", "", "#", "  ",
                                               std::string(70000, 'x'), "genmove"});
      break;
    default:
      line = m.mutate_bytes(m.one_of(plain), {}, false, 2);
  }
  if (m.chance(0.1)) line = std::to_string(m.pick(0, 1000)) + " " + line;
  return line;
}

// A session request body: a game and seats, some hostile, sometimes broken as JSON.
std::string session_body(Mutator& m) {
  static const std::vector<std::string> games = {"tictactoe", "connect4", "hex:size=5", "othello", "go:size=9",
                                                 "go:size=19", "2048", "connect4:width=4,height=4"};
  std::string seats = "[";
  for (int n = m.chance(0.9) ? 2 : m.pick(0, 5); n > 0; --n)
    seats += (seats.size() > 1 ? "," : "") + string_value(m, m.chance(0.5) ? hostile_spec(m) : "human");
  std::vector<std::pair<std::string, std::string>> fields = {
      {"game", string_value(m, m.chance(0.9) ? m.one_of(games) : m.option_value({"tictactoe"}))},
      {"seats", m.chance(0.9) ? seats + "]" : m.json_value_text()}};
  const std::string text = object_text(fields);
  const int how = m.pick(0, 9);
  return how < 7 ? text : how < 9 ? m.mutate_json(text, {}) : m.mutate_bytes(text, {}, false);
}

std::string request_body(Mutator& m, const std::string& path) {
  if (path == "/api/sessions") return session_body(m);
  if (path.ends_with("/move")) return object_text({{"move", string_value(m, move_text(m))}});
  if (path.ends_with("/resign")) return object_text({{"seat", m.option_value({"0", "1"})}});
  return m.chance(0.8) ? "{}" : m.json_value_text();
}

std::string request_path(Mutator& m) {
  static const std::vector<std::string> paths = {
      "/api/games", "/api/players", "/api/sessions", "/api/sessions/@SESSION@", "/api/sessions/@SESSION@/move",
      "/api/sessions/@SESSION@/ai", "/api/sessions/@SESSION@/undo", "/api/sessions/@SESSION@/resign",
      "/api/sessions/@SESSION@/record", "/", "/index.html", "/app.js"};
  static const std::vector<std::string> hostile = {
      "/api/%ff", "/api/sessions/%c3", "/api/sessions/%ed%a0%80", "/api/sessions/%00", "/../../etc/passwd",
      "/%2e%2e/%2e%2e/etc/passwd", "/api/sessions/@SESSION@/%2e%2e/record", "/api/sessions/\xff\xfe",
      "/api/sessions/@SESSION@?x=%ff", "//api//games", "/api/sessions/" + std::string(5000, 'a'),
      "/" + std::string(70000, 'b'), "*", "http://evil.example/api/games", "/api/games#\xc3"};
  const int how = m.pick(0, 9);
  if (how < 6) return m.one_of(paths);
  if (how < 9) return m.one_of(hostile);
  return m.mutate_bytes(m.one_of(paths), {}, false, 2);
}

// One raw HTTP/1.1 request, mostly well formed (to reach the handlers), with hostile parts.
std::string http_request(Mutator& m) {
  const std::string path = request_path(m);
  const bool post = path.starts_with("/api/sessions") && path != "/api/sessions/@SESSION@/record" ? m.chance(0.85) : m.chance(0.1);
  std::string method = post ? "POST" : "GET";
  if (m.chance(0.05)) method = m.one_of(std::vector<std::string>{"DELETE", "PUT", "OPTIONS", "HEAD", "BREW", "", "G\xff"});
  std::string request = method + " " + path + " HTTP/1.1\r\n";
  request += "Host: " + (m.chance(0.9) ? std::string("@HOST@") : m.one_of(std::vector<std::string>{"evil.example", "", "@HOST@\xff", "127.0.0.1:1"})) + "\r\n";
  if (m.chance(0.15))
    request += "Origin: " + m.one_of(std::vector<std::string>{"http://@HOST@", "http://evil.example", "null", "\xff"}) + "\r\n";
  if (m.chance(0.1)) request += "Sec-Fetch-Site: " + m.one_of(std::vector<std::string>{"same-origin", "cross-site", "none"}) + "\r\n";
  if (m.chance(0.05)) request += "X-" + std::string(static_cast<std::size_t>(m.pick(1, 9000)), 'h') + ": 1\r\n";
  request += "Connection: close\r\n";
  if (post || m.chance(0.05)) {
    const std::string body = request_body(m, path);
    request += "Content-Type: " + (m.chance(0.9) ? std::string("application/json") : m.one_of(std::vector<std::string>{"text/plain", "", "application/json; charset=\xff", "multipart/form-data"})) + "\r\n";
    const int how = m.pick(0, 19);
    if (how == 0) request += "Transfer-Encoding: chunked\r\n\r\n" + m.one_of(std::vector<std::string>{"zz\r\n", "ffffffffffffffff\r\nx", "3\r\nabc\r\n0\r\n\r\n"});
    else request += "Content-Length: " + (how == 1 ? m.option_value({"0", "5"}) : std::to_string(body.size())) + "\r\n\r\n" + body;
  } else {
    request += "\r\n";
  }
  return m.chance(0.03) ? m.mutate_bytes(request, {}, false, 2) : request;
}

}  // namespace

std::string hostile_spec(Mutator& m) {
  static const std::vector<std::string> specs = {
      "gtp:cmd=touch @DIR@/pwned", "gtp:cmd=/bin/sh -c 'touch @DIR@/pwned'", "gtp:cmd=gnugo --mode gtp",
      "mcts:model=/etc/passwd", "mcts:model=@DIR@/../pwned", "mcts:log=@DIR@/pwned", "mcts:sims=1,log=@DIR@/pwned",
      "policy:model=/dev/zero", "mcts:model=connect4", "mcts:model=connect4,sims=10", "policy:model=tictactoe",
      "mcts:sims=100001", "mcts:threads=5", "mcts:seconds=61", "uct:seconds=1e308", "mcts:sims=1e9",
      "mcts:batch=257", "uct:rollouts=100000", "mcts:worlds=100000", "mcts:nnthreads=1000", "solver:seconds=86400",
      "mcts:sims=-1", "mcts:sims=nan", "mcts:sims=10,sims=20", "human", "random", "mcts:sims=10", "uct:sims=20",
      "solver:seconds=0.01", "gtp", "GTP:cmd=touch @DIR@/pwned", " gtp:cmd=touch @DIR@/pwned", "mcts:cmd=touch @DIR@/pwned"};
  const int how = m.pick(0, 9);
  if (how < 6) return m.one_of(specs);
  if (how < 8) return player_spec(m);
  return with_broken_utf8(m, m.one_of(specs));
}

FuzzCase analyze_case(Mutator& m) {
  const bool untrusted = m.chance(0.7);
  FuzzCase c{"analyze", {"analyze"}, {}};
  if (untrusted) c.args.push_back("--untrusted");
  if (m.chance(0.2)) c.args.push_back("--threads=" + m.option_value({"1", "2"}));
  for (int i = 0, n = m.pick(1, 6); i < n; ++i) {
    const int how = m.pick(0, 19);
    c.stdin_text += how < 16 ? analyze_query(m, untrusted, i)
                    : how < 18 ? m.json_value_text()
                               : with_broken_utf8(m, analyze_query(m, untrusted, i));
    c.stdin_text += "\n";
  }
  if (m.chance(0.05)) c.stdin_text += std::string(static_cast<std::size_t>(m.pick(1, 3)) << 20, '{');  // past the line cap
  return c;
}

FuzzCase gtp_case(Mutator& m) {
  const std::string game = m.one_of(std::vector<std::string>{"go:size=5", "go:size=9", "hex:size=5", "hex:size=8"});
  const std::string board = game.substr(game.find('=') + 1);
  FuzzCase c{"gtp", {"gtp", "--game=" + game}, {}};
  c.args.push_back("--player=" + (m.chance(0.7) ? m.one_of(std::vector<std::string>{"random", "mcts:sims=16", "uct:sims=16"})
                                                : player_spec(m)));
  for (int n = m.pick(1, 12); n > 0; --n) c.stdin_text += gtp_command(m, board) + (m.chance(0.95) ? "\n" : "\r\n");
  return c;
}

FuzzCase http_case(Mutator& m) {
  FuzzCase c{"http", {"serve", "--port=0", "--db=@DIR@/play.sqlite"}, {}, 2.0};
  for (int n = m.pick(1, 10); n > 0; --n) c.http.requests.push_back(http_request(m));
  if (m.chance(0.3)) c.http.event_streams = m.one_of(std::vector<int>{1, 4, 33, 40});
  return c;
}

}  // namespace pz::fuzz
