#include "arena/gtp.h"

#include <sstream>

#include "util/error.h"
#include "util/spec.h"

namespace pz::arena {

bool is_gtp_game(const games::Game& game) { return game.info().name == "go" || game.info().name == "hex"; }

void require_gtp_game(const games::Game& game, const std::string& who) {
  if (!is_gtp_game(game)) {
    throw util::UsageError(who + " speaks GTP for go and hex, not " + game.info().name);
  }
}

std::optional<games::Player> parse_gtp_colour(std::string_view text) {
  const std::string colour = util::to_lower(text);
  if (colour == "b" || colour == "black") return 0;
  if (colour == "w" || colour == "white") return 1;
  return std::nullopt;
}

std::string gtp_colour_name(games::Player seat) { return seat == 0 ? "black" : "white"; }

std::vector<std::string> gtp_moves(const games::State& state) {
  // Go and Hex serialise a state as its moves in their notation, separated by spaces.
  std::istringstream record(state.serialize());
  std::vector<std::string> moves;
  for (std::string move; record >> move;) moves.push_back(move);
  return moves;
}

}  // namespace pz::arena
