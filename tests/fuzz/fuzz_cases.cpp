#include "tests/fuzz/fuzz_cases.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tests/fuzz/case_builders.h"
#include "util/rng.h"

namespace pz::fuzz {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::size_t kMaxFileBytes = 4 << 20;
constexpr std::size_t kMaxArgBytes = 100 << 10;  // below Linux's 128 KiB limit on one argument

std::vector<fs::path> sorted_files(const fs::path& dir, const std::string& extension) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == extension) files.push_back(entry.path());
  std::sort(files.begin(), files.end());  // directory order is not deterministic
  if (files.empty()) throw std::runtime_error("cli_fuzz: no " + extension + " files in " + dir.string());
  return files;
}

const std::vector<std::string>& builtin_c_sources() {
  static const std::vector<std::string> sources = {
      "#define N 200\nstatic double A[N][N], B[N][N], C[N][N];\nvoid mm(void) {\n  int i, j, k;\n#pragma scop\n"
      "  for (i = 0; i < N; i++) for (k = 0; k < N; k++) for (j = 0; j < N; j++) C[i][j] += A[i][k] * B[k][j];\n"
      "#pragma endscop\n}\n",
      "void f(double A[10]) {\n  int i;\n#pragma scop\n  for (i = 0; i < 10; i++)\n    A[i] = 0;\n#pragma endscop\n}\n",
      "void g(int n, double A[n][n], double x[n]) {\n  int i, j;\n#pragma scop\n  for (i = 1; i < n - 1; i++)\n"
      "    for (j = 1; j < n - 1; j++)\n      if (i + j < n)\n        A[i][j] = (A[i - 1][j] + A[i + 1][j] + A[i][j - 1]) / 3.0;\n"
      "#pragma endscop\n#pragma scop\n  for (i = 0; i < n; i++)\n    x[i] = A[i][i] * 2.0;\n#pragma endscop\n}\n",
      "#pragma scop\n#pragma endscop\n",
  };
  return sources;
}

const std::vector<std::string>& builtin_lr_configs() {
  static const std::vector<std::string> configs = {
      R"({"type":"poly","total_iters":4,"power":1,"warmup":{"type":"linear","steps":2,"start_factor":0.5}})",
      R"({"type": "cosine", "T_max": 50, "eta_min": 0.001})",
      R"({"type":"multistep","milestones":[3,5],"gamma":0.5})",
      R"({"type":"step","step_size":3,"gamma":0.1,"chainable":true})",
      R"({"type":"exponential","gamma":0.9,"warmup":{"type":"exponential","steps":3,"start_factor":0.01}})",
      R"({"type":"cosine_warm_restarts","T_0":3,"T_mult":2,"eta_min":0.01})",
      R"({"type":"one_cycle","max_lr":1,"total_steps":100,"anneal_strategy":"linear","three_phase":true})",
      R"({"type":"inverse_poly","decay_steps":10,"power":0.5})",
      R"({"type":"linear","start_factor":0.25,"end_factor":1,"total_iters":5})",
      R"({"type":"constant","factor":0.5,"total_iters":3,"warmup":{"type":"constant","steps":2,"factor":0.1,"prefix":false}})",
      R"({"type":"reduce_on_plateau","patience":0,"factor":0.5,"mode":"max","threshold_mode":"abs"})",
      R"({"type":"sequential","milestones":[5],"schedulers":[{"type":"constant","factor":0.1,"total_iters":5},{"type":"exponential","gamma":0.9}]})",
      R"({"type":"chained","schedulers":[{"type":"step","step_size":2},{"type":"exponential","gamma":0.99}]})",
      R"({"type":"PolynomialLR","total_steps":10,"power":2,"eta_min":1e-5})",
  };
  return configs;
}

void collect_keys(const json& value, const std::string& path, std::vector<std::string>& keys) {
  if (!value.is_object() || value.empty()) {
    if (!path.empty()) keys.push_back(path);
    return;
  }
  for (const auto& [key, child] : value.items()) collect_keys(child, path.empty() ? key : path + "." + key, keys);
}

// The argument naming a file: usually the case's file, sometimes a path that is no file.
std::string file_argument(Mutator& m, const std::string& name) {
  if (!m.chance(0.06)) return "@DIR@/" + name;
  return m.one_of(std::vector<std::string>{"@DIR@", "@DIR@/", "@DIR@/missing-" + name, "/dev/null", "",
                                           "@DIR@/" + std::string(300, 'n'), "@DIR@/" + name + "/x"});
}

// Inline JSON as the argument itself where it fits one argument, else the file.
std::string config_argument(Mutator& m, FuzzCase& c, const std::string& name, const std::string& text) {
  c.files.push_back({name, text});
  const bool fits = text.size() <= kMaxArgBytes && text.find('\0') == std::string::npos;
  return fits && m.chance(0.4) ? text : file_argument(m, name);
}

// Mutations inside the first scop region, where polyc parses (the rest is copied through).
std::string mutate_region(Mutator& m, const std::string& source, const std::vector<std::string>& others) {
  const auto begin = source.find("#pragma scop");
  const auto end = begin == std::string::npos ? begin : source.find("#pragma endscop", begin);
  if (end == std::string::npos) return m.mutate_bytes(source, others, /*c_like=*/true);
  const auto body = source.find('\n', begin) + 1;
  return source.substr(0, body) + m.mutate_bytes(source.substr(body, end - body), others, true) + source.substr(end);
}

std::string polyc_input(Mutator& m, const Corpus& corpus) {
  if (m.chance(0.3)) {
    std::string source = m.pathological_c();
    return m.chance(0.2) ? mutate_region(m, source, corpus.c_sources) : source;
  }
  const std::string& seed = m.one_of(corpus.c_sources);
  if (m.chance(0.05)) return seed;
  return m.chance(0.6) ? mutate_region(m, seed, corpus.c_sources) : m.mutate_bytes(seed, corpus.c_sources, true);
}

FuzzCase polyc_case(Mutator& m, const Corpus& corpus) {
  FuzzCase c{"polyc", {"polyc"}, {}};
  c.files.push_back({"input.c", polyc_input(m, corpus)});
  c.args.push_back(file_argument(m, "input.c"));
  c.args.push_back("-o");
  c.args.push_back(m.chance(0.9) ? "@DIR@/out.c" : m.one_of(std::vector<std::string>{"-", "@DIR@/input.c", "@DIR@"}));
  if (m.chance(0.25)) c.args.push_back("--json");
  if (m.chance(0.15)) c.args.push_back("--report");
  if (m.chance(0.25)) {
    c.args.push_back("--tile");
    c.args.push_back(m.one_of(std::vector<std::string>{"auto", "auto1", "off", "32,32", "8,8,8/2,2,2", "1,1,1", "0", "-1",
                                                       "1000000", "1000001", "99999999999999999999", "32,,32", "/", "32/",
                                                       "4/4/4", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", ""}));
  }
  if (m.chance(0.15)) c.args.push_back(m.chance(0.9) ? "--fusion=max" : "--fusion=maybe");
  if (m.chance(0.2)) c.args.push_back("--parallel");
  if (m.chance(0.2)) c.args.push_back("--vectorize");
  if (m.chance(0.15)) c.args.push_back("--unroll-jam=" + m.option_value({"0", "1", "8", "16"}));
  if (m.chance(0.15)) c.args.push_back("--register-block");
  if (m.chance(0.15)) c.args.push_back("--no-isl");
  if (m.chance(0.1)) c.args.push_back("--min-parallel-work=" + m.option_value({"0", "1", "1000000"}));
  return c;
}

// The game a train config is for: its file's game, or another small one.
std::string config_game(Mutator& m, const Corpus& corpus, std::size_t config) {
  return m.chance(0.7) ? corpus.train_config_games[config]
                       : m.one_of(std::vector<std::string>{"tictactoe", "connect4", "hex:size=5", "2048"});
}

// Mildly (to reach the program's logic), structurally, or byte by byte.
std::string mutated_json(Mutator& m, const std::string& seed, const std::vector<std::string>& others) {
  const int how = m.pick(0, 19);
  return how < 7 ? m.mutate_json_mildly(seed) : how < 17 ? m.mutate_json(seed, others) : m.mutate_bytes(seed, others, false);
}

std::string mutated_train_config(Mutator& m, const Corpus& corpus, std::size_t config) {
  return mutated_json(m, corpus.train_configs[config], corpus.train_configs);
}

FuzzCase report_net_case(Mutator& m, const Corpus& corpus) {
  // ~7 s of isl for connect4's network, alone; the training step's kernels (tens of seconds)
  // are left out: the target is reading the network.
  FuzzCase c{"report-net", {"polyc", "--train-batch=0", "--report-net"}, {}, 3.0};
  const auto config = static_cast<std::size_t>(m.pick(0, static_cast<int>(corpus.train_configs.size()) - 1));
  const std::string name = corpus.train_config_games[config] + ".json";  // the game comes from the name
  c.files.push_back({name, mutated_train_config(m, corpus, config)});
  c.args.push_back(file_argument(m, name));
  if (m.chance(0.5)) c.args.push_back("--json");
  return c;
}

FuzzCase lr_case(Mutator& m, const Corpus& corpus) {
  FuzzCase c{"lr", {"lr"}, {}};
  const std::string& seed = m.one_of(corpus.lr_configs);
  const std::string config = mutated_json(m, seed, corpus.lr_configs);
  c.args.push_back("--config=" + config_argument(m, c, "sched.json", config));
  const std::vector<std::string> steps = {"1", "2", "3", "10", "100", "1000"};
  c.args.push_back("--steps=" + (m.chance(0.6) ? m.one_of(steps) : m.option_value(steps)));
  if (m.chance(0.3))
    c.args.push_back("--lr=" + m.one_of(std::vector<std::string>{"0.1", "0.1,0.01", "1,2,3", "nan", "-1", "inf",
                                                                 "1e308", "", "0", "abc", ",", "1e-320", "1 2"}));
  if (m.chance(0.4)) c.args.push_back("--json");
  if (m.chance(0.15)) {
    c.args.push_back("--plot=@DIR@/lr.svg");
    if (m.chance(0.5)) c.args.push_back("--log-y");
  }
  if (m.chance(0.1)) {
    std::string metrics = "1 0.9 0.95 0.8\n";
    for (int i = m.pick(0, 4); i > 0; --i) metrics += m.one_of(extreme_numbers()) + (m.chance(0.5) ? "," : "\n");
    c.files.push_back({"metrics.txt", metrics});
    c.args.push_back("--metrics=" + file_argument(m, "metrics.txt"));
  }
  return c;
}

FuzzCase train_config_case(Mutator& m, const Corpus& corpus) {
  FuzzCase c{"train-config", {"train", "--print-config"}, {}};
  const auto config = static_cast<std::size_t>(m.pick(0, static_cast<int>(corpus.train_configs.size()) - 1));
  c.args.push_back("--game=" + config_game(m, corpus, config));
  c.args.push_back("--config=" + config_argument(m, c, "config.json", mutated_train_config(m, corpus, config)));
  if (m.chance(0.15)) c.args.push_back("--steps=" + m.option_value({"1", "100"}));
  if (m.chance(0.1)) c.args.push_back("--minutes=" + m.option_value({"0.5", "10"}));
  if (m.chance(0.1)) c.args.push_back("--backend=" + m.option_value({"auto", "torch", "poly"}));
  return c;
}

std::string set_key(Mutator& m, const Corpus& corpus) {
  if (m.chance(0.9)) return m.one_of(corpus.set_keys);
  return m.one_of(std::vector<std::string>{"", ".", "learner..steps", "learner", "learner.steps.x", "game",
                                           "network.type", "selfplay", "x", std::string(3000, 'k'), "a.b.c.d.e.f"});
}

FuzzCase train_set_case(Mutator& m, const Corpus& corpus) {
  FuzzCase c{"train-set", {"train", "--print-config"}, {}};
  c.args.push_back("--game=" + m.one_of(std::vector<std::string>{"tictactoe", "connect4", "2048", "hex:size=5"}));
  const std::vector<std::string> plausible = {"1", "2", "0", "0.5", "100", "true", "false", "\"sgd\"", "\"adam\"", "{}"};
  for (int n = m.pick(1, 3); n > 0; --n) {
    const std::string key = set_key(m, corpus);
    const int how = m.pick(0, 19);
    if (how == 0) c.args.push_back("--set=" + key);  // no '='
    else c.args.push_back("--set=" + key + "=" + (how < 8 ? m.one_of(plausible) : how < 15 ? m.json_value_text() : m.option_value(plausible)));
  }
  return c;
}

struct PlayerKind {
  std::string name;
  std::vector<std::pair<std::string, std::vector<std::string>>> options;  // key, small valid values
};

const std::vector<PlayerKind>& player_kinds() {
  static const std::vector<std::string> kBool = {"true", "false"};
  static const std::vector<std::string> kModel = {"", "@DIR@/missing.pt", "@DIR@", "/dev/null"};
  static const std::vector<PlayerKind> kinds = {
      {"random", {{"seed", {"-1", "0", "7"}}}},
      {"uct",
       {{"sims", {"1", "2", "10", "100"}}, {"seconds", {"0", "0.001", "0.01"}}, {"c", {"0", "1", "100"}},
        {"rollouts", {"1", "5"}}, {"worlds", {"1", "2"}}, {"seed", {"-1", "3"}}}},
      {"mcts",
       {{"sims", {"1", "2", "10", "100"}}, {"seconds", {"0", "0.001", "0.01"}}, {"threads", {"1", "2", "4"}},
        {"batch", {"1", "2", "8"}}, {"burst", {"0", "1"}}, {"c", {"0", "1"}}, {"cbase", {"1", "1e9"}},
        {"fpu", {"0", "1"}}, {"rollouts", {"0", "1", "3"}}, {"select", {"visits", "lcb"}}, {"lcb_z", {"0", "1"}},
        {"lcb_min", {"0", "1"}}, {"temp", {"0", "1", "1e308"}}, {"temp_moves", {"0", "1"}}, {"noise", kBool},
        {"solver", kBool}, {"wincheck", kBool}, {"reuse", kBool}, {"worlds", {"1", "2"}}, {"model", kModel},
        {"sym", {"0", "1", "8"}}, {"backend", {"auto", "torch", "poly"}}, {"nnthreads", {"1", "2"}},
        {"seed", {"-1", "5"}}}},
      {"policy", {{"model", kModel}, {"temp", {"0", "1"}}, {"sym", {"0", "1"}}, {"backend", {"auto", "poly"}}}},
      {"solver", {{"seconds", {"0.001", "1", "1e308"}}}},
  };
  return kinds;
}

// A value from `valid` (a mild case), or option_value's mix of extreme and valid ones.
std::string value_for(Mutator& m, bool mild, const std::vector<std::string>& valid) {
  return mild ? m.one_of(valid) : m.option_value(valid);
}

}  // namespace

std::string player_spec(Mutator& m) {
  const PlayerKind& kind = m.one_of(player_kinds());
  const bool mild = m.chance(0.4);
  std::string spec = kind.name;
  std::vector<std::string> used;  // a key given twice is its own (usage) error: only when not mild
  const int n = m.pick(0, 3);
  for (int i = 0; i < n; ++i) {
    const auto& [key, valid] = m.one_of(kind.options);
    if (mild && std::find(used.begin(), used.end(), key) != used.end()) continue;
    used.push_back(key);
    spec += (used.size() == 1 ? ":" : ",") + (mild || m.chance(0.95) ? key : key + "x") + "=" + value_for(m, mild, valid);
  }
  if (!mild && m.chance(0.1)) {
    spec = m.one_of(std::vector<std::string>{spec + ",", spec + ":", spec + ",sims", ":sims=1", "mcts:sims=1,sims=2",
                                             "mcts:=1", "", "human", "gtp", "MCTS", spec + "," + spec});
  }
  return spec;
}

namespace {

FuzzCase player_case(Mutator& m) {
  const bool match = m.chance(0.6);
  FuzzCase c{"player", {match ? "match" : "play"}, {}};
  c.args.push_back("--game=" + m.one_of(std::vector<std::string>{"tictactoe", "tictactoe", "connect4:width=4,height=4"}));
  const std::string spec = player_spec(m), other = m.chance(0.8) ? "random" : player_spec(m);
  const bool first = m.chance(0.5);
  c.args.push_back("--p1=" + (first ? spec : other));
  c.args.push_back("--p2=" + (first ? other : spec));
  if (match) {
    c.args.push_back("--games=" + (m.chance(0.9) ? std::string("1")
                                                 : m.one_of(std::vector<std::string>{"0", "-1", "2", "99999999999999999999",
                                                                                     "1e3", "abc", "", "1.5"})));
    if (m.chance(0.1))
      c.args.push_back("--threads=" + m.one_of(std::vector<std::string>{"0", "-1", "2", "64", "1000000",
                                                                         "99999999999999999999", "abc"}));
    if (m.chance(0.1)) c.args.push_back("--max-moves=" + m.option_value({"0", "1", "3"}));
    c.args.push_back(m.chance(0.3) ? "--json" : "-q");
  }
  if (m.chance(0.15)) c.args.push_back("--seed=" + m.option_value({"0", "1", "2"}));
  return c;
}

struct GameOptions {
  std::string name;
  std::vector<std::pair<std::string, std::vector<std::string>>> options;
  bool solo = false;
};

const std::vector<GameOptions>& game_options() {
  static const std::vector<GameOptions> games = {
      {"connect4", {{"width", {"4", "9"}}, {"height", {"4", "9"}}}},
      {"hex", {{"size", {"2", "5", "19"}}, {"swap", {"true", "false"}}}},
      {"othello", {{"size", {"6", "16"}}}},
      {"go", {{"size", {"5", "9"}}, {"komi", {"-400", "0.5", "400"}}, {"max_moves", {"0", "1", "10"}}}},
      {"breakthrough", {{"rows", {"5", "8"}}, {"columns", {"4", "8"}}}},
      {"havannah", {{"base", {"4", "10"}}, {"swap", {"true", "false"}}}},
      {"gomoku", {{"size", {"7", "19"}}, {"variant", {"gomoku", "connect6"}}}},
      {"einstein", {{"setup", {"fixed", "random"}}}},
      {"tron", {{"rows", {"5", "20"}}, {"columns", {"5", "20"}}}},
      {"mastermind", {{"length", {"2", "6"}}, {"colours", {"2", "10"}}, {"max_guesses", {"1", "20"}}, {"hard", {"true"}}}, true},
      {"minesweeper", {{"rows", {"2", "24"}}, {"columns", {"2", "30"}}, {"mines", {"1", "10", "711"}}}, true},
      {"snake", {{"rows", {"4", "20"}}, {"columns", {"4", "20"}}, {"hunger", {"0", "1", "100000"}}}, true},
      {"2048", {{"size", {"3", "6"}}, {"max_moves", {"0", "10"}}}, true},
  };
  return games;
}

FuzzCase game_case(Mutator& m) {
  const GameOptions& game = m.one_of(game_options());
  const bool mild = m.chance(0.4);
  std::string spec = game.name;
  std::vector<std::string> used;
  const int n = m.pick(1, 3);
  for (int i = 0; i < n; ++i) {
    const auto& [key, valid] = m.one_of(game.options);
    if (mild && std::find(used.begin(), used.end(), key) != used.end()) continue;
    used.push_back(key);
    spec += (used.size() == 1 ? ":" : ",") + key + "=" + value_for(m, mild, valid);
  }
  FuzzCase c{"game", {"match", "--game=" + spec, "--p1=random"}, {}};
  if (!game.solo) c.args.push_back("--p2=random");
  if (m.chance(0.2)) c.args.push_back("--options=" + m.one_of(game.options).first + "=" + m.option_value({}));
  c.args.push_back("--games=1");
  c.args.push_back("-q");
  return c;
}

}  // namespace

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cli_fuzz: cannot read seed input " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::vector<std::string>& target_names() {
  static const std::vector<std::string> names = {"polyc",  "report-net", "lr",   "train-config",  "train-set",
                                                 "player", "game",       "analyze", "gtp", "http",
                                                 "damaged-model", "damaged-run", "damaged-record"};
  return names;
}

Corpus load_corpus(const std::string& source_dir) {
  Corpus corpus;
  const fs::path root(source_dir);
  for (const auto& path : sorted_files(root / "tests/polyhedral/kernels", ".c")) corpus.c_sources.push_back(read_file(path.string()));
  for (const auto& source : builtin_c_sources()) corpus.c_sources.push_back(source);
  corpus.lr_configs = builtin_lr_configs();
  for (const auto& path : sorted_files(root / "configs", ".json")) {
    corpus.train_configs.push_back(read_file(path.string()));
    // configs/<game>.json, or configs/<game>-<variant>.json (connect4-2h.json)
    const std::string stem = path.stem().string();
    corpus.train_config_games.push_back(stem.substr(0, stem.find('-')));
    const json config = json::parse(corpus.train_configs.back());
    collect_keys(config, "", corpus.set_keys);
    if (config.contains("learner") && config["learner"].contains("scheduler"))
      corpus.lr_configs.push_back(config["learner"]["scheduler"].dump());
  }
  for (const char* extra : {"game", "seed", "learner.optimizer.type", "selfplay.backend", "network.type"})
    corpus.set_keys.push_back(extra);
  std::sort(corpus.set_keys.begin(), corpus.set_keys.end());
  corpus.set_keys.erase(std::unique(corpus.set_keys.begin(), corpus.set_keys.end()), corpus.set_keys.end());
  return corpus;
}

FuzzCase make_case(const Corpus& corpus, std::uint64_t seed, int index) {
  util::Rng rng(seed ^ (0xD1B54A32D192ED03ULL * static_cast<std::uint64_t>(index + 1)));
  Mutator m(rng, kMaxFileBytes);
  const int roll = m.pick(0, 99);
  FuzzCase c = roll < 28   ? polyc_case(m, corpus)
               : roll < 31 ? report_net_case(m, corpus)
               : roll < 44 ? lr_case(m, corpus)
               : roll < 54 ? train_config_case(m, corpus)
               : roll < 61 ? train_set_case(m, corpus)
               : roll < 70 ? player_case(m)
               : roll < 75 ? game_case(m)
               : roll < 81 ? analyze_case(m)
               : roll < 87 ? gtp_case(m)
               : roll < 94 ? http_case(m)
               : roll < 96 ? damaged_model_case(m, corpus)
               : roll < 98 ? damaged_run_case(m, corpus)
                           : damaged_record_case(m, corpus);
  for (auto& arg : c.args) std::erase(arg, '\0');  // exec would cut the argument there
  return c;
}

}  // namespace pz::fuzz
