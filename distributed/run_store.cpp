#include "distributed/run_store.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>

#include "util/error.h"

namespace pz::distributed {

using nlohmann::json;

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void check_run_name(const std::string& name) {
  const bool ok = !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '.' || c == '_' || c == '-';
  });
  if (!ok) {
    const std::string shown = name.size() <= 40 ? name : name.substr(0, 37) + "...";
    throw util::UsageError("--run '" + shown + "': a run name is 1 to 64 letters, digits, '.', '_' or '-' (e.g. --run ttt-1)");
  }
}

RunStore::RunStore(RedisClient& redis, std::string run) : redis_(redis), run_(std::move(run)) { check_run_name(run_); }

namespace {

std::map<std::string, std::string> pairs(const RedisReply& flat) {
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i + 1 < flat.size(); i += 2) {
    const RedisReply v = flat[i + 1];
    out[flat[i].str()] = v.is_integer() ? std::to_string(v.integer()) : v.str();
  }
  return out;
}

std::int64_t to_int(const std::string& s) {
  try {
    return s.empty() ? 0 : std::stoll(s);
  } catch (const std::exception&) {
    return 0;
  }
}

double to_double(const std::string& s) {
  try {
    return s.empty() ? 0.0 : std::stod(s);
  } catch (const std::exception&) {
    return 0.0;
  }
}

}  // namespace

std::optional<RunMeta> RunStore::read_meta() {
  const auto fields = pairs(redis_.command({"HGETALL", key("meta")}));
  if (fields.empty()) return std::nullopt;
  RunMeta meta;
  meta.game = fields.count("game") ? fields.at("game") : "";
  meta.created = fields.count("created") ? to_int(fields.at("created")) : 0;
  try {
    meta.config = json::parse(fields.count("config") ? fields.at("config") : "null");
  } catch (const json::exception& e) {
    throw util::UsageError("run " + run_ + " on " + redis_.describe() + ": its config in " + key("meta") +
                           " is not valid JSON (" + e.what() + "); was the key written by another program?");
  }
  return meta;
}

RunMeta RunStore::require_meta() {
  auto meta = read_meta();
  if (!meta) {
    // Name the runs there are (a few), for a mistyped name.
    std::vector<std::string> runs;
    std::string cursor = "0";
    int rounds = 0;
    do {
      const RedisReply r = redis_.command({"SCAN", cursor, "MATCH", "pz:*:meta", "COUNT", "1000"});
      cursor = r[0].str();
      for (std::size_t i = 0; i < r[1].size(); ++i) {
        const std::string k = r[1][i].str();
        runs.push_back(k.substr(3, k.size() - 3 - 5));
      }
    } while (cursor != "0" && ++rounds < 20 && runs.size() < 10);
    std::sort(runs.begin(), runs.end());
    std::string known;
    for (std::size_t i = 0; i < runs.size() && i < 10; ++i) known += (i ? ", " : "") + runs[i];
    throw util::UsageError("there is no run '" + run_ + "' on " + redis_.describe() + " (" +
                           (known.empty() ? std::string("it holds none") : "it holds " + known) +
                           "): start its learner first (polyzero train --redis " + redis_.describe() + " --run " + run_ +
                           " --game GAME), or check the name");
  }
  return *meta;
}

void RunStore::register_run(const std::string& game, const json& config) {
  if (const auto meta = read_meta()) {
    if (meta->game != game) {
      throw util::UsageError("run '" + run_ + "' on " + redis_.describe() + " is a run of " + meta->game +
                             ", not of " + game + ": choose another --run name");
    }
  }
  const std::string created = std::to_string(unix_ms() / 1000);
  const std::string config_text = config.dump();
  // HSETNX keeps the first creation time; game and config are (re)written: a learner that
  // resumes after Redis lost its data registers the run again.
  redis_.command({"HSETNX", key("meta"), "created", created});
  redis_.command({"HSET", key("meta"), "game", game, "config", config_text, "format", "1"});
}

std::int64_t RunStore::publish_model(const std::string& weights, json meta) {
  const std::int64_t version = redis_.command({"INCR", key("model:counter")}).integer();
  meta["version"] = version;
  meta["published_ms"] = unix_ms();
  const std::string v = std::to_string(version), model_key = key("model:" + v), meta_text = meta.dump();
  const std::string old_key = key("model:" + std::to_string(version - kModelsKept));
  redis_.transaction({{"HSET", model_key, "weights", weights, "meta", meta_text},
                      {"SET", key("model:latest"), v},
                      // The old version lingers a minute for an actor that read "latest" just before.
                      {"EXPIRE", old_key, "60"}});
  return version;
}

std::int64_t RunStore::latest_version() { return redis_.command({"GET", key("model:latest")}).integer(); }

std::optional<ModelVersion> RunStore::fetch_model(std::int64_t version) {
  const std::string v = std::to_string(version);
  const RedisReply r = redis_.command({"HMGET", key("model:" + v), "weights", "meta"});
  if (r.size() != 2 || r[0].is_nil()) return std::nullopt;
  ModelVersion m;
  m.version = version;
  m.weights = r[0].str();
  try {
    m.meta = json::parse(r[1].is_nil() ? "{}" : r[1].str());
  } catch (const json::exception&) {
    m.meta = json::object();
  }
  return m;
}

std::string RunStore::add_game(const std::string& record, const std::string& actor, std::int64_t version,
                               std::int64_t max_len) {
  const std::string cap = std::to_string(max_len), v = std::to_string(version);
  return redis_.command({"XADD", key("games"), "MAXLEN", "~", cap, "*", "g", record, "actor", actor, "v", v}).str();
}

void RunStore::ensure_group() {
  try {
    // From the stream's beginning: games added before the first learner started are used too.
    redis_.command({"XGROUP", "CREATE", key("games"), kLearnerGroup, "0", "MKSTREAM"});
  } catch (const RedisError& e) {
    if (e.kind() != RedisError::Kind::kServer || std::string(e.what()).find("BUSYGROUP") == std::string::npos) throw;
  }
}

std::vector<StreamEntry> RunStore::parse_entries(const RedisReply& entries) {
  std::vector<StreamEntry> out;
  out.reserve(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const RedisReply e = entries[i];
    StreamEntry entry;
    entry.id = e[0].str();
    if (e[1].is_nil()) {
      entry.deleted = true;
    } else {
      entry.fields = pairs(e[1]);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

std::vector<StreamEntry> RunStore::read_group(const std::string& consumer, const std::string& from, int count, int block_ms) {
  const std::string n = std::to_string(count), block = std::to_string(block_ms);
  std::vector<std::string_view> args{"XREADGROUP", "GROUP", kLearnerGroup, consumer, "COUNT", n};
  if (block_ms > 0) {
    args.push_back("BLOCK");
    args.push_back(block);
  }
  const std::string stream = key("games");
  args.push_back("STREAMS");
  args.push_back(stream);
  args.push_back(from);
  const RedisReply r = redis_.command(args);
  if (r.is_nil() || r.size() == 0) return {};
  return parse_entries(r[0][1]);
}

std::vector<StreamEntry> RunStore::claim_from_dead(const std::string& consumer, std::int64_t min_idle_ms, int count) {
  const std::string idle = std::to_string(min_idle_ms), n = std::to_string(count), stream = key("games");
  const RedisReply pending = redis_.command({"XPENDING", stream, kLearnerGroup, "IDLE", idle, "-", "+", n});
  std::map<std::string, bool> dead;  // consumer -> no heartbeat
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const std::string owner = pending[i][1].str();
    if (owner == consumer) continue;
    auto it = dead.find(owner);
    if (it == dead.end()) {
      it = dead.emplace(owner, redis_.command({"EXISTS", key("learner:alive:" + owner)}).integer() == 0).first;
    }
    if (it->second) ids.push_back(pending[i][0].str());
  }
  if (ids.empty()) return {};
  std::vector<std::string_view> args{"XCLAIM", stream, kLearnerGroup, consumer, idle};
  for (const auto& id : ids) args.push_back(id);
  std::vector<StreamEntry> claimed = parse_entries(redis_.command(args));
  // Entries trimmed away are not returned by XCLAIM: acknowledge them so they leave the list.
  std::vector<std::string> gone;
  for (const auto& id : ids) {
    if (std::none_of(claimed.begin(), claimed.end(), [&](const StreamEntry& e) { return e.id == id; })) gone.push_back(id);
  }
  if (!gone.empty()) ack(gone);
  return claimed;
}

std::int64_t RunStore::backlog() {
  RedisReply groups;
  try {
    groups = redis_.command({"XINFO", "GROUPS", key("games")});
  } catch (const RedisError& e) {
    if (e.kind() != RedisError::Kind::kServer) throw;
    return 0;  // no stream yet
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto g = pairs(groups[i]);
    if (!g.count("name") || g.at("name") != kLearnerGroup) continue;
    if (g.count("lag") && !g.at("lag").empty()) return to_int(g.at("lag"));
    return redis_.command({"XLEN", key("games")}).integer();
  }
  return 0;
}

void RunStore::ack(const std::vector<std::string>& ids) {
  const std::string stream = key("games");
  for (std::size_t start = 0; start < ids.size(); start += 500) {
    std::vector<std::string_view> args{"XACK", stream, kLearnerGroup};
    for (std::size_t i = start; i < std::min(ids.size(), start + 500); ++i) args.push_back(ids[i]);
    redis_.command(args);
  }
}

void RunStore::actor_heartbeat(const std::string& id, const std::map<std::string, std::string>& fields, int ttl_seconds) {
  const std::string k = key("actor:" + id), ttl = std::to_string(ttl_seconds);
  std::vector<std::string_view> hset{"HSET", k};
  for (const auto& [f, v] : fields) {
    hset.push_back(f);
    hset.push_back(v);
  }
  redis_.transaction({hset, {"EXPIRE", k, ttl}});
}

void RunStore::remove_actor(const std::string& id) { redis_.command({"DEL", key("actor:" + id)}); }

void RunStore::learner_heartbeat(const std::string& consumer, bool shared,
                                 const std::map<std::string, std::string>& fields, int ttl_seconds) {
  const std::string k = key("learner"), alive = key("learner:alive"), mine = key("learner:alive:" + consumer),
                    ttl = std::to_string(ttl_seconds);
  std::vector<std::string_view> hset{"HSET", k};
  for (const auto& [f, v] : fields) {
    hset.push_back(f);
    hset.push_back(v);
  }
  if (!shared) {
    redis_.command({"SET", mine, "1", "EX", ttl});
    return;
  }
  redis_.transaction({hset, {"SET", alive, "1", "EX", ttl}, {"SET", mine, "1", "EX", ttl}});
}

json RunStore::status() {
  const RunMeta meta = require_meta();
  json s;
  s["run"] = run_;
  s["redis"] = redis_.describe();
  s["game"] = meta.game;
  s["created"] = meta.created;
  const std::int64_t now = unix_ms();
  s["time_ms"] = now;

  const auto learner = pairs(redis_.command({"HGETALL", key("learner")}));
  json l = json::object();
  l["alive"] = redis_.command({"EXISTS", key("learner:alive")}).integer() > 0;
  {  // each learner's own heartbeat (several with data-parallel learners)
    json ranks = json::array();
    std::string cursor = "0";
    const std::string prefix = key("learner:alive:");
    do {
      const RedisReply r = redis_.command({"SCAN", cursor, "MATCH", prefix + "*", "COUNT", "200"});
      cursor = r[0].str();
      for (std::size_t i = 0; i < r[1].size(); ++i) ranks.push_back(r[1][i].str().substr(prefix.size()));
    } while (cursor != "0" && ranks.size() < 10000);
    std::vector<std::string> sorted = ranks.get<std::vector<std::string>>();
    std::sort(sorted.begin(), sorted.end());
    l["consumers_alive"] = sorted;
  }
  l["step"] = learner.count("step") ? to_int(learner.at("step")) : 0;
  l["lr"] = learner.count("lr") ? to_double(learner.at("lr")) : 0.0;
  l["games"] = learner.count("games") ? to_int(learner.at("games")) : 0;
  l["samples"] = learner.count("samples") ? to_int(learner.at("samples")) : 0;
  l["checkpoint_step"] = learner.count("checkpoint_step") ? to_int(learner.at("checkpoint_step")) : 0;
  l["seconds_since_update"] = learner.count("updated") ? static_cast<double>(now - to_int(learner.at("updated"))) / 1000.0 : -1.0;
  s["learner"] = l;

  const std::int64_t latest = latest_version();
  json model = {{"version", latest}};
  if (latest > 0) {
    const RedisReply r = redis_.command({"HGET", key("model:" + std::to_string(latest)), "meta"});
    try {
      if (!r.is_nil()) model["meta"] = json::parse(r.str());
    } catch (const json::exception&) {
    }
  }
  s["model"] = model;

  json actors = json::array();
  double games_per_s = 0;
  std::string cursor = "0";
  const std::string pattern = key("actor:*");
  std::vector<std::string> actor_keys;
  do {
    const RedisReply r = redis_.command({"SCAN", cursor, "MATCH", pattern, "COUNT", "200"});
    cursor = r[0].str();
    for (std::size_t i = 0; i < r[1].size(); ++i) actor_keys.push_back(r[1][i].str());
  } while (cursor != "0" && actor_keys.size() < 100000);
  std::sort(actor_keys.begin(), actor_keys.end());
  for (const auto& k : actor_keys) {
    const auto f = pairs(redis_.command({"HGETALL", k}));
    if (f.empty()) continue;  // expired between SCAN and HGETALL
    json a = {{"id", k.substr(key("actor:").size())},
              {"host", f.count("host") ? f.at("host") : ""},
              {"pid", f.count("pid") ? to_int(f.at("pid")) : 0},
              {"threads", f.count("threads") ? to_int(f.at("threads")) : 0},
              {"games", f.count("games") ? to_int(f.at("games")) : 0},
              {"games_per_s", f.count("games_per_s") ? to_double(f.at("games_per_s")) : 0.0},
              {"version", f.count("version") ? to_int(f.at("version")) : 0},
              {"queued", f.count("queued") ? to_int(f.at("queued")) : 0},
              {"paused", f.count("paused") && f.at("paused") == "1"},
              {"max_backlog", f.count("max_backlog") ? to_int(f.at("max_backlog")) : 0},
              {"seconds_since_update", f.count("updated") ? static_cast<double>(now - to_int(f.at("updated"))) / 1000.0 : -1.0}};
    games_per_s += a["games_per_s"].get<double>();
    actors.push_back(a);
  }
  s["actors"] = actors;
  s["actors_alive"] = actors.size();
  s["games_per_s"] = games_per_s;

  json stream = {{"length", redis_.command({"XLEN", key("games")}).integer()}, {"pending", 0}, {"backlog", nullptr}};
  try {
    const RedisReply groups = redis_.command({"XINFO", "GROUPS", key("games")});
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const auto g = pairs(groups[i]);
      if (!g.count("name") || g.at("name") != kLearnerGroup) continue;
      stream["pending"] = g.count("pending") ? to_int(g.at("pending")) : 0;
      stream["consumers"] = g.count("consumers") ? to_int(g.at("consumers")) : 0;
      // lag: entries not yet delivered to any learner (nil when Redis cannot tell, after trimming)
      if (g.count("lag") && !g.at("lag").empty()) stream["backlog"] = to_int(g.at("lag"));
    }
  } catch (const RedisError& e) {
    if (e.kind() != RedisError::Kind::kServer) throw;  // no stream yet
  }
  s["stream"] = stream;
  return s;
}

std::string status_text(const json& s) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "run %s on %s: %s\n", s.value("run", "").c_str(), s.value("redis", "").c_str(),
                s.value("game", "").c_str());
  out += buf;
  const json& l = s["learner"];
  const std::size_t ranks = l.contains("consumers_alive") ? l["consumers_alive"].size() : 0;
  const std::string alive = !l.value("alive", false) ? "not seen (no heartbeat)"
                            : ranks > 1             ? "alive (" + std::to_string(ranks) + " data-parallel learners)"
                                                    : "alive";
  std::snprintf(buf, sizeof buf, "learner: %s, step %lld, lr %.4g, %lld games, checkpoint at step %lld\n",
                alive.c_str(), static_cast<long long>(l.value("step", 0LL)),
                l.value("lr", 0.0), static_cast<long long>(l.value("games", 0LL)),
                static_cast<long long>(l.value("checkpoint_step", 0LL)));
  out += buf;
  const json& m = s["model"];
  if (m.value("version", 0LL) > 0) {
    std::snprintf(buf, sizeof buf, "model: version %lld (step %lld)\n", static_cast<long long>(m.value("version", 0LL)),
                  static_cast<long long>(m.contains("meta") ? m["meta"].value("step", 0LL) : 0LL));
  } else {
    std::snprintf(buf, sizeof buf, "model: none published yet\n");
  }
  out += buf;
  const json& st = s["stream"];
  std::snprintf(buf, sizeof buf, "stream: %lld games kept, %s not yet read by a learner, %lld read but not yet in a checkpoint\n",
                static_cast<long long>(st.value("length", 0LL)),
                st["backlog"].is_null() ? "?" : std::to_string(st["backlog"].get<long long>()).c_str(),
                static_cast<long long>(st.value("pending", 0LL)));
  out += buf;
  std::snprintf(buf, sizeof buf, "actors: %zu alive, %.2f games/s in all\n", s["actors"].size(), s.value("games_per_s", 0.0));
  out += buf;
  for (const auto& a : s["actors"]) {
    std::snprintf(buf, sizeof buf, "  %-24s %s pid %lld, %lld thread(s), %lld games (%.2f/s), model version %lld, %lld queued%s, seen %.0f s ago\n",
                  a.value("id", "").c_str(), a.value("host", "").c_str(), static_cast<long long>(a.value("pid", 0LL)),
                  static_cast<long long>(a.value("threads", 0LL)), static_cast<long long>(a.value("games", 0LL)),
                  a.value("games_per_s", 0.0), static_cast<long long>(a.value("version", 0LL)),
                  static_cast<long long>(a.value("queued", 0LL)),
                  a.value("paused", false) ? ", paused (backlog at its limit)" : "", a.value("seconds_since_update", 0.0));
    out += buf;
  }
  return out;
}

}  // namespace pz::distributed
