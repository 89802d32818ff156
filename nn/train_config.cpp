#include "nn/train_config.h"

#include <algorithm>
#include <limits>

#include "games/registry.h"
#include "nn/backend.h"
#include "nn/files.h"

#include "optim/config_fields.h"
#include "util/data_dirs.h"
#include "util/error.h"
#include "util/json_text.h"
#include "util/spec.h"

namespace pz::nn {

using nlohmann::json;

json default_train_config() {
  return json{
      {"game", "connect4"},
      {"seed", 1},
      {"network", NetConfig{}.to_json()},
      {"selfplay",
       {{"threads", 1},        {"games_per_thread", 32},     {"simulations", 100},       {"fast_simulations", 0},
        {"full_search_probability", 0.25}, {"leaves_per_tree", 1}, {"c_puct", 1.25},   {"c_puct_base", 19652},
        {"fpu", 0.25},         {"root_noise", true},         {"noise_fraction", 0.25},   {"noise_alpha_total", 10.0},
        {"forced_playouts", false}, {"temperature", 1.0},    {"temperature_moves", 8},   {"final_temperature", 0.0},
        {"resign", true},      {"resign_threshold", -0.9},   {"resign_consecutive", 3},  {"no_resign_fraction", 0.2},
        {"max_moves", 0},      {"solver", true},             {"win_check", true},        {"cache_entries", 65536},   {"synchronous", false},
        {"backend", "auto"},   {"backend_threads", 1}}},
      {"replay", {{"capacity", 100000}, {"min_samples", 1000}, {"max_replay_ratio", 8.0}, {"q_mix", 0.0}, {"augment", true}}},
      {"learner",
       {{"batch_size", 256},
        {"steps", 10000},
        {"publish_every", 50},
        {"value_weight", 1.0},
        {"ownership_weight", 1.5},
        {"score_weight", 0.5},
        {"backend", "auto"},
        {"optimizer",
         {{"type", "sgd"}, {"lr", 0.05}, {"momentum", 0.9}, {"nesterov", true}, {"weight_decay", 1e-4},
          {"clip_grad_norm", 5.0}}},
        {"scheduler",
         {{"type", "poly"}, {"power", 1.0}, {"eta_min", 0.002}, {"warmup", {{"type", "linear"}, {"steps", 200}, {"start_factor", 0.05}}}}}}},
      {"checkpoint", {{"every_steps", 500}, {"every_minutes", 5.0}, {"keep", 3}}},
      {"eval", {{"every_steps", 1000}, {"games", 20}, {"sims", 64}, {"batch", 8},
                {"opponents", json::array({"random", "uct:sims=200"})}, {"previous", true},
                {"accuracy_positions", 100}, {"accuracy_seconds", 60.0},
                {"gate", {{"enabled", false}, {"elo0", 0.0}, {"elo1", 20.0}, {"alpha", 0.05}, {"beta", 0.05},
                          {"max_pairs", 100}, {"openings", "random:4"}}}}},
      {"log", {{"every_steps", 10}, {"summary_minutes", 2.0}}},
  };
}

namespace {

using optim::Bounds;

// Bounds of the counts that size threads and memory, checked before anything is allocated:
// generous for any machine polyzero runs on, far below what would exhaust one.
constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
constexpr std::int64_t kMaxThreads = 256;
constexpr std::int64_t kMaxTreesPerThread = 4096;
constexpr std::int64_t kMaxSimulations = 10'000'000;
constexpr std::int64_t kMaxCacheEntries = std::int64_t{1} << 28;
constexpr std::int64_t kMaxReplayCapacity = 50'000'000;
constexpr std::int64_t kMaxBatch = 65536;
using optim::ConfigFields;

const json& object_at(ConfigFields& f, const std::string& key) {
  const json* v = f.raw(key);
  static const json empty = json::object();
  if (!v) return empty;
  if (!v->is_object()) f.fail(key, "must be an object");
  return *v;
}

}  // namespace

TrainConfig parse_train_config(const json& config) {
  if (!config.is_object()) throw util::UsageError("training config: must be a JSON object");
  TrainConfig c;
  ConfigFields top(config, "config");
  c.game = top.required_string("game");
  c.seed = static_cast<std::uint64_t>(top.integer("seed", 1, 0));
  c.network = parse_net_config(object_at(top, "network"), "network");

  {
    ConfigFields f(object_at(top, "selfplay"), "selfplay");
    mcts::SelfPlayConfig& s = c.selfplay;
    c.actor_threads = static_cast<int>(f.integer("threads", 1, 1, kMaxThreads));
    s.games_per_actor = static_cast<int>(f.integer("games_per_thread", 32, 1, kMaxTreesPerThread));
    s.full_simulations = static_cast<int>(f.integer("simulations", 100, 1, kMaxSimulations));
    s.fast_simulations = static_cast<int>(f.integer("fast_simulations", 0, 0, kMaxSimulations));
    s.full_search_probability = f.number("full_search_probability", 0.25, Bounds::closed(0, 1));
    s.leaves_per_tree = static_cast<int>(f.integer("leaves_per_tree", 1, 1, 1024));
    s.search.c_puct_init = f.number("c_puct", 1.25, Bounds::above(0));
    s.search.c_puct_base = f.number("c_puct_base", 19652, Bounds::above(0));
    s.search.fpu_reduction = f.number("fpu", 0.25, Bounds::at_least(0));
    s.search.root_noise = f.boolean("root_noise", true);
    s.search.noise_fraction = f.number("noise_fraction", 0.25, Bounds::closed(0, 1));
    s.search.noise_alpha_total = f.number("noise_alpha_total", 10.0, Bounds::above(0));
    s.search.forced_playouts = f.boolean("forced_playouts", false);
    s.move_selection.temperature.initial = f.number("temperature", 1.0, Bounds::at_least(0));
    s.move_selection.temperature.moves = static_cast<int>(f.integer("temperature_moves", 8, 0, kMaxInt));
    s.move_selection.temperature.final = f.number("final_temperature", 0.0, Bounds::at_least(0));
    s.move_selection.temperature.halflife = 0;
    s.resign = f.boolean("resign", true);
    s.resign_threshold = f.number("resign_threshold", -0.9);
    s.resign_consecutive = static_cast<int>(f.integer("resign_consecutive", 3, 1, kMaxInt));
    s.no_resign_fraction = f.number("no_resign_fraction", 0.2, Bounds::closed(0, 1));
    s.max_moves = static_cast<int>(f.integer("max_moves", 0, 0, kMaxInt));
    s.search.solver = f.boolean("solver", true);
    s.search.check_immediate_wins = f.boolean("win_check", true);
    s.search.simulations = s.full_simulations;
    c.cache_entries = static_cast<std::size_t>(f.integer("cache_entries", 65536, 0, kMaxCacheEntries));
    c.synchronous = f.boolean("synchronous", false);
    c.backend = f.choice("backend", "auto", backend_names());
    c.backend_threads = static_cast<int>(std::min<std::int64_t>(f.integer("backend_threads", 1, 1), 65));
    if (c.backend_threads > 64) f.fail("backend_threads", "at most 64 threads (one evaluation is a few milliseconds)");
    f.finish("selfplay");
  }
  {
    ConfigFields f(object_at(top, "replay"), "replay");
    c.replay_capacity = static_cast<std::size_t>(f.integer("capacity", 100000, 1, kMaxReplayCapacity));
    c.min_samples = static_cast<std::size_t>(f.integer("min_samples", 1000, 1, kMaxReplayCapacity));
    c.max_replay_ratio = f.number("max_replay_ratio", 8.0, Bounds::above(0));
    c.q_mix = f.number("q_mix", 0.0, Bounds::closed(0, 1));
    c.augment = f.boolean("augment", true);
    f.finish("replay");
  }
  json resolved = config;
  {
    ConfigFields f(object_at(top, "learner"), "learner");
    c.batch_size = static_cast<int>(f.integer("batch_size", 256, 1, kMaxBatch));
    c.steps = f.integer("steps", 10000, 1);
    c.publish_every = static_cast<int>(f.integer("publish_every", 50, 1, kMaxInt));
    c.value_weight = f.number("value_weight", 1.0, Bounds::at_least(0));
    c.ownership_weight = f.number("ownership_weight", 1.5, Bounds::at_least(0));
    c.score_weight = f.number("score_weight", 0.5, Bounds::at_least(0));
    c.learner_backend = f.choice("backend", "auto", {"auto", "torch", "poly"});
    const json* opt = f.raw("optimizer");
    c.optimizer = opt ? *opt : default_train_config()["learner"]["optimizer"];
    const json* sched = f.raw("scheduler");
    c.scheduler = sched ? *sched : default_train_config()["learner"]["scheduler"];
    f.finish("learner");
    if (!c.scheduler.is_object()) throw util::UsageError("learner.scheduler: must be an object");
    // A poly schedule ends where the run does unless the config says otherwise.
    // Fields of the wrong type are left as they are: the scheduler factory names them.
    const json* type = c.scheduler.contains("type") ? &c.scheduler["type"] : nullptr;
    const bool poly = type && type->is_string() && (*type == "poly" || *type == "PolynomialLR");
    if (poly && !c.scheduler.contains("total_iters") && !c.scheduler.contains("total_steps")) {
      std::int64_t warmup = 0;
      const json* steps = c.scheduler.contains("warmup") && c.scheduler["warmup"].is_object() &&
                                  c.scheduler["warmup"].contains("steps")
                              ? &c.scheduler["warmup"]["steps"]
                              : nullptr;
      if (steps && steps->is_number_integer()) warmup = std::clamp<std::int64_t>(steps->get<std::int64_t>(), 0, c.steps);
      c.scheduler["total_iters"] = std::max<std::int64_t>(1, c.steps - warmup);
    }
    resolved["learner"]["scheduler"] = c.scheduler;
    resolved["learner"]["optimizer"] = c.optimizer;
  }
  {
    ConfigFields f(object_at(top, "checkpoint"), "checkpoint");
    c.checkpoint_every_steps = static_cast<int>(f.integer("every_steps", 500, 1, kMaxInt));
    c.checkpoint_every_minutes = f.number("every_minutes", 5.0, Bounds::above(0));
    c.keep_checkpoints = static_cast<int>(f.integer("keep", 3, 1, 100000));
    f.finish("checkpoint");
  }
  {
    ConfigFields f(object_at(top, "eval"), "eval");
    c.eval_every_steps = static_cast<int>(f.integer("every_steps", 0, 0, kMaxInt));
    c.eval_games = static_cast<int>(f.integer("games", 20, 1, 1000000));
    c.eval_sims = static_cast<int>(f.integer("sims", 64, 1, kMaxSimulations));
    c.eval_batch = static_cast<int>(f.integer("batch", 8, 1, 1024));
    c.eval_previous = f.boolean("previous", true);
    c.eval_accuracy_positions = static_cast<int>(f.integer("accuracy_positions", 100, 0, 100000));
    c.eval_accuracy_seconds = f.number("accuracy_seconds", 60.0, Bounds::above(0));
    {
      ConfigFields g(object_at(f, "gate"), "eval.gate");
      c.gate = g.boolean("enabled", false);
      c.gate_elo0 = g.number("elo0", 0.0, Bounds::closed(-1000, 1000));
      c.gate_elo1 = g.number("elo1", 20.0, Bounds::closed(-1000, 1000));
      const Bounds rate{0.0, 0.5, true, true};
      c.gate_alpha = g.number("alpha", 0.05, rate);
      c.gate_beta = g.number("beta", 0.05, rate);
      c.gate_max_pairs = static_cast<int>(g.integer("max_pairs", 100, 1, 1000000));
      c.gate_openings = g.has("openings") ? g.required_string("openings") : "random:4";
      if (c.gate_elo1 <= c.gate_elo0) g.fail("elo1", "must be greater than elo0");
      if (c.gate && c.eval_every_steps == 0) g.fail("enabled", "needs eval.every_steps above 0 (the gate runs at evaluations)");
      g.finish("eval.gate");
    }
    if (const json* opp = f.raw("opponents")) {
      if (!opp->is_array()) f.fail("opponents", "must be a list of player specs");
      for (const auto& o : *opp) {
        if (!o.is_string()) f.fail("opponents", "must be a list of player specs (strings)");
        c.eval_opponents.push_back(o.get<std::string>());
      }
    }
    f.finish("eval");
  }
  {
    ConfigFields f(object_at(top, "log"), "log");
    c.log_every_steps = static_cast<int>(f.integer("every_steps", 10, 1, kMaxInt));
    c.summary_minutes = f.number("summary_minutes", 2.0, Bounds::above(0));
    f.finish("log");
  }
  top.finish("training config");
  c.resolved = resolved;
  return c;
}

void apply_override(json& config, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw util::UsageError("--set " + assignment.substr(0, 100) + ": expected key.path=value, e.g. learner.steps=2000");
  }
  const std::string path = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  json value;
  if (util::json_nesting_depth(text) > util::kMaxJsonDepth) {
    throw util::UsageError("--set " + path.substr(0, 100) + "=…: the value is nested more than " +
                           std::to_string(util::kMaxJsonDepth) + " levels deep");
  }
  if (!util::is_valid_utf8(assignment)) {
    throw util::UsageError("--set " + path.substr(0, 100) + "=…: not valid UTF-8 text");
  }
  try {
    value = json::parse(text);
  } catch (const std::exception&) {
    value = text;  // a bare word is a string: game=tictactoe
  }
  json* node = &config;
  std::size_t start = 0;
  for (;;) {
    const auto dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (key.empty()) throw util::UsageError("--set " + assignment + ": empty key in '" + path + "'");
    if (!node->is_object()) throw util::UsageError("--set " + assignment + ": '" + key + "' is inside a non-object");
    if (dot == std::string::npos) {
      (*node)[key] = value;
      return;
    }
    node = &(*node)[key];
    start = dot + 1;
  }
}

std::string find_recipe_file(const std::string& game_name) {
  const std::string file = game_name + ".json";
  const auto dir = util::find_data_dir({"PZ_CONFIG_DIR", "configs", "configs", file});
  return dir ? *dir + "/" + file : "";
}

namespace {

json read_recipe(const std::string& path) { return util::parse_json_object(read_text_file(path), path); }

}  // namespace

std::shared_ptr<const games::Game> recipe_game(const std::string& spec) {
  if (spec.find(':') != std::string::npos) return games::make_game(spec);
  const std::string path = find_recipe_file(spec);
  if (path.empty()) return games::make_game(spec);
  const json recipe = read_recipe(path);
  if (!recipe.contains("game") || !recipe["game"].is_string()) return games::make_game(spec);
  auto game = games::make_game(recipe["game"].get<std::string>());
  if (game->info().name != spec) throw util::UsageError(path + ": its \"game\" is " + game->info().name + ", not " + spec);
  return game;
}

json recipe_config(const games::Game& game) {
  json j = default_train_config();
  const std::string path = find_recipe_file(game.info().name);
  if (!path.empty()) j.merge_patch(read_recipe(path));
  j["game"] = game.spec().to_string();
  return j;
}

}  // namespace pz::nn
