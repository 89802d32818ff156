// Openings for tournaments and SPRT runs. Games are played in pairs: both games of a pair
// start from the same opening with colours swapped, so an unbalanced opening favours
// neither player, and deterministic players still play varied games.
//
//   (empty)      every game from the game's initial position
//   random:K     pair k starts after K plies drawn uniformly among the legal moves (chance
//                outcomes by their probabilities) from a generator seeded by the run's seed
//                and k; a draw that ends the game early is drawn again
//   FILE         one opening a line, moves in the game's notation separated by spaces;
//                blank lines and lines starting with '#' are skipped; pair k plays line
//                k mod (number of openings)
//
// Every pairing of a tournament plays the same openings in the same order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "games/game.h"

namespace pz::arena {

class Openings {
 public:
  Openings() = default;  // the initial position
  // Throws util::UsageError for a malformed random:K, a missing or empty file, or a line
  // that is not a legal move sequence (naming the file, line and move).
  Openings(std::string_view text, const games::Game& game);

  // The opening of game pair `pair`: actions to apply from the initial state.
  std::vector<games::Action> for_pair(const games::Game& game, int pair, std::uint64_t seed) const;

  // As given ("", "random:8", the path): what records and tournament keys store.
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  int random_plies_ = 0;
  std::vector<std::vector<games::Action>> book_;
};

}  // namespace pz::arena
