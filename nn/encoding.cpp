#include "nn/encoding.h"

#include <algorithm>
#include <stdexcept>

namespace pz::nn {

games::Player viewer_of(const games::State& state) {
  const games::Player p = state.current_player();
  return p >= 0 ? p : 0;
}

games::GameInfo value_scale(const games::GameInfo& info, const NetConfig& network) {
  games::GameInfo scaled = info;
  if (network.value_range.size() == 2) {
    scaled.min_return = network.value_range[0];
    scaled.max_return = network.value_range[1];
  }
  return scaled;
}

float normalize_return(const games::GameInfo& info, double value) {
  const double lo = info.min_return, hi = info.max_return;
  if (!(hi > lo)) return 0.0f;
  const double v = 2.0 * (value - lo) / (hi - lo) - 1.0;
  return static_cast<float>(std::clamp(v, -1.0, 1.0));
}

double denormalize_value(const games::GameInfo& info, float value) {
  return info.min_return + (static_cast<double>(value) + 1.0) * 0.5 * (info.max_return - info.min_return);
}

void values_for_seats(const games::GameInfo& info, games::Player viewer, const float* net_values, float* seat_values) {
  const int n = info.num_players;
  if (n == 1) {
    seat_values[0] = static_cast<float>(denormalize_value(info, net_values[0]));
  } else if (n == 2 && info.zero_sum) {
    seat_values[viewer] = static_cast<float>(denormalize_value(info, net_values[0]));
    seat_values[1 - viewer] = static_cast<float>(denormalize_value(info, -net_values[0]));
  } else {
    for (int k = 0; k < n; ++k) seat_values[(viewer + k) % n] = static_cast<float>(denormalize_value(info, net_values[k]));
  }
}

std::vector<float> value_target(const games::GameInfo& info, games::Player viewer, const std::vector<double>& returns) {
  const int n = info.num_players;
  if (static_cast<int>(returns.size()) != n) throw std::invalid_argument("value_target: one return per player expected");
  if (n == 1 || (n == 2 && info.zero_sum)) return {normalize_return(info, returns[static_cast<std::size_t>(viewer)])};
  std::vector<float> out(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) out[static_cast<std::size_t>(k)] = normalize_return(info, returns[static_cast<std::size_t>((viewer + k) % n)]);
  return out;
}

namespace {

// The game's end as the auxiliary targets see it: the final state, or null when the game was
// resigned or stopped before its board was decided.
std::unique_ptr<games::State> decided_final_state(const games::Game& game, const mcts::GameRecord& record) {
  if (record.resigned >= 0) return nullptr;
  auto state = game.new_initial_state();
  for (const games::Action a : record.actions) {
    if (state->is_terminal()) return nullptr;
    state->apply_action(a);
  }
  return state->is_terminal() ? std::move(state) : nullptr;
}

// Fills s.ownership and s.score for `player` from `final` (nothing when it has no answer).
void add_auxiliary_targets(const games::State& final, games::Player player, Sample& s) {
  const games::Shape& obs = final.game().info().observation_shape;
  std::vector<float> ownership(static_cast<std::size_t>(obs.plane_size()));
  double score = 0;
  if (!final.final_ownership(player, ownership.data()) || !final.final_score(player, &score)) return;
  s.ownership = std::move(ownership);
  s.score = static_cast<float>(score / obs.plane_size());
}

}  // namespace

std::vector<Sample> samples_from_game(const games::Game& game, const mcts::GameRecord& record, double q_mix,
                                      const NetConfig& network) {
  const games::GameInfo info = value_scale(game.info(), network);
  const auto final = network.auxiliary() ? decided_final_state(game, record) : nullptr;
  std::vector<Sample> out;
  out.reserve(record.samples.size());
  for (const mcts::TrainingSample& ts : record.samples) {
    const auto state = game.deserialize(ts.state);
    Sample s;
    s.observation.resize(static_cast<std::size_t>(info.observation_shape.size()));
    // The target's seat is who the search chose for: its own view, even at simultaneous nodes.
    state->observation(ts.player, s.observation.data());
    if (ts.full_search && !ts.policy.empty()) {
      s.policy.assign(static_cast<std::size_t>(info.policy_shape.size()), 0.0f);
      for (const auto& [action, p] : ts.policy) s.policy[static_cast<std::size_t>(action)] += p;
    }
    s.value = value_target(info, ts.player, record.returns);
    if (q_mix > 0 && s.value.size() == 1) {
      const float q = normalize_return(info, ts.root_value);
      s.value[0] = static_cast<float>((1.0 - q_mix) * s.value[0] + q_mix * q);
    }
    if (final) add_auxiliary_targets(*final, ts.player, s);
    out.push_back(std::move(s));
  }
  return out;
}

Sample transform_sample(const games::Game& game, games::Symmetry symmetry, const Sample& sample) {
  if (symmetry == games::Symmetry::kIdentity) return sample;
  const games::GameInfo& info = game.info();
  Sample t;
  t.observation.resize(sample.observation.size());
  game.transform_planes(symmetry, info.observation_shape, sample.observation.data(), t.observation.data());
  if (!sample.policy.empty()) {
    t.policy.resize(sample.policy.size());
    game.transform_policy(symmetry, sample.policy.data(), t.policy.data());
  }
  t.value = sample.value;
  if (!sample.ownership.empty()) {
    t.ownership.resize(sample.ownership.size());
    const games::Shape plane{1, info.observation_shape.height, info.observation_shape.width};
    game.transform_planes(symmetry, plane, sample.ownership.data(), t.ownership.data());
  }
  t.score = sample.score;
  return t;
}

}  // namespace pz::nn
