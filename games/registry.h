// Creating games by name.
//
//   auto game = pz::games::make_game("hex:size=9,swap=false");
//
// Every game registers one GameEntry (see registry.cpp for the list). To add a game:
// write games/<name>.{h,cpp} with a `GameEntry <name>_entry()`, add it to registry.cpp and
// games/CMakeLists.txt, and add tests/games/<name>_test.cpp (README.md walks through it).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "games/game.h"
#include "util/spec.h"

namespace pz::games {

struct GameEntry {
  std::string name;         // registry key, lower case
  std::string long_name;    // "Connect Four"
  Family family;
  std::string description;  // one line
  util::OptionSchema options;
  // Builds the game from validated options; `spec` is the canonical spec (all options).
  std::function<std::shared_ptr<const Game>(const util::OptionSchema::Values&, const util::Spec&)> make;
};

// All games, in the order `polyzero games` lists them.
const std::vector<GameEntry>& registered_games();

// Nullptr when no game has that name.
const GameEntry* find_game(std::string_view name);

// Throws util::UsageError for an unknown game (listing the known ones) or a bad option
// (listing the valid ones with their ranges).
std::shared_ptr<const Game> make_game(const util::Spec& spec);
std::shared_ptr<const Game> make_game(std::string_view spec);

}  // namespace pz::games
