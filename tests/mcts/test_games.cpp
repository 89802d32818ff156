#include "test_games.h"

#include <sstream>

#include "games/registry.h"

namespace pz::mcts::testing {
namespace {

using games::Action;
using games::Player;

games::GameInfo base_info(const std::string& name, int players, int actions, int chance, double lo, double hi) {
  games::GameInfo info;
  info.name = name;
  info.long_name = name;
  info.family = games::Family::kStrategy;
  info.num_players = players;
  info.num_distinct_actions = actions;
  info.max_chance_outcomes = chance;
  info.observation_shape = {1, 1, 1};
  info.policy_shape = {1, 1, actions};
  info.zero_sum = players == 2;
  info.min_return = lo;
  info.max_return = hi;
  info.max_game_length = 4;
  return info;
}

// Shared boilerplate: the toy games differ only in their rules.
class ToyState : public games::State {
 public:
  using games::State::State;
  void observation(Player, float* out) const override { out[0] = static_cast<float>(move_number()); }
  std::string action_to_string(Player, Action action) const override { return std::to_string(action); }
  std::optional<Action> parse_action(std::string_view text, std::string*) const override {
    return static_cast<Action>(std::stoi(std::string(text)));
  }
  std::string to_string() const override { return serialize(); }
};

// --- Dice ---------------------------------------------------------------------------------

class DiceGame final : public games::Game {
 public:
  DiceGame() : Game(base_info("dice", 2, 2, 3, -1, 1), util::Spec{"dice", {}}) {}
  std::unique_ptr<games::State> new_initial_state() const override;
  std::unique_ptr<games::State> deserialize(std::string_view) const override { return new_initial_state(); }
};

class DiceState final : public ToyState {
 public:
  explicit DiceState(const games::Game* g) : ToyState(g) {}
  std::unique_ptr<games::State> clone() const override { return std::make_unique<DiceState>(*this); }
  bool assign_from(const games::State& other) override { return games::assign_same(*this, other); }
  Player current_player() const override {
    if (choice_ < 0) return 0;
    if (choice_ == 1 && die_ < 0) return games::kChancePlayer;
    return games::kTerminalPlayer;
  }
  int move_number() const override { return (choice_ >= 0) + (die_ >= 0); }
  void legal_actions(std::vector<Action>& out) const override {
    out.clear();
    if (current_player() == 0) out = {0, 1};
    if (current_player() == games::kChancePlayer) out = {0, 1, 2};
  }
  std::vector<std::pair<Action, double>> chance_outcomes() const override { return {{0, 0.1}, {1, 0.2}, {2, 0.7}}; }
  void apply_action(Action a) override {
    if (choice_ < 0) {
      choice_ = a;
    } else {
      die_ = a;
    }
  }
  std::vector<double> returns() const override {
    if (current_player() != games::kTerminalPlayer) return {0, 0};
    static constexpr double kDie[3] = {-1.0, 0.0, 0.6};
    const double v = choice_ == 0 ? 0.2 : kDie[die_];
    return {v, -v};
  }
  std::uint64_t hash() const override { return static_cast<std::uint64_t>((choice_ + 2) * 16 + die_ + 2); }
  std::string serialize() const override { return std::to_string(choice_) + "," + std::to_string(die_); }

 private:
  int choice_ = -1, die_ = -1;
};

std::unique_ptr<games::State> DiceGame::new_initial_state() const { return std::make_unique<DiceState>(this); }

// --- Matrix ---------------------------------------------------------------------------------

class MatrixGame final : public games::Game {
 public:
  MatrixGame() : Game(base_info("matrix", 2, 2, 0, -1, 1), util::Spec{"matrix", {}}) { info_.simultaneous = true; }
  std::unique_ptr<games::State> new_initial_state() const override;
  std::unique_ptr<games::State> deserialize(std::string_view) const override { return new_initial_state(); }
};

class MatrixState final : public ToyState {
 public:
  explicit MatrixState(const games::Game* g) : ToyState(g) {}
  std::unique_ptr<games::State> clone() const override { return std::make_unique<MatrixState>(*this); }
  bool assign_from(const games::State& other) override { return games::assign_same(*this, other); }
  Player current_player() const override { return row_ < 0 ? games::kSimultaneousPlayer : games::kTerminalPlayer; }
  int move_number() const override { return row_ < 0 ? 0 : 1; }
  void legal_actions(std::vector<Action>& out) const override { out.clear(); }
  void legal_actions(Player, std::vector<Action>& out) const override {
    out.clear();
    if (row_ < 0) out = {0, 1};
  }
  void apply_action(Action) override { throw std::logic_error("matrix: simultaneous only"); }
  void apply_joint_action(const std::vector<Action>& joint) override {
    row_ = joint[0];
    column_ = joint[1];
  }
  std::vector<double> returns() const override {
    if (row_ < 0) return {0, 0};
    static constexpr double kPayoff[2][2] = {{0.5, 0.8}, {-0.2, 0.1}};
    const double v = kPayoff[row_][column_];
    return {v, -v};
  }
  std::uint64_t hash() const override { return static_cast<std::uint64_t>((row_ + 2) * 8 + column_ + 2); }
  std::string serialize() const override { return std::to_string(row_) + "," + std::to_string(column_); }

 private:
  int row_ = -1, column_ = -1;
};

std::unique_ptr<games::State> MatrixGame::new_initial_state() const { return std::make_unique<MatrixState>(this); }

// --- Treasure -------------------------------------------------------------------------------

class TreasureGame final : public games::Game {
 public:
  TreasureGame() : Game(base_info("treasure", 1, 3, 0, 0, 200), util::Spec{"treasure", {}}) { info_.zero_sum = false; }
  std::unique_ptr<games::State> new_initial_state() const override;
  std::unique_ptr<games::State> deserialize(std::string_view) const override { return new_initial_state(); }
};

class TreasureState final : public ToyState {
 public:
  explicit TreasureState(const games::Game* g) : ToyState(g) {}
  std::unique_ptr<games::State> clone() const override { return std::make_unique<TreasureState>(*this); }
  bool assign_from(const games::State& other) override { return games::assign_same(*this, other); }
  Player current_player() const override { return steps_ < 3 ? 0 : games::kTerminalPlayer; }
  int move_number() const override { return steps_; }
  void legal_actions(std::vector<Action>& out) const override {
    out.clear();
    if (steps_ < 3) out = {0, 1, 2};
  }
  void apply_action(Action a) override {
    if (steps_ == 0) {
      unlocked_ = a == 0;
      score_ += a == 0 ? 0 : 20 * a;  // 1 → 20, 2 → 40: greedy bait
    } else if (steps_ == 1) {
      score_ += unlocked_ && a == 1 ? 150 : 10 * a;
    } else {
      score_ += 5 * a;
    }
    ++steps_;
  }
  std::vector<double> returns() const override { return {score_}; }
  std::uint64_t hash() const override { return static_cast<std::uint64_t>(steps_ * 1000 + score_ * 2 + unlocked_); }
  std::string serialize() const override { return std::to_string(steps_) + "," + std::to_string(score_); }

 private:
  int steps_ = 0;
  double score_ = 0;
  bool unlocked_ = false;
};

std::unique_ptr<games::State> TreasureGame::new_initial_state() const { return std::make_unique<TreasureState>(this); }

std::string describe(const Node& n) {
  std::ostringstream out;
  out << "node(action " << n.action << ", kind " << static_cast<int>(n.kind) << ", visits " << n.visits.load()
      << ", in flight " << n.in_flight.load() << ")";
  return out.str();
}

}  // namespace

std::shared_ptr<const games::Game> dice_game() { return std::make_shared<DiceGame>(); }
std::shared_ptr<const games::Game> matrix_game() { return std::make_shared<MatrixGame>(); }
std::shared_ptr<const games::Game> treasure_game() { return std::make_shared<TreasureGame>(); }

std::unique_ptr<games::State> play(const games::Game& game, const std::string& moves) {
  auto state = game.new_initial_state();
  std::istringstream in(moves);
  std::string move;
  while (in >> move) {
    auto action = state->parse_action(move);
    if (!action) throw std::invalid_argument("bad move " + move);
    state->apply_checked(*action);
  }
  return state;
}

std::string check_tree(const Node& root, bool root_reused) {
  std::vector<std::pair<const Node*, bool>> stack{{&root, true}};
  while (!stack.empty()) {
    auto [node, is_root] = stack.back();
    stack.pop_back();
    if (node->in_flight.load() != 0) return "in-flight count left: " + describe(*node);
    if (!node->is_expanded()) continue;
    long long children = 0;
    if (node->kind == NodeKind::kSimultaneous) {
      for (int seat = 0; seat < 2; ++seat) {
        long long sum = 0;
        for (int i = 0; i < node->marginal_count(seat); ++i) sum += node->marginals(seat)[i].visits.load();
        if (sum != node->visits.load() - 1 && !(is_root && root_reused)) return "marginals do not add up: " + describe(*node);
      }
      for (int i = node->split + node->marginal_count(1); i < node->num_children; ++i) {
        children += node->children[i].visits.load();
        stack.push_back({node->children + i, false});
      }
    } else {
      for (int i = 0; i < node->num_children; ++i) {
        children += node->children[i].visits.load();
        stack.push_back({node->children + i, false});
      }
    }
    long long expected = children;
    if (node->kind == NodeKind::kDecision || node->kind == NodeKind::kSimultaneous) expected += 1;
    if (node->kind == NodeKind::kTerminal) expected = node->visits.load();
    // A reused root's own evaluation may have been its parent's descent count; allow it.
    if (node->visits.load() != expected && !(is_root && root_reused)) {
      return "visits " + std::to_string(node->visits.load()) + " != expected " + std::to_string(expected) + ": " + describe(*node);
    }
  }
  return "";
}

}  // namespace pz::mcts::testing
