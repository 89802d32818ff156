#include "arena/player_factory.h"

#include "arena/basic_players.h"
#include "arena/gtp_player.h"
#include "arena/search_players.h"
#include "util/error.h"

namespace pz::arena {

namespace {

// Search budgets: a search keeps a node per simulation, so the cap bounds its memory (about
// 10^7 nodes, a few GB at most); a day per move is more than any front-end waits.
constexpr int kMaxSimulations = 10'000'000;
constexpr double kMaxSeconds = 86400;

ModelEvaluatorFactory& model_evaluator_factory() {
  static ModelEvaluatorFactory factory;
  return factory;
}

std::vector<PlayerKind>& mutable_player_kinds() {
  static std::vector<PlayerKind> kinds = [] {
    std::vector<PlayerKind> k;
    k.push_back({"human", "a person at the terminal, browser or GTP controller", util::OptionSchema(),
                 [](const util::OptionSchema::Values&, const util::Spec&, const games::Game&, std::uint64_t) {
                   return std::unique_ptr<Player>(std::make_unique<HumanPlayer>());
                 }});
    util::OptionSchema random_options;
    random_options.add_int("seed", -1, "random seed (-1: derived from the match seed)", -1);
    k.push_back({"random", "uniformly random legal moves", std::move(random_options),
                 [](const util::OptionSchema::Values& v, const util::Spec& spec, const games::Game&, std::uint64_t seed) {
                   const int own = v.get_int("seed");
                   return std::unique_ptr<Player>(
                       std::make_unique<RandomPlayer>(spec.to_string(), own >= 0 ? static_cast<std::uint64_t>(own) : seed));
                 }});
    util::OptionSchema uct_options;
    uct_options.add_int("sims", 1000, "simulations per move (0: use seconds)", 0, kMaxSimulations)
        .add_double("seconds", 0.0, "time per move in seconds (0: use sims)", 0.0, kMaxSeconds)
        .add_double("c", 1.0, "UCB1 exploration constant (values in [0, 1])", 0.0)
        .add_int("rollouts", 1, "random playouts per new leaf", 1, 1000)
        .add_int("worlds", mcts::kDefaultWorlds, "hidden-information games: resampled states the budget is split over", 1, 4096)
        .add_int("seed", -1, "random seed (-1: derived from the match seed)", -1);
    k.push_back({"uct", "classic UCT with random rollouts (the reference opponent)", std::move(uct_options),
                 [](const util::OptionSchema::Values& v, const util::Spec& spec, const games::Game& game, std::uint64_t seed) {
                   mcts::UctConfig config;
                   config.simulations = v.get_int("sims");
                   config.max_seconds = v.get_double("seconds");
                   config.c = v.get_double("c");
                   config.rollouts = v.get_int("rollouts");
                   config.worlds = v.get_int("worlds");
                   if (config.simulations <= 0 && config.max_seconds <= 0) {
                     throw util::UsageError("player 'uct': set sims or seconds above 0");
                   }
                   const int own = v.get_int("seed");
                   return std::unique_ptr<Player>(std::make_unique<UctPlayer>(
                       spec.to_string(), game, config, own >= 0 ? static_cast<std::uint64_t>(own) : seed));
                 }});
    util::OptionSchema mcts_options;
    mcts_options.add_int("sims", 800, "simulations per move (0: use seconds)", 0, kMaxSimulations)
        .add_double("seconds", 0.0, "time per move in seconds (0: use sims)", 0.0, kMaxSeconds)
        .add_int("threads", 1, "search threads on the tree", 1, 256)
        .add_int("batch", 1, "leaves per evaluation and thread (virtual loss)", 1, 1024)
        .add_int("burst", mcts::SearchConfig{}.burst_simulations,
                 "threads > 1: simulations a thread runs through one path of busy nodes before choosing again (0: off)",
                 0, 4096)
        .add_double("c", 1.25, "c_puct_init", 0.0)
        .add_double("cbase", 19652, "c_puct_base (log growth of c_puct)", 1.0)
        .add_double("fpu", 0.25, "first-play-urgency reduction", 0.0)
        .add_int("rollouts", 1, "random playouts per leaf for its value (0: value 0, priors only)", 0, 1000)
        .add_string("select", "visits",
                    "final move by most visits or lower confidence bound (lcb is for long searches: at 200 "
                    "simulations it follows noisy Q values and lost 25-40 more of 100 Connect Four games)",
                    {"visits", "lcb"})
        .add_double("lcb_z", mcts::MoveSelection{}.lcb_z, "select=lcb: standard deviations below the mean", 0.0)
        .add_double("lcb_min", mcts::MoveSelection{}.lcb_min_visit_fraction,
                    "select=lcb: candidates need this fraction of the most visits", 0.0)
        .add_double("temp", 0.0, "move temperature (0: best move)", 0.0)
        .add_int("temp_moves", 0, "moves played at `temp` before turning greedy (0: all)", 0)
        .add_bool("noise", false, "Dirichlet noise at the root")
        .add_bool("solver", true, "MCTS-solver: play proven wins, avoid proven losses")
        .add_bool("wincheck", true, "with the solver: expansion tries every move for an immediate win")
        .add_bool("reuse", true, "keep the subtree between moves")
        .add_int("worlds", mcts::kDefaultWorlds, "hidden-information games: resampled states the budget is split over", 1, 4096)
        .add_string("model", "", "network checkpoint for priors and values (empty: uniform priors, rollout values)")
        .add_int("seed", -1, "random seed (-1: derived from the match seed)", -1);
    add_model_evaluator_options(mcts_options, "with model=: ");
    k.push_back({"mcts", "PUCT search over a network (model=…) or uniform priors and random-rollout values",
                 std::move(mcts_options),
                 [](const util::OptionSchema::Values& v, const util::Spec& spec, const games::Game& game, std::uint64_t seed) {
                   mcts::SearchConfig config;
                   config.simulations = v.get_int("sims");
                   config.max_seconds = v.get_double("seconds");
                   if (config.simulations <= 0 && config.max_seconds <= 0) {
                     throw util::UsageError("player 'mcts': set sims or seconds above 0");
                   }
                   config.threads = v.get_int("threads");
                   config.leaves_per_batch = v.get_int("batch");
                   config.burst_simulations = v.get_int("burst");
                   config.c_puct_init = v.get_double("c");
                   config.c_puct_base = v.get_double("cbase");
                   config.fpu_reduction = v.get_double("fpu");
                   config.root_noise = v.get_bool("noise");
                   config.solver = v.get_bool("solver");
                   config.check_immediate_wins = v.get_bool("wincheck");
                   config.reuse_tree = v.get_bool("reuse");
                   mcts::MoveSelection selection;
                   selection.method = v.get_string("select") == "lcb" ? mcts::MoveSelection::Method::kLcb
                                                                      : mcts::MoveSelection::Method::kVisits;
                   selection.lcb_z = v.get_double("lcb_z");
                   selection.lcb_min_visit_fraction = v.get_double("lcb_min");
                   const double temp = v.get_double("temp");
                   const int temp_moves = v.get_int("temp_moves");
                   selection.temperature = {temp, temp_moves > 0 ? 0.0 : temp, temp_moves, 0.0};
                   const int own = v.get_int("seed");
                   const std::uint64_t s = own >= 0 ? static_cast<std::uint64_t>(own) : seed;
                   const int rollouts = v.get_int("rollouts");
                   const std::string& model = v.get_string("model");
                   std::unique_ptr<mcts::Evaluator> evaluator;
                   if (!model.empty()) {
                     if (!model_evaluator_factory()) {
                       throw util::UsageError("player 'mcts': model=" + model +
                                              " needs networks, which this program does not include");
                     }
                     evaluator = model_evaluator_factory()(model, game, model_evaluator_options(v));
                   } else if (rollouts > 0) {
                     evaluator = std::make_unique<mcts::RolloutEvaluator>(rollouts, s ^ 0x5EED);
                   } else {
                     evaluator = std::make_unique<mcts::UniformEvaluator>();
                   }
                   return std::unique_ptr<Player>(
                       std::make_unique<MctsPlayer>(spec.to_string(), game, config, selection, std::move(evaluator), s,
                                                    v.get_int("worlds")));
                 }});
    util::OptionSchema gtp_options;
    gtp_options
        .add_string("cmd", "", "the engine's command line, run by /bin/sh (no commas), e.g. /usr/games/gnugo --mode gtp")
        .add_double("timeout", 30.0, "seconds the engine may take to answer one command (genmove included)", 0.001)
        .add_string("log", "", "file the engine's standard error is appended to (empty: discarded)");
    k.push_back({"gtp", "an external engine speaking the Go Text Protocol (go, hex and 8x8 othello)",
                 std::move(gtp_options),
                 [](const util::OptionSchema::Values& v, const util::Spec& spec, const games::Game& game,
                    std::uint64_t) {
                   return std::unique_ptr<Player>(std::make_unique<GtpPlayer>(
                       spec.to_string(), game,
                       GtpPlayerConfig{v.get_string("cmd"), v.get_double("timeout"), v.get_string("log")}));
                 }});
    return k;
  }();
  return kinds;
}

}  // namespace

const std::vector<PlayerKind>& player_kinds() { return mutable_player_kinds(); }

void register_player_kind(PlayerKind kind) {
  auto& kinds = mutable_player_kinds();
  for (auto& existing : kinds) {
    if (existing.name == kind.name) {
      existing = std::move(kind);
      return;
    }
  }
  kinds.push_back(std::move(kind));
}

void add_model_evaluator_options(util::OptionSchema& schema, const std::string& prefix) {
  schema.add_int("sym", 1, prefix + "boards each position is averaged over (0: all the game's symmetries)", 0, 8)
      .add_string("backend", "auto", prefix + "the network backend: auto (poly where it can, else torch), torch or poly",
                  {"auto", "torch", "poly"})
      .add_int("nnthreads", 1, prefix + "threads of one network evaluation (search threads are the usual parallelism)", 1, 64)
      .add_string("winograd", "auto",
                  prefix + "poly backend: 3x3 convolutions as Winograd F(m x m, 3x3) where its cost model says so (auto), "
                           "never (off), or always with m = 2, 3 or 4",
                  {"auto", "off", "2", "3", "4"});
}

ModelEvaluatorOptions model_evaluator_options(const util::OptionSchema::Values& values) {
  ModelEvaluatorOptions o;
  o.symmetries = values.get_int("sym");
  o.backend = values.get_string("backend");
  o.threads = values.get_int("nnthreads");
  o.winograd = values.get_string("winograd");
  return o;
}

void set_model_evaluator_factory(ModelEvaluatorFactory factory) { model_evaluator_factory() = std::move(factory); }

std::unique_ptr<Player> make_player(std::string_view text, const games::Game& game, std::uint64_t seed) {
  util::Spec spec = util::parse_spec(text);
  for (const auto& kind : player_kinds()) {
    if (kind.name != spec.name) continue;
    auto values = kind.options.resolve(spec.options, "player '" + kind.name + "'");
    return kind.make(values, spec, game, seed);
  }
  std::vector<std::string> names;
  for (const auto& kind : player_kinds()) names.push_back(kind.name);
  throw util::UsageError("unknown player '" + spec.name + "'; known players: " + util::join(names, ", ") +
                         " (written kind[:key=value,...], e.g. random:seed=3)");
}

std::string describe_player_kinds() {
  std::string out;
  for (const auto& kind : player_kinds()) {
    out += "  " + kind.name + ": " + kind.description + "\n";
    out += kind.options.describe("      ");
  }
  return out;
}

}  // namespace pz::arena
