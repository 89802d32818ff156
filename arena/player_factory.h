// Players from specs, with the grammar of util/spec.h:
//
//   human                   a person at the front-end in use
//   random[:seed=N]         uniformly random legal moves
//
//   uct:sims=N,…            UCT with random rollouts (arena/search_players.h)
//   mcts:sims=N,…           PUCT search (arena/search_players.h)
//
// (gtp:… joins with the engine front-end.) An unknown kind or option is a
// util::UsageError listing the valid ones, exactly like games.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arena/player.h"
#include "games/game.h"
#include "util/spec.h"

namespace pz::arena {

struct PlayerKind {
  std::string name;
  std::string description;
  util::OptionSchema options;
  // `seed` is the match's seed for this seat; kinds with a `seed` option let it override.
  std::function<std::unique_ptr<Player>(const util::OptionSchema::Values&, const util::Spec& spec,
                                        const games::Game& game, std::uint64_t seed)>
      make;
};

const std::vector<PlayerKind>& player_kinds();

std::unique_ptr<Player> make_player(std::string_view spec, const games::Game& game, std::uint64_t seed);

// "name (options…): description" lines for --help texts.
std::string describe_player_kinds();

}  // namespace pz::arena
