// The Game API must carry chance nodes, simultaneous moves, hidden information and
// single-player scored games without change (the strategy and action games rely on it).
// Three small games written against the API prove it, through the same generic checks and
// tools (perft, random playouts, serialisation, the terminal front-end) the board games use.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "arena/player_factory.h"
#include "arena/terminal_game.h"
#include "games/game.h"
#include "games/perft.h"
#include "tests/games/game_properties.h"
#include "util/error.h"

namespace pz::games {
namespace {

// --- Dice race: chance nodes ----------------------------------------------------------------
// Two players alternately roll a die (chance: 1..3, probabilities 1/2, 1/3, 1/6) and then
// choose to add the roll to their total or to hold; first to reach 5 wins. After 8 turns the
// higher total wins (equal: draw).
class DiceRaceGame final : public Game {
 public:
  DiceRaceGame() : Game(info(), util::Spec{"dicerace", {}}) {}
  static GameInfo info() {
    GameInfo i;
    i.name = "dicerace";
    i.long_name = "Dice race";
    i.family = Family::kStrategy;
    i.num_distinct_actions = 2;  // 0 hold, 1 add
    i.max_chance_outcomes = 3;
    i.observation_shape = {3, 1, 1};
    i.policy_shape = {2, 1, 1};
    i.max_game_length = 16;
    return i;
  }
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
};

class DiceRaceState final : public State {
 public:
  explicit DiceRaceState(const Game* g) : State(g) {}
  std::unique_ptr<State> clone() const override { return std::make_unique<DiceRaceState>(*this); }
  bool assign_from(const State& other) override { return assign_same(*this, other); }
  Player current_player() const override {
    if (winner_ != -1 || turn_ == 8) return kTerminalPlayer;
    return roll_ == 0 ? kChancePlayer : turn_ % 2;
  }
  int move_number() const override { return static_cast<int>(record_.size()); }
  void legal_actions(std::vector<Action>& out) const override {
    out.clear();
    if (is_terminal()) return;
    out = roll_ == 0 ? std::vector<Action>{0, 1, 2} : std::vector<Action>{0, 1};
  }
  std::vector<std::pair<Action, double>> chance_outcomes() const override {
    return {{0, 1.0 / 2}, {1, 1.0 / 3}, {2, 1.0 / 6}};
  }
  void apply_action(Action a) override {
    record_.push_back(static_cast<char>('0' + a));
    if (roll_ == 0) {
      roll_ = a + 1;
      return;
    }
    const int p = turn_ % 2;
    if (a == 1) total_[p] += roll_;
    if (total_[p] >= 5) winner_ = p;
    roll_ = 0;
    ++turn_;
    if (turn_ == 8 && winner_ == -1 && total_[0] != total_[1]) winner_ = total_[0] > total_[1] ? 0 : 1;
  }
  std::vector<double> returns() const override {
    if (winner_ == -1) return {0.0, 0.0};
    return winner_ == 0 ? std::vector<double>{1, -1} : std::vector<double>{-1, 1};
  }
  void observation(Player p, float* out) const override {
    out[0] = static_cast<float>(total_[p]);
    out[1] = static_cast<float>(total_[1 - p]);
    out[2] = static_cast<float>(roll_);
  }
  std::string action_to_string(Player p, Action a) const override {
    if (p == kChancePlayer) return "roll" + std::to_string(a + 1);
    return a == 1 ? "add" : "hold";
  }
  std::optional<Action> parse_action(std::string_view t, std::string* error) const override {
    if (t == "add") return 1;
    if (t == "hold") return 0;
    if (error) *error = "expected add or hold";
    return std::nullopt;
  }
  std::string to_string() const override {
    return "totals " + std::to_string(total_[0]) + "-" + std::to_string(total_[1]) + " roll " + std::to_string(roll_) + "\n";
  }
  std::uint64_t hash() const override {
    return static_cast<std::uint64_t>(total_[0] * 1000 + total_[1] * 100 + roll_ * 10 + turn_ % 2) * 0x9E3779B97F4A7C15ULL;
  }
  std::string serialize() const override { return record_; }

 private:
  int total_[2] = {0, 0}, roll_ = 0, turn_ = 0, winner_ = -1;
  std::string record_;
};

std::unique_ptr<State> DiceRaceGame::new_initial_state() const { return std::make_unique<DiceRaceState>(this); }
std::unique_ptr<State> DiceRaceGame::deserialize(std::string_view text) const {
  auto s = new_initial_state();
  for (char c : text) s->apply_checked(c - '0');
  return s;
}

// --- Rock-paper-scissors, best of three rounds: simultaneous moves ---------------------------
class RpsGame final : public Game {
 public:
  RpsGame() : Game(info(), util::Spec{"rps", {}}) {}
  static GameInfo info() {
    GameInfo i;
    i.name = "rps";
    i.long_name = "Rock-paper-scissors";
    i.family = Family::kAction;
    i.num_distinct_actions = 3;
    i.observation_shape = {2, 1, 1};
    i.policy_shape = {3, 1, 1};
    i.simultaneous = true;
    i.max_game_length = 3;
    return i;
  }
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
};

class RpsState final : public State {
 public:
  explicit RpsState(const Game* g) : State(g) {}
  std::unique_ptr<State> clone() const override { return std::make_unique<RpsState>(*this); }
  bool assign_from(const State& other) override { return assign_same(*this, other); }
  Player current_player() const override { return rounds_ == 3 ? kTerminalPlayer : kSimultaneousPlayer; }
  int move_number() const override { return rounds_; }
  void legal_actions(std::vector<Action>& out) const override { out.clear(); }
  void legal_actions(Player, std::vector<Action>& out) const override {
    out.clear();
    if (rounds_ < 3) out = {0, 1, 2};
  }
  void apply_action(Action) override { throw std::logic_error("rps: use apply_joint_action"); }
  void apply_joint_action(const std::vector<Action>& a) override {
    const int d = (a[0] - a[1] + 3) % 3;  // 1: player 0's choice beats player 1's
    if (d == 1) ++score_[0];
    if (d == 2) ++score_[1];
    record_ += static_cast<char>('0' + a[0]);
    record_ += static_cast<char>('0' + a[1]);
    ++rounds_;
  }
  std::vector<double> returns() const override {
    if (rounds_ < 3 || score_[0] == score_[1]) return {0, 0};
    return score_[0] > score_[1] ? std::vector<double>{1, -1} : std::vector<double>{-1, 1};
  }
  void observation(Player p, float* out) const override {
    out[0] = static_cast<float>(score_[p]);
    out[1] = static_cast<float>(score_[1 - p]);
  }
  std::string action_to_string(Player, Action a) const override { return std::string(1, "rps"[a]); }
  std::optional<Action> parse_action(std::string_view t, std::string* error) const override {
    if (t.size() == 1 && std::string_view("rps").find(t[0]) != std::string_view::npos) return static_cast<Action>(std::string_view("rps").find(t[0]));
    if (error) *error = "expected r, p or s";
    return std::nullopt;
  }
  std::string to_string() const override { return "score " + std::to_string(score_[0]) + "-" + std::to_string(score_[1]) + "\n"; }
  std::uint64_t hash() const override { return static_cast<std::uint64_t>(score_[0] * 16 + score_[1] * 4 + rounds_) * 0x9E3779B97F4A7C15ULL; }
  std::string serialize() const override { return record_; }

 private:
  int score_[2] = {0, 0}, rounds_ = 0;
  std::string record_;
};

std::unique_ptr<State> RpsGame::new_initial_state() const { return std::make_unique<RpsState>(this); }
std::unique_ptr<State> RpsGame::deserialize(std::string_view text) const {
  auto s = new_initial_state();
  for (size_t i = 0; i + 1 < text.size(); i += 2) s->apply_joint_action({text[i] - '0', text[i + 1] - '0'});
  return s;
}

// --- Guess the number: single player, hidden state, a score ---------------------------------
// Chance hides a number 0..7; the player guesses and is told higher/lower; the score is
// 8 minus the number of guesses. The hidden number is resampled consistently with the answers.
class GuessGame final : public Game {
 public:
  GuessGame() : Game(info(), util::Spec{"guess", {}}) {}
  static GameInfo info() {
    GameInfo i;
    i.name = "guess";
    i.long_name = "Guess the number";
    i.family = Family::kStrategy;
    i.num_players = 1;
    i.num_distinct_actions = 8;
    i.max_chance_outcomes = 8;
    i.observation_shape = {2, 1, 8};
    i.policy_shape = {1, 1, 8};
    i.zero_sum = false;
    i.perfect_information = false;
    i.min_return = 0;
    i.max_return = 7;
    i.max_game_length = 9;
    return i;
  }
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;
};

class GuessState final : public State {
 public:
  explicit GuessState(const Game* g) : State(g) {}
  std::unique_ptr<State> clone() const override { return std::make_unique<GuessState>(*this); }
  bool assign_from(const State& other) override { return assign_same(*this, other); }
  Player current_player() const override {
    if (secret_ < 0) return kChancePlayer;
    return found_ ? kTerminalPlayer : 0;
  }
  int move_number() const override { return static_cast<int>(record_.size()); }
  void legal_actions(std::vector<Action>& out) const override {
    out.clear();
    if (is_terminal()) return;
    for (int a = 0; a < 8; ++a)
      if (secret_ < 0 || (a >= low_ && a <= high_)) out.push_back(a);
  }
  std::vector<std::pair<Action, double>> chance_outcomes() const override {
    std::vector<std::pair<Action, double>> o;
    for (int a = 0; a < 8; ++a) o.push_back({a, 1.0 / 8});
    return o;
  }
  void apply_action(Action a) override {
    record_ += static_cast<char>('0' + a);
    if (secret_ < 0) {
      secret_ = a;
      return;
    }
    ++guesses_;
    if (a == secret_) found_ = true;
    else if (a < secret_) low_ = a + 1;
    else high_ = a - 1;
  }
  std::vector<double> returns() const override { return {found_ ? 8.0 - guesses_ : 0.0}; }
  void observation(Player, float* out) const override {
    // Only what the player knows: the interval still possible, never the secret.
    for (int a = 0; a < 8; ++a) {
      out[a] = (a >= low_ && a <= high_) ? 1.0f : 0.0f;
      out[8 + a] = static_cast<float>(guesses_);
    }
  }
  std::unique_ptr<State> resample(Player, util::Rng& rng) const override {
    auto s = std::make_unique<GuessState>(*this);
    s->secret_ = low_ + static_cast<int>(rng.below(static_cast<std::uint32_t>(high_ - low_ + 1)));
    return s;
  }
  std::string action_to_string(Player, Action a) const override { return std::to_string(a); }
  std::optional<Action> parse_action(std::string_view t, std::string* error) const override {
    if (t.size() == 1 && t[0] >= '0' && t[0] <= '7') return t[0] - '0';
    if (error) *error = "expected 0..7";
    return std::nullopt;
  }
  std::string to_string() const override { return "possible " + std::to_string(low_) + ".." + std::to_string(high_) + "\n"; }
  std::uint64_t hash() const override { return static_cast<std::uint64_t>(((secret_ + 1) * 64 + low_ * 8 + high_) * 16 + guesses_) * 0x9E3779B97F4A7C15ULL; }
  std::string serialize() const override { return record_; }
  int secret() const { return secret_; }

 private:
  int secret_ = -1, low_ = 0, high_ = 7, guesses_ = 0;
  bool found_ = false;
  std::string record_;
};

std::unique_ptr<State> GuessGame::new_initial_state() const { return std::make_unique<GuessState>(this); }
std::unique_ptr<State> GuessGame::deserialize(std::string_view text) const {
  auto s = new_initial_state();
  for (char c : text) s->apply_checked(c - '0');
  return s;
}

TEST(ApiFamilies, ChanceNodesCountInPerftAndPlay) {
  auto game = std::make_shared<DiceRaceGame>();
  auto root = game->new_initial_state();
  EXPECT_TRUE(root->is_chance_node());
  // roll (3) × choice (2) per ply pair.
  EXPECT_EQ(perft(*root, 1), 3u);
  EXPECT_EQ(perft(*root, 2), 6u);
  EXPECT_EQ(perft(*root, 4), 36u);
  testing::check_random_playouts(*game, 300, 11);
}

TEST(ApiFamilies, SimultaneousMovesAreJointActions) {
  auto game = std::make_shared<RpsGame>();
  auto root = game->new_initial_state();
  EXPECT_TRUE(root->is_simultaneous_node());
  EXPECT_TRUE(root->legal_actions().empty());  // no single mover
  EXPECT_EQ(perft(*root, 1), 9u);
  EXPECT_EQ(perft(*root, 3), 729u);
  testing::check_random_playouts(*game, 300, 12);
  auto s = game->deserialize("011220");  // rock-paper, paper-scissors, scissors-rock
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(s->returns(), (std::vector<double>{-1, 1}));
  testing::check_symmetries(*game, 20, 14);
}

TEST(ApiFamilies, HiddenStateIsResampledConsistently) {
  auto game = std::make_shared<GuessGame>();
  auto state = game->deserialize("5");  // secret 5
  state->apply_action(3);               // "higher"
  util::Rng rng(1);
  std::set<int> seen;
  for (int i = 0; i < 200; ++i) {
    auto sample = state->resample(0, rng);
    const int secret = static_cast<const GuessState&>(*sample).secret();
    EXPECT_GE(secret, 4);  // consistent with the answer
    seen.insert(secret);
    EXPECT_EQ(sample->observation(0), state->observation(0));
  }
  EXPECT_EQ(seen, (std::set<int>{4, 5, 6, 7}));
  testing::check_random_playouts(*game, 300, 13);
}

TEST(ApiFamilies, TerminalFrontEndHandlesChanceAndSimultaneousNodes) {
  for (const std::shared_ptr<const Game>& game :
       {std::shared_ptr<const Game>(std::make_shared<DiceRaceGame>()), std::shared_ptr<const Game>(std::make_shared<RpsGame>())}) {
    std::istringstream in;
    std::ostringstream out;
    std::vector<std::unique_ptr<arena::Player>> players;
    players.push_back(arena::make_player("random", *game, 1));
    players.push_back(arena::make_player("random", *game, 2));
    arena::TerminalGame session(game, std::move(players), 5, in, out);
    EXPECT_EQ(session.run(), arena::TerminalGame::Outcome::kFinished) << game->info().name;
    EXPECT_TRUE(session.state().is_terminal());
  }
}

}  // namespace
}  // namespace pz::games
