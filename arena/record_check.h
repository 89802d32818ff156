// Whether a stored game (arena/tournament_db.h) is what a game of its rules could have
// recorded: a database edited or damaged after the fact is named, never replayed silently.
#pragma once

#include <string>

#include "arena/tournament_db.h"

namespace pz::arena {

// Empty when the record holds: its game can be made, every move is legal in turn, the
// position they reach is the recorded final state, and a game that ended by the rules
// ("game over") is over there with the recorded result. Otherwise what is wrong, first.
// A record through a simultaneous node is checked up to it (its joint moves are not
// stored in an order that replays).
std::string record_problem(const StoredGame& game);

}  // namespace pz::arena
