// The swap (pie) rule of the connection games, Hex and Havannah: with it on, the second
// player's first move may be "swap", taking over the first stone instead of placing one,
// so the first player has no reason to open with the strongest cell. Its action is one
// past the board's cells, and board symmetries leave it in place.
//
// Both games serialise a game as its moves, and both stamp each stone with its move index
// + 1 (after a swap the one stone carries stamp 2); stamped_move_record() writes the record
// from the stamps.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "games/game.h"

namespace pz::games {

struct SwapRule {
  static constexpr std::string_view kName = "swap";

  bool allowed = true;  // the game's "swap" option
  Action action = 0;    // one past the last cell

  // Swap is legal now: the second move of a game still going.
  bool available(int moves, bool over) const { return allowed && moves == 1 && !over; }
  // Why "swap" is not legal when it is not available.
  std::string why_unavailable() const {
    return allowed ? "swap is only allowed as the second move" : "swap is not allowed: the swap rule is off (swap=false)";
  }
  // The swap's action for lower-case, trimmed `text` "swap", else nullopt.
  std::optional<Action> parse(std::string_view text) const {
    return text == kName ? std::optional<Action>(action) : std::nullopt;
  }
  // Whether the Zobrist key "swap still to come" changes with the move after `moves`: it is
  // in the hash until the second move is played.
  bool key_changes(int moves) const { return allowed && (moves == 0 || moves == 1); }
};

// The move record of a stone game whose stone on cell c carries stamps[c] = its move
// index + 1 (0: empty), over `cells` cells and `moves` moves. After a swap the second move
// is written "swap", and the first move's cell is `first_cell_after_swap(c)` where c holds
// stamp 2. `name(player, cell)` writes a move.
std::string stamped_move_record(const std::int16_t* stamps, int cells, int moves, bool swapped,
                                const std::function<int(int)>& first_cell_after_swap,
                                const std::function<std::string(int, int)>& name);

}  // namespace pz::games
