#include "tests/games/game_properties.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "util/rng.h"

namespace pz::games::testing {

std::shared_ptr<const Game> make_from_entry(const GameEntry& entry, const std::map<std::string, std::string>& options) {
  auto values = entry.options.resolve(options, "game '" + entry.name + "'");
  return entry.make(values, util::Spec{entry.name, values.all()});
}

std::unique_ptr<State> play_moves(const Game& game, const std::vector<std::string>& moves) {
  auto state = game.new_initial_state();
  for (const auto& m : moves) {
    std::string error;
    auto action = state->parse_action(m, &error);
    EXPECT_TRUE(action.has_value()) << m << ": " << error;
    if (!action) break;
    if (state->is_terminal()) {
      ADD_FAILURE() << "the game ended before '" << m << "':\n" << state->to_string();
      break;
    }
    state->apply_checked(*action);
  }
  return state;
}
namespace {

Action random_action(const std::vector<Action>& legal, util::Rng& rng) { return legal[rng.below(static_cast<uint32_t>(legal.size()))]; }

// Applies one random step: a legal action, a chance outcome, or a joint action.
void random_step(State& state, util::Rng& rng, std::vector<Action>* applied = nullptr) {
  if (state.is_simultaneous_node()) {
    std::vector<Action> joint;
    for (int p = 0; p < state.game().info().num_players; ++p) {
      std::vector<Action> legal;
      state.legal_actions(p, legal);
      ASSERT_FALSE(legal.empty());
      joint.push_back(random_action(legal, rng));
    }
    if (applied) *applied = joint;
    state.apply_joint_action(joint);
    return;
  }
  std::vector<Action> legal;
  state.legal_actions(legal);
  ASSERT_FALSE(legal.empty()) << state.to_string();
  Action a = random_action(legal, rng);
  if (applied) *applied = {a};
  state.apply_action(a);
}

void expect_equivalent(const State& a, const State& b) {
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.current_player(), b.current_player());
  EXPECT_EQ(a.to_string(), b.to_string());
  EXPECT_EQ(a.legal_actions(), b.legal_actions());
  EXPECT_EQ(a.returns(), b.returns());
  EXPECT_EQ(a.serialize(), b.serialize());
}

}  // namespace

void check_random_playouts(const Game& game, int num_games, std::uint64_t seed) {
  const GameInfo& info = game.info();
  util::Rng rng(seed);
  std::vector<Action> legal;
  // Reassigned at every node from a different earlier position: assign_from must overwrite
  // everything, as search loops reuse one state object this way.
  auto scratch = game.new_initial_state();
  util::Rng scratch_rng(seed ^ 0x9E3779B97F4A7C15ULL);  // leaves the playouts' own sequence alone
  {
    const auto other = make_game(info.name == "tictactoe" ? "connect4" : "tictactoe");
    const auto foreign = other->new_initial_state();
    const std::string text = scratch->serialize();
    ASSERT_FALSE(scratch->assign_from(*foreign)) << "assign_from accepted a state of another game";
    ASSERT_EQ(scratch->serialize(), text) << "a refused assign_from changed the state";
  }
  for (int g = 0; g < num_games; ++g) {
    auto state = game.new_initial_state();
    int steps = 0;
    while (!state->is_terminal()) {
      ASSERT_LE(steps, info.max_game_length) << "game longer than max_game_length";
      ASSERT_EQ(state->move_number(), steps);
      if (!state->is_simultaneous_node()) {
        state->legal_actions(legal);
        ASSERT_FALSE(legal.empty()) << "non-terminal state without moves:\n" << state->to_string();
        ASSERT_TRUE(std::is_sorted(legal.begin(), legal.end()));
        ASSERT_EQ(std::adjacent_find(legal.begin(), legal.end()), legal.end()) << "duplicate legal action";
        const int bound = state->is_chance_node() ? info.max_chance_outcomes : info.num_distinct_actions;
        for (Action a : legal) {
          ASSERT_GE(a, 0);
          ASSERT_LT(a, bound);
          if (!state->is_chance_node()) {
            const std::string text = state->action_to_string(state->current_player(), a);
            std::string error;
            auto parsed = state->parse_action(text, &error);
            ASSERT_TRUE(parsed.has_value()) << "cannot parse own notation '" << text << "': " << error;
            ASSERT_EQ(*parsed, a) << "notation '" << text << "' does not round-trip";
          }
        }
        if (state->is_chance_node()) {
          double total = 0;
          for (auto [a, p] : state->chance_outcomes()) total += p;
          ASSERT_NEAR(total, 1.0, 1e-9);
        }
      }
      // Observations: right size, finite.
      for (int p = 0; p < info.num_players; ++p) {
        auto obs = state->observation(p);
        ASSERT_EQ(static_cast<int>(obs.size()), info.observation_shape.size());
        for (float v : obs) ASSERT_TRUE(std::isfinite(v));
      }
      // Serialisation round trip, on a sample of nodes to keep the test fast.
      if (rng.below(4) == 0) {
        auto restored = game.deserialize(state->serialize());
        expect_equivalent(*state, *restored);
      }
      // may_end_game may say yes too often, never no wrongly (the search skips those moves
      // when it looks for immediate wins). On every third node, to keep the test fast.
      if (steps % 3 == 0 && !state->is_chance_node() && !state->is_simultaneous_node()) {
        for (Action a : legal) {
          if (state->may_end_game(a)) continue;
          ASSERT_TRUE(scratch->assign_from(*state));
          scratch->apply_action(a);
          ASSERT_FALSE(scratch->is_terminal()) << "may_end_game said no, yet " << state->action_to_string(state->current_player(), a)
                                               << " ends the game:\n" << state->to_string();
        }
      }
      // Clone independence.
      auto copy = state->clone();
      const std::uint64_t before = state->hash();
      random_step(*copy, rng);
      ASSERT_EQ(state->hash(), before) << "applying to a clone changed the original";
      ASSERT_TRUE(scratch->assign_from(*state)) << "assign_from refused a state of its own game";
      expect_equivalent(*state, *scratch);
      random_step(*scratch, scratch_rng);
      ASSERT_EQ(state->hash(), before) << "applying to an assigned copy changed the original";
      random_step(*state, rng);
      ++steps;
    }
    ASSERT_TRUE(state->legal_actions().empty());
    auto returns = state->returns();
    ASSERT_EQ(static_cast<int>(returns.size()), info.num_players);
    double sum = 0;
    for (double r : returns) {
      ASSERT_GE(r, info.min_return);
      ASSERT_LE(r, info.max_return);
      sum += r;
    }
    if (info.zero_sum) {
      ASSERT_NEAR(sum, 0.0, 1e-9);
    }
    auto restored = game.deserialize(state->serialize());
    expect_equivalent(*state, *restored);
  }
}

void check_may_end_game_exact(const Game& game, int num_games, std::uint64_t seed) {
  util::Rng rng(seed);
  std::vector<Action> legal;
  auto probe = game.new_initial_state();
  for (int g = 0; g < num_games; ++g) {
    auto state = game.new_initial_state();
    while (!state->is_terminal()) {
      state->legal_actions(legal);
      if (!state->is_chance_node() && !state->is_simultaneous_node()) {
        for (Action a : legal) {
          ASSERT_TRUE(probe->assign_from(*state));
          probe->apply_action(a);
          ASSERT_EQ(state->may_end_game(a), probe->is_terminal())
              << state->action_to_string(state->current_player(), a) << " in\n" << state->to_string();
        }
      }
      random_step(*state, rng);
    }
  }
}

void check_symmetries(const Game& game, int num_games, std::uint64_t seed) {
  const GameInfo& info = game.info();
  util::Rng rng(seed);
  std::vector<float> obs(static_cast<size_t>(info.observation_shape.size()));
  std::vector<float> transformed(obs.size());
  for (Symmetry s : game.symmetries()) {
    for (int g = 0; g < num_games; ++g) {
      auto original = game.new_initial_state();
      auto image = game.new_initial_state();
      while (!original->is_terminal()) {
        ASSERT_FALSE(image->is_terminal()) << symmetry_name(s);
        ASSERT_EQ(original->current_player(), image->current_player());
        const bool chance = original->is_chance_node();
        for (int p = 0; p < info.num_players; ++p) {
          std::vector<Action> legal, image_legal, mapped;
          if (original->is_simultaneous_node()) {
            original->legal_actions(p, legal);
            image->legal_actions(p, image_legal);
          } else if (p == 0) {
            original->legal_actions(legal);
            image->legal_actions(image_legal);
          }
          for (Action a : legal) mapped.push_back(chance ? game.transform_chance_outcome(s, a) : game.transform_action(s, a));
          std::sort(mapped.begin(), mapped.end());
          ASSERT_EQ(mapped, image_legal) << "symmetry " << symmetry_name(s) << "\n" << original->to_string();
        }
        for (int p = 0; p < info.num_players; ++p) {
          original->observation(p, obs.data());
          game.transform_planes(s, info.observation_shape, obs.data(), transformed.data());
          ASSERT_EQ(transformed, image->observation(p)) << "symmetry " << symmetry_name(s) << "\n" << original->to_string();
        }
        std::vector<Action> applied;
        random_step(*original, rng, &applied);
        if (applied.size() == 1 && !image->is_simultaneous_node()) {
          image->apply_action(image->is_chance_node() ? game.transform_chance_outcome(s, applied[0])
                                                      : game.transform_action(s, applied[0]));
        } else {
          for (Action& a : applied) a = game.transform_action(s, a);
          image->apply_joint_action(applied);
        }
      }
      ASSERT_TRUE(image->is_terminal());
      ASSERT_EQ(original->returns(), image->returns());
    }
  }
  // Policy transform must be a permutation consistent with transform_action.
  for (Symmetry s : game.symmetries()) {
    std::set<Action> images;
    for (Action a = 0; a < info.num_distinct_actions; ++a) {
      Action b = game.transform_action(s, a);
      ASSERT_GE(b, 0);
      ASSERT_LT(b, info.num_distinct_actions);
      ASSERT_EQ(game.transform_action(inverse(s), b), a);
      images.insert(b);
    }
    ASSERT_EQ(static_cast<int>(images.size()), info.num_distinct_actions);
    // transform_policy moves each action's probability to its image.
    std::vector<float> policy(static_cast<size_t>(info.policy_shape.size()), 0.0f), moved(policy.size());
    for (Action a = 0; a < info.num_distinct_actions; ++a) policy[static_cast<size_t>(a)] = static_cast<float>(a + 1);
    game.transform_policy(s, policy.data(), moved.data());
    for (Action a = 0; a < info.num_distinct_actions; ++a) {
      ASSERT_EQ(moved[static_cast<size_t>(game.transform_action(s, a))], static_cast<float>(a + 1));
    }
  }
}

}  // namespace pz::games::testing
