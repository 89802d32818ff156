// Move records: the serialised form of games whose position is their move history (Hex,
// Havannah, Gomoku, ...), moves in the game's notation separated by whitespace.
#pragma once

#include <functional>
#include <string_view>

#include "games/game.h"

namespace pz::games {

// Calls `each(index, word)` for every whitespace-separated word, index counting from 1.
void for_each_word(std::string_view text, const std::function<void(int index, std::string_view word)>& each);

// Plays the record's moves on `state`. A move that cannot be read or is illegal throws
// util::UsageError naming the game, the record, the move's number and the reason.
void replay_move_record(State& state, std::string_view record);

}  // namespace pz::games
