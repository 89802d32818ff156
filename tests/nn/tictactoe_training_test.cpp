// The trainer end to end: about a minute of self-play training on tic-tac-toe, after which
// the network's player must never lose to perfect play, in 20 games from both sides.
//
// The run is bounded by learner steps, not time, and trains in synchronous rounds with one
// actor thread (trainer.h): every game and every minibatch follow from the seed, so the
// network at the end is the same on a quiet machine and on a loaded one, only later.
//
// The perfect player is a negamax over the whole game (memoised by position hash) that
// picks uniformly among the optimal moves, so its 20 games are not one game repeated.
// The network plays `mcts:model=…,sims=64` — a small search on top of the network; an
// untrained network with the same search is measured too and printed (not asserted), to
// show the training is what makes the difference.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <unordered_map>

#include "arena/player_factory.h"
#include "games/registry.h"
#include "nn/files.h"
#include "nn/model_players.h"
#include "nn/trainer.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::nn {
namespace {

class Minimax {
 public:
  // Value for the player to move: +1 win, 0 draw, -1 loss.
  int value(const games::State& state) {
    // At the end, the value for the side that would move next (tic-tac-toe alternates).
    if (state.is_terminal()) return static_cast<int>(state.returns()[static_cast<std::size_t>(state.move_number() % 2)]);
    auto it = memo_.find(state.hash());
    if (it != memo_.end()) return it->second;
    int best = -2;
    for (games::Action a : state.legal_actions()) {
      auto child = state.clone();
      child->apply_action(a);
      best = std::max(best, -value(*child));
    }
    memo_[state.hash()] = best;
    return best;
  }
  games::Action choose(const games::State& state, util::Rng& rng) {
    const int target = value(state);
    std::vector<games::Action> best;
    for (games::Action a : state.legal_actions()) {
      auto child = state.clone();
      child->apply_action(a);
      if (-value(*child) == target) best.push_back(a);
    }
    return best[rng.below(static_cast<std::uint32_t>(best.size()))];
  }

 private:
  std::unordered_map<std::uint64_t, int> memo_;
};

struct Score {
  int wins = 0, draws = 0, losses = 0;
};

Score play_against_minimax(const games::Game& game, const std::string& spec, int games_count) {
  Minimax minimax;
  util::Rng rng(2024);
  Score score;
  for (int g = 0; g < games_count; ++g) {
    const games::Player model_seat = g % 2;
    auto player = arena::make_player(spec, game, 100 + static_cast<std::uint64_t>(g));
    auto state = game.new_initial_state();
    player->reset(*state);
    while (!state->is_terminal()) {
      const games::Action a = state->current_player() == model_seat ? player->choose_action(*state, model_seat)
                                                                    : minimax.choose(*state, rng);
      player->observe_action(*state, a);
      state->apply_action(a);
    }
    const double r = state->returns()[static_cast<std::size_t>(model_seat)];
    (r > 0 ? score.wins : r < 0 ? score.losses : score.draws)++;
  }
  return score;
}

TEST(TicTacToeTraining, AMinuteOfTrainingNeverLosesToPerfectPlay) {
  register_model_players();
  const auto game = games::make_game("tictactoe");
  auto j = default_train_config();
  j.merge_patch(nlohmann::json::parse(read_text_file(PZ_SOURCE_DIR "/configs/tictactoe.json")));
  j["game"] = "tictactoe";
  j["eval"]["every_steps"] = 0;
  j["selfplay"]["threads"] = 1;
  j["selfplay"]["synchronous"] = true;
  const TrainConfig config = parse_train_config(j);
  const auto dir = std::filesystem::temp_directory_path() / ("pz_ttt_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  TrainOptions options;
  options.run_dir = dir.string();
  options.quiet = true;
  const TrainResult result = train(config, options);
  std::printf("trained %lld steps on %lld games (%lld samples) in %.1f s\n", static_cast<long long>(result.step),
              static_cast<long long>(result.games), static_cast<long long>(result.samples), result.seconds);
  ASSERT_EQ(result.step, config.steps);
  const std::string model = dir.string() + "/models/latest.pt";
  ASSERT_TRUE(std::filesystem::exists(model));

  const Score trained = play_against_minimax(*game, "mcts:model=" + model + ",sims=64", 20);
  const Score raw = play_against_minimax(*game, "policy:model=" + model, 20);
  std::printf("vs perfect play, 20 games from both sides: mcts(sims=64)+net %d-%d-%d, raw policy %d-%d-%d (W-D-L)\n",
              trained.wins, trained.draws, trained.losses, raw.wins, raw.draws, raw.losses);
  // The control: the same search over the untrained network of step 0 (same seed).
  {
    TrainOptions untrained_options = options;
    untrained_options.run_dir = dir.string() + "-untrained";
    std::filesystem::remove_all(untrained_options.run_dir);
    auto j0 = j;
    j0["learner"]["steps"] = 1;
    j0["replay"]["min_samples"] = 1;
    const TrainResult r0 = train(parse_train_config(j0), untrained_options);
    const Score control = play_against_minimax(*game, "mcts:model=" + untrained_options.run_dir + "/models/latest.pt,sims=64", 20);
    std::printf("control: mcts(sims=64) over a network after %lld step(s): %d-%d-%d\n", static_cast<long long>(r0.step),
                control.wins, control.draws, control.losses);
    std::filesystem::remove_all(untrained_options.run_dir);
  }
  EXPECT_EQ(trained.losses, 0);
  std::filesystem::remove_all(dir);
}

// 40 learner steps of tic-tac-toe with one actor in synchronous rounds (a reproducible run).
nlohmann::json short_synchronous_run() {
  register_model_players();
  auto j = default_train_config();
  j.merge_patch(nlohmann::json::parse(read_text_file(PZ_SOURCE_DIR "/configs/tictactoe.json")));
  j["game"] = "tictactoe";
  j["selfplay"]["threads"] = 1;
  j["selfplay"]["synchronous"] = true;
  j["learner"]["steps"] = 40;
  return j;
}

// The periodic evaluation scores the raw policy and the search against the solver on a
// set labelled once and kept in the run directory, and plots the curve.
TEST(TicTacToeTraining, EvaluationReportsAccuracyAgainstTheSolver) {
  auto j = short_synchronous_run();
  j["eval"] = {{"every_steps", 20}, {"games", 2}, {"sims", 16}, {"batch", 4}, {"opponents", nlohmann::json::array()},
               {"previous", false}, {"accuracy_positions", 25}, {"accuracy_seconds", 30.0}};
  const auto dir = std::filesystem::temp_directory_path() / ("pz_ttt_accuracy_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  TrainOptions options;
  options.run_dir = dir.string();
  options.quiet = true;
  train(parse_train_config(j), options);
  EXPECT_TRUE(std::filesystem::exists(dir / "accuracy_positions.jsonl"));
  EXPECT_TRUE(std::filesystem::exists(dir / "plots" / "accuracy.svg"));
  std::ifstream metrics(dir / "metrics.jsonl");
  std::map<std::string, int> lines;
  for (std::string line; std::getline(metrics, line);) {
    const auto m = nlohmann::json::parse(line);
    if (m.value("kind", "") != "accuracy") continue;
    ++lines[m.at("player").get<std::string>()];
    EXPECT_EQ(m.at("positions").get<int>(), 25);
    EXPECT_GE(m.at("share").get<double>(), 0.0);
    EXPECT_LE(m.at("share").get<double>(), 1.0);
  }
  EXPECT_EQ(lines["policy"], 2);  // steps 20 and 40
  EXPECT_EQ(lines["search"], 2);
  std::filesystem::remove_all(dir);
}

TEST(TicTacToeTraining, TheGateDecidesWhichModelTheActorsPlay) {
  auto j = short_synchronous_run();
  j["eval"] = {{"every_steps", 20}, {"games", 2}, {"sims", 8}, {"batch", 4}, {"opponents", nlohmann::json::array()},
               {"previous", false}, {"accuracy_positions", 0},
               {"gate", {{"enabled", true}, {"elo1", 100.0}, {"max_pairs", 8}}}};
  const auto dir = std::filesystem::temp_directory_path() / ("pz_ttt_gate_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  TrainOptions options;
  options.run_dir = dir.string();
  options.quiet = true;
  train(parse_train_config(j), options);
  EXPECT_TRUE(std::filesystem::exists(dir / "gate.sqlite"));
  EXPECT_TRUE(std::filesystem::exists(dir / "models" / "step-00000000.pt"));  // the first best model
  std::ifstream metrics(dir / "metrics.jsonl");
  int gates = 0;
  std::string best = (dir / "models" / "step-00000000.pt").string();
  for (std::string line; std::getline(metrics, line);) {
    const auto m = nlohmann::json::parse(line);
    if (m.value("kind", "") != "gate") continue;
    ++gates;
    EXPECT_EQ(m.at("best").get<std::string>(), best);  // the baseline is the last model that passed
    EXPECT_GT(m.at("pairs").get<double>(), 0);
    EXPECT_LE(m.at("pairs").get<double>(), 8);
    if (m.at("accepted").get<bool>()) best = (dir / "models" / ("step-000000" + std::to_string(m.at("step").get<int>()) + ".pt")).string();
  }
  EXPECT_EQ(gates, 2);  // steps 20 and 40
  std::filesystem::remove_all(dir);
}

TEST(TrainConfig, GateOptionsAreChecked) {
  auto j = default_train_config();
  j["eval"]["gate"] = {{"enabled", true}, {"elo0", 10.0}, {"elo1", 5.0}};
  EXPECT_THROW(parse_train_config(j), util::UsageError);
  j["eval"]["gate"] = {{"enabled", true}, {"alpha", 0.7}};
  EXPECT_THROW(parse_train_config(j), util::UsageError);
  j["eval"]["gate"] = {{"enabled", true}, {"colour", "red"}};
  EXPECT_THROW(parse_train_config(j), util::UsageError);
  j["eval"]["gate"] = {{"enabled", true}};
  j["eval"]["every_steps"] = 0;
  EXPECT_THROW(parse_train_config(j), util::UsageError);
  j["eval"]["every_steps"] = 100;
  EXPECT_TRUE(parse_train_config(j).gate);
}

}  // namespace
}  // namespace pz::nn
