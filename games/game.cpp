#include "games/game.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include "util/error.h"

namespace pz::games {

const char* family_name(Family family) {
  switch (family) {
    case Family::kBoard: return "board";
    case Family::kStrategy: return "strategy";
    case Family::kAction: return "action";
  }
  return "?";
}

std::string player_label(Player player) {
  switch (player) {
    case kChancePlayer: return "chance";
    case kSimultaneousPlayer: return "simultaneous";
    case kTerminalPlayer: return "terminal";
    default: return "player " + std::to_string(player + 1);
  }
}

Game::Game(GameInfo info, util::Spec spec, std::vector<Symmetry> symmetries)
    : info_(std::move(info)), spec_(std::move(spec)), symmetries_(std::move(symmetries)) {
  if (symmetries_.empty() || symmetries_[0] != Symmetry::kIdentity) {
    throw std::logic_error("game '" + info_.name + "': symmetry 0 must be the identity");
  }
  const Shape& p = info_.policy_shape;
  for (Symmetry s : symmetries_) {
    if (!symmetry_fits(s, p.height, p.width)) {
      throw std::logic_error("game '" + info_.name + "': symmetry " + symmetry_name(s) + " does not fit the board");
    }
  }
  if (p.size() < info_.num_distinct_actions) {
    throw std::logic_error("game '" + info_.name + "': policy planes smaller than the action space");
  }
}

Action Game::transform_action(Symmetry symmetry, Action action) const {
  const Shape& p = info_.policy_shape;
  const int plane = action / p.plane_size(), rest = action % p.plane_size();
  Cell c = transform_cell(symmetry, p.height, p.width, {rest / p.width, rest % p.width});
  return plane * p.plane_size() + c.y * p.width + c.x;
}

void Game::transform_planes(Symmetry symmetry, const Shape& shape, const float* in, float* out) const {
  const int hw = shape.plane_size();
  for (int y = 0; y < shape.height; ++y) {
    for (int x = 0; x < shape.width; ++x) {
      Cell c = transform_cell(symmetry, shape.height, shape.width, {y, x});
      const int from = y * shape.width + x, to = c.y * shape.width + c.x;
      for (int ch = 0; ch < shape.channels; ++ch) out[ch * hw + to] = in[ch * hw + from];
    }
  }
}

void Game::transform_policy(Symmetry symmetry, const float* in, float* out) const {
  std::fill(out, out + info_.policy_shape.size(), 0.0f);
  for (Action a = 0; a < info_.num_distinct_actions; ++a) out[transform_action(symmetry, a)] = in[a];
}

void State::legal_actions(Player p, std::vector<Action>& out) const {
  if (p == current_player()) {
    legal_actions(out);
  } else {
    out.clear();
  }
}

bool State::is_legal(Action action) const {
  std::vector<Action> legal;
  legal_actions(legal);
  return std::binary_search(legal.begin(), legal.end(), action);
}

std::string State::explain_illegal(Action action) const {
  if (is_terminal()) return "the game is over";
  if (action < 0 || action >= game().info().num_distinct_actions) return "not a move of this game";
  return "not a legal move in this position";
}

std::vector<std::pair<Action, double>> State::chance_outcomes() const {
  if (is_chance_node()) throw std::logic_error(game().info().name + ": chance node without chance_outcomes()");
  return {};
}

void State::apply_joint_action(const std::vector<Action>& actions) {
  if (!is_simultaneous_node() && actions.size() == 1) {
    apply_action(actions[0]);
    return;
  }
  throw std::logic_error(game().info().name + ": apply_joint_action at a non-simultaneous node");
}

void State::apply_checked(Action action) {
  if (is_terminal()) throw util::UsageError("the game is over: no move can be played");
  if (!is_legal(action)) {
    throw util::UsageError("illegal move " + action_to_string(current_player(), action) + ": " + explain_illegal(action));
  }
  apply_action(action);
}

std::vector<float> State::observation(Player player) const {
  std::vector<float> out(static_cast<size_t>(game().info().observation_shape.size()));
  observation(player, out.data());
  return out;
}

std::unique_ptr<State> State::resample(Player, util::Rng&) const {
  if (!game().info().perfect_information) {
    throw std::logic_error(game().info().name + ": hidden-information game without resample()");
  }
  return clone();
}

}  // namespace pz::games
