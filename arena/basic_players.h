// The players that need nothing but the rules.
#pragma once

#include "arena/player.h"
#include "util/rng.h"

namespace pz::arena {

// A person; front-ends ask them directly (see Player::is_human).
class HumanPlayer final : public Player {
 public:
  std::string name() const override { return "human"; }
  bool is_human() const override { return true; }
  games::Action choose_action(const games::State& state, games::Player seat) override;
};

class RandomPlayer final : public Player {
 public:
  RandomPlayer(std::string name, std::uint64_t seed) : name_(std::move(name)), rng_(seed) {}
  std::string name() const override { return name_; }
  games::Action choose_action(const games::State& state, games::Player seat) override;

 private:
  std::string name_;
  util::Rng rng_;
  std::vector<games::Action> legal_;
};

}  // namespace pz::arena
