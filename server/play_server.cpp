#include "server/play_server.h"

#include <httplib.h>

#include <cctype>
#include <filesystem>
#include <random>

#include "arena/player_factory.h"
#include "arena/search_players.h"
#include "games/registry.h"
#include "server/board_view.h"
#include "server/thinking.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_text.h"

namespace pz::server {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxBody = 64 * 1024;
constexpr int kMaxJsonDepth = 32;
constexpr auto kKeepAlive = std::chrono::seconds(15);

std::string new_session_id() {
  static std::random_device device;
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  char text[33];
  std::uint64_t a = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  std::uint64_t b = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return text;
}

json body_json(const httplib::Request& request) {
  if (request.body.empty()) return json::object();
  return util::parse_json_object(request.body, "the request body", kMaxJsonDepth);
}

void send(httplib::Response& response, int status, const json& body) {
  response.status = status;
  response.set_header("Cache-Control", "no-store");
  response.set_content(util::dump_json(body), "application/json");
}

// Runs an API handler: ApiError and bad input become JSON errors, never a crash (every
// answer is dumped with foreign bytes replaced, so quoting a client's text cannot throw).
template <typename Handler>
auto api(Handler handler) {
  return [handler](const httplib::Request& request, httplib::Response& response) {
    try {
      handler(request, response);
    } catch (const ApiError& e) {
      send(response, e.status(), {{"error", e.what()}});
    } catch (const util::UsageError& e) {
      send(response, 400, {{"error", e.what()}});
    } catch (const json::exception& e) {
      send(response, 400, {{"error", std::string("bad JSON field: ") + e.what()}});
    } catch (const std::exception& e) {
      send(response, 500, {{"error", std::string("internal error: ") + e.what()}});
    } catch (...) {
      send(response, 500, {{"error", "internal error"}});
    }
  };
}

bool is_json_content_type(const std::string& value) {
  std::string type = value.substr(0, value.find(';'));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  for (auto& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return type == "application/json";
}

// "host:port" or "[v6]:port" → host (brackets kept) and port (-1 when none is written).
std::pair<std::string, int> split_host_port(const std::string& text) {
  const auto colon = text.rfind(':');
  const auto bracket = text.rfind(']');
  if (colon == std::string::npos || (bracket != std::string::npos && colon < bracket)) return {text, -1};
  const std::string port = text.substr(colon + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return {text, -2};
  return {text.substr(0, colon), std::stoi(port)};
}

// An address written as digits (IPv4) or in brackets (IPv6): a name that DNS cannot rebind.
bool is_ip_literal(const std::string& host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') return true;
  return !host.empty() && host.find_first_not_of("0123456789.") == std::string::npos;
}

std::string lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string string_field(const json& body, const char* key, const std::string& fallback) {
  if (!body.contains(key)) return fallback;
  if (!body[key].is_string()) throw ApiError(400, std::string("\"") + key + "\" must be a string");
  return body[key].get<std::string>();
}

}  // namespace

PlayServer::PlayServer(ServeOptions options)
    : options_(std::move(options)), specs_(options_.models), store_(options_.db), http_(std::make_unique<httplib::Server>()),
      ai_(options_.ai_threads, options_.ai_queue) {
  if (!std::filesystem::is_regular_file(options_.web_dir + "/index.html")) {
    throw util::UsageError("the play page is not in " + options_.web_dir +
                           " (no index.html); give the repository's server/web with --web DIR");
  }
  for (const auto& [game, path] : options_.models) {
    if (const std::string problem = util::file_problem(path); !problem.empty()) {
      throw util::UsageError("--model " + game + "=" + path + ": " + problem +
                             " (give a checkpoint, e.g. RUN/models/latest.pt)");
    }
    games::make_game(game);  // an unknown game is a usage error
  }
  add_routes();
}

PlayServer::~PlayServer() {
  stop();
  ai_.stop();
}

int PlayServer::bind() {
  const int port = options_.port == 0 ? http_->bind_to_any_port(options_.host)
                                      : (http_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port < 0) {
    throw util::UsageError("cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                           " (in use, or not an address of this machine); try another --port");
  }
  port_ = port;
  return port;
}

void PlayServer::run() { http_->listen_after_bind(); }

void PlayServer::stop() {
  if (stopping_.exchange(true)) return;
  events_.close_all();
  http_->stop();
}

std::shared_ptr<PlayServer::Entry> PlayServer::find(const std::string& id) {
  {
    std::lock_guard lock(sessions_mutex_);
    const auto it = sessions_.find(id);
    if (it != sessions_.end()) {
      it->second->last_used = ++clock_;
      return it->second;
    }
  }
  const auto record = store_.load(id);
  if (!record) throw ApiError(404, "no session " + id + " (it may have been created by another server's database)");
  auto entry = std::make_shared<Entry>();
  entry->session = Session::restore(*record);
  remember(entry);
  std::lock_guard lock(sessions_mutex_);
  return sessions_.at(id);
}

void PlayServer::remember(const std::shared_ptr<Entry>& entry) {
  std::lock_guard lock(sessions_mutex_);
  entry->last_used = ++clock_;
  sessions_.emplace(entry->session->id(), entry);
  // Sessions beyond the bound leave memory, least recently used first (they stay stored);
  // one that is thinking stays until its search is done.
  while (sessions_.size() > options_.sessions_in_memory) {
    auto oldest = sessions_.end();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
      if (it->second->thinking || it->second == entry) continue;
      if (oldest == sessions_.end() || it->second->last_used < oldest->second->last_used) oldest = it;
    }
    if (oldest == sessions_.end()) break;
    sessions_.erase(oldest);
  }
}

void PlayServer::changed(Entry& entry) {
  store_.save(entry.session->record());
  events_.publish(entry.session->id(), "state", util::dump_json(entry.session->state_json(entry.thinking)));
}

void PlayServer::continue_after_change(const std::shared_ptr<Entry>& entry) {
  try {
    schedule_ai(entry, false);
  } catch (const ApiError&) {
    changed(*entry);  // the change stands even when its AI reply must wait
    throw;
  }
  changed(*entry);
}

void PlayServer::schedule_ai(const std::shared_ptr<Entry>& entry, bool force) {
  Session& session = *entry->session;
  const auto seat = session.seat_to_move();
  if (!seat || entry->thinking || (!force && session.is_human(*seat))) return;
  entry->thinking = true;
  const int generation = session.generation(), moves = session.move_count();
  if (!ai_.submit([this, entry, generation, moves] { run_ai(entry, generation, moves); })) {
    entry->thinking = false;
    throw ApiError(503, "the AI queue is full; ask for the AI's move again later (POST /api/sessions/" + session.id() + "/ai)");
  }
}

void PlayServer::run_ai(const std::shared_ptr<Entry>& entry, int generation, int move_count) {
  std::unique_ptr<games::State> state;
  std::string spec;
  int seat = 0;
  std::uint64_t seed = 0;
  std::string id;
  {
    std::lock_guard lock(entry->mutex);
    Session& session = *entry->session;
    if (stopping_ || session.generation() != generation || session.move_count() != move_count || session.finished()) {
      entry->thinking = false;
      return;
    }
    state = session.state().clone();
    seat = *session.seat_to_move();
    spec = session.ai_for(seat);  // the client's spelling, resolved again below
    seed = std::hash<std::string>{}(session.id()) ^ (static_cast<std::uint64_t>(move_count) * 0x9E3779B97F4A7C15ULL);
    id = session.id();
  }
  json analysis = nullptr;
  std::optional<double> win_probability;  // none: the player did not evaluate the position
  std::optional<games::Action> action;
  bool resigned = false;
  std::string failure;
  try {
    auto player = arena::make_player(specs_.resolve(spec), state->game(), seed);
    auto* mcts = dynamic_cast<arena::MctsPlayer*>(player.get());
    if (mcts) {
      mcts->set_progress([&](const mcts::SearchReport& report) {
        events_.publish(id, "thinking", util::dump_json(thinking_json(report, *state, false)));
      });
    }
    player->reset(*state);
    action = player->choose_action(*state, seat);
    const mcts::SearchReport* report = nullptr;
    if (mcts) report = &mcts->last_report();
    if (report && !report->children.empty()) {
      analysis = thinking_json(*report, *state, true);
      win_probability = analysis["win_probability"].get<double>();
      events_.publish(id, "thinking", util::dump_json(analysis));
    }
  } catch (const arena::Forfeit& e) {
    resigned = true;
    failure = e.what();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  std::lock_guard lock(entry->mutex);
  entry->thinking = false;
  Session& session = *entry->session;
  if (session.generation() != generation || session.move_count() != move_count) {
    changed(*entry);  // undone or resigned meanwhile: the search is stale
    return;
  }
  try {
    if (action) {
      session.play_ai(*action, win_probability, analysis);
    } else if (resigned && !session.finished()) {
      session.resign(seat);
    } else if (!failure.empty()) {
      events_.publish(id, "ai_error", util::dump_json(json{{"error", "the AI (" + spec + ") failed: " + failure}}));
    }
    continue_after_change(entry);  // AI against AI: the next move
  } catch (const std::exception& e) {
    events_.publish(id, "ai_error", util::dump_json(json{{"error", e.what()}}));
  }
}

bool PlayServer::allowed_host(const std::string& host_header) const {
  const auto [host, port] = split_host_port(lower(host_header));
  if (port != port_ && !(port == -1 && port_ == 80)) return false;
  const std::string bound = lower(options_.host);
  if (host == "localhost" || host == "127.0.0.1" || host == "[::1]") return true;
  if (host == bound || host == "[" + bound + "]") return true;
  for (const auto& name : options_.allowed_hosts) {
    if (host == lower(name)) return true;
  }
  // Listening on every address: any address of the machine, written as an address.
  return (bound == "0.0.0.0" || bound == "::") && is_ip_literal(host);
}

std::optional<std::pair<int, std::string>> PlayServer::refuse_request(const httplib::Request& request) const {
  if (request.path.rfind("/api/", 0) != 0) return std::nullopt;  // the page's own files are public
  const std::string host = request.get_header_value("Host");
  if (!allowed_host(host)) {
    return std::make_pair(403, "the Host header '" + host.substr(0, 80) +
                                   "' is not this server's address; open the page at http://" + options_.host + ":" +
                                   std::to_string(port_) + " (or start the server with --allow-host NAME)");
  }
  if (request.has_header("Origin") && lower(request.get_header_value("Origin")) != "http://" + lower(host)) {
    return std::make_pair(403, "requests from another site's page are refused (Origin " +
                                   request.get_header_value("Origin").substr(0, 80) + ")");
  }
  if (request.get_header_value("Sec-Fetch-Site") == "cross-site") {
    return std::make_pair(403, "requests from another site's page are refused");
  }
  if (request.method != "GET" && request.method != "HEAD" && !is_json_content_type(request.get_header_value("Content-Type"))) {
    return std::make_pair(415, "send the request body as Content-Type: application/json");
  }
  return std::nullopt;
}

std::string PlayServer::default_ai(const games::Game& game) const {
  const std::string& name = game.info().name;
  const auto model = options_.models.find(name);
  const auto plays = options_.model_games.find(name);
  if (model != options_.models.end() && (plays == options_.model_games.end() || plays->second == game.network_spec().to_string())) {
    return "mcts:model=" + name + ",sims=400";
  }
  return "mcts:sims=800";
}

json PlayServer::games_json() const {
  json out = json::array();
  for (const auto& entry : games::registered_games()) {
    const auto game = games::make_game(entry.name);
    json options = json::array();
    for (const auto& o : entry.options.options()) {
      const char* type = o.type == util::OptionSchema::Type::kInt      ? "int"
                         : o.type == util::OptionSchema::Type::kDouble ? "double"
                         : o.type == util::OptionSchema::Type::kBool   ? "bool"
                                                                       : "string";
      json option{{"key", o.key},
                  {"type", type},
                  {"default", o.default_value},
                  {"help", o.help},
                  {"min", o.min ? json(*o.min) : json(nullptr)},
                  {"max", o.max ? json(*o.max) : json(nullptr)},
                  {"choices", o.choices}};
      options.push_back(option);
    }
    out.push_back({{"name", entry.name},
                   {"long_name", game->info().long_name},
                   {"family", games::family_name(game->info().family)},
                   {"players", game->info().num_players},
                   {"simultaneous", game->info().simultaneous},
                   {"options", options},
                   {"board", has_board_view(*game)}});
  }
  return {{"games", out}};
}

json PlayServer::players_json() const {
  json kinds = json::array();
  for (const auto& kind : arena::player_kinds()) kinds.push_back({{"name", kind.name}, {"description", kind.description}});
  json defaults = json::object();
  for (const auto& entry : games::registered_games()) defaults[entry.name] = default_ai(*games::make_game(entry.name));
  json models = json::array();
  for (const auto& [name, path] : options_.models) models.push_back(name);
  return {{"kinds", kinds}, {"models", models}, {"model_games", options_.model_games}, {"default_ai", defaults}};
}

json PlayServer::create_session(const json& body) {
  const std::string spec = string_field(body, "game", "");
  if (spec.empty()) throw ApiError(400, "give \"game\", e.g. {\"game\": \"connect4\", \"seats\": [\"human\", \"mcts:sims=400\"]}");
  const auto game = games::make_game(spec);
  std::vector<std::string> seats;
  if (body.contains("seats")) {
    if (!body["seats"].is_array()) throw ApiError(400, "\"seats\" must be an array of player specs");
    for (const auto& s : body["seats"]) {
      if (!s.is_string()) throw ApiError(400, "each seat is a string: \"human\" or an AI spec");
      seats.push_back(s.get<std::string>());
    }
  } else {  // default: the person moves first against the game's default AI
    seats.assign(static_cast<std::size_t>(game->info().num_players), default_ai(*game));
    seats[0] = "human";
  }
  auto entry = std::make_shared<Entry>();
  std::random_device device;
  entry->session = std::make_unique<Session>(new_session_id(), game, seats,
                                             (static_cast<std::uint64_t>(device()) << 32) ^ device(),
                                             [this](const std::string& seat) { return specs_.resolve(seat); });
  std::lock_guard lock(entry->mutex);
  remember(entry);
  continue_after_change(entry);
  return entry->session->state_json(entry->thinking);
}

void PlayServer::add_routes() {
  auto& http = *http_;
  const auto threads = static_cast<std::size_t>(options_.http_threads);
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http.set_payload_max_length(kMaxBody);
  http.set_read_timeout(options_.read_timeout_seconds, 0);
  http.set_write_timeout(5, 0);
  http.set_keep_alive_timeout(options_.read_timeout_seconds);
  http.set_pre_routing_handler([this](const httplib::Request& request, httplib::Response& response) {
    const auto refusal = refuse_request(request);
    if (!refusal) return httplib::Server::HandlerResponse::Unhandled;
    send(response, refusal->first, {{"error", refusal->second}});
    return httplib::Server::HandlerResponse::Handled;
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& response, std::exception_ptr) {
    send(response, 500, {{"error", "internal error"}});
  });
  // Address reuse after a restart, but never two servers on one port (no SO_REUSEPORT).
  http.set_socket_options([](socket_t socket) {
    int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof yes);
  });
  http.set_mount_point("/web", options_.web_dir);
  http.Get("/", [this](const httplib::Request&, httplib::Response& response) {
    response.set_content(util::read_text_file(options_.web_dir + "/index.html"), "text/html; charset=utf-8");
  });
  http.Get("/api/games", api([this](const httplib::Request&, httplib::Response& response) { send(response, 200, games_json()); }));
  http.Get("/api/players", api([this](const httplib::Request&, httplib::Response& response) { send(response, 200, players_json()); }));
  http.Post("/api/sessions", api([this](const httplib::Request& request, httplib::Response& response) {
    send(response, 201, create_session(body_json(request)));
  }));
  const std::string session_path = R"(/api/sessions/([0-9a-f]{32}))";
  http.Get(session_path, api([this](const httplib::Request& request, httplib::Response& response) {
    auto entry = find(request.matches[1]);
    std::lock_guard lock(entry->mutex);
    send(response, 200, entry->session->state_json(entry->thinking));
  }));
  http.Post(session_path + "/move", api([this](const httplib::Request& request, httplib::Response& response) {
    const json body = body_json(request);
    auto entry = find(request.matches[1]);
    std::lock_guard lock(entry->mutex);
    if (entry->thinking) throw ApiError(409, "the AI is thinking; wait for its move");
    entry->session->play_human(string_field(body, "move", ""));
    continue_after_change(entry);
    send(response, 200, entry->session->state_json(entry->thinking));
  }));
  http.Post(session_path + "/ai", api([this](const httplib::Request& request, httplib::Response& response) {
    auto entry = find(request.matches[1]);
    std::lock_guard lock(entry->mutex);
    if (entry->session->finished()) throw ApiError(409, "the game is over");
    if (entry->thinking) throw ApiError(409, "the AI is already thinking");
    schedule_ai(entry, true);
    changed(*entry);
    send(response, 202, entry->session->state_json(entry->thinking));
  }));
  http.Post(session_path + "/undo", api([this](const httplib::Request& request, httplib::Response& response) {
    auto entry = find(request.matches[1]);
    std::lock_guard lock(entry->mutex);
    if (entry->thinking) throw ApiError(409, "the AI is thinking; undo after its move");
    entry->session->undo();
    continue_after_change(entry);
    send(response, 200, entry->session->state_json(entry->thinking));
  }));
  http.Post(session_path + "/resign", api([this](const httplib::Request& request, httplib::Response& response) {
    const json body = body_json(request);
    auto entry = find(request.matches[1]);
    std::lock_guard lock(entry->mutex);
    Session& session = *entry->session;
    int seat = -1;
    if (body.contains("seat")) {
      if (!body["seat"].is_number_integer()) throw ApiError(400, "\"seat\" must be a seat number");
      seat = body["seat"].get<int>();
    } else {
      const auto to_move = session.seat_to_move();
      if (to_move && session.is_human(*to_move)) seat = *to_move;
      for (int s = 0; seat < 0 && s < static_cast<int>(session.seats().size()); ++s) {
        if (session.is_human(s)) seat = s;
      }
      if (seat < 0) throw ApiError(400, "no human plays in this session: give \"seat\"");
    }
    session.resign(seat);
    changed(*entry);
    send(response, 200, session.state_json(entry->thinking));
  }));
  http.Get(session_path + "/record", api([this](const httplib::Request& request, httplib::Response& response) {
    auto entry = find(request.matches[1]);
    std::lock_guard lock(entry->mutex);
    send(response, 200, entry->session->record_json());
  }));
  http.Get(session_path + "/events", api([this](const httplib::Request& request, httplib::Response& response) {
    auto entry = find(request.matches[1]);
    const std::string id = entry->session->id();
    // Each stream holds a connection's thread while it is open: beyond the bound, refuse.
    if (open_streams_.fetch_add(1) >= options_.max_event_streams) {
      open_streams_.fetch_sub(1);
      throw ApiError(503, "too many open event streams (at most " + std::to_string(options_.max_event_streams) +
                              "); close another tab or poll GET /api/sessions/" + id);
    }
    auto subscription = events_.subscribe(id);
    {
      std::lock_guard lock(entry->mutex);
      EventHub::push(*subscription, "state", util::dump_json(entry->session->state_json(entry->thinking)));
    }
    response.set_header("Cache-Control", "no-store");
    response.set_chunked_content_provider(
        "text/event-stream",
        [this, subscription](std::size_t, httplib::DataSink& sink) {
          if (stopping_) return false;
          auto message = EventHub::next(*subscription, std::chrono::duration_cast<std::chrono::milliseconds>(kKeepAlive));
          if (stopping_) return false;
          const std::string text = message ? *message : std::string(": keep-alive\n\n");
          return sink.write(text.data(), text.size());
        },
        [this, id, subscription](bool) {
          events_.unsubscribe(id, subscription);
          open_streams_.fetch_sub(1);
        });
  }));
  http.set_error_handler([](const httplib::Request& request, httplib::Response& response) {
    if (request.path.rfind("/api/", 0) != 0 || !response.body.empty()) return;
    const std::string path = request.path.substr(0, 200);
    const std::string what = response.status == 404   ? "no such endpoint or session: " + request.method + " " + path
                             : response.status == 413 ? "the request is too large (at most 64 KiB)"
                                                      : "request refused";
    response.set_content(util::dump_json(json{{"error", what}}), "application/json");
  });
}

}  // namespace pz::server
