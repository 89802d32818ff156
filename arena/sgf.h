// Smart Game Format (SGF FF[4], https://www.red-bean.com/sgf/) for stored Go games, so that
// any Go GUI (Sabaki, GoGui, CGoban) can replay what a tournament played.
#pragma once

#include <string>

#include "arena/tournament_db.h"

namespace pz::arena {

// The game record as SGF: board size, komi, players, result (with the area score), date
// and every move. Throws util::UsageError when the stored game is not Go or its moves do
// not replay.
std::string go_game_to_sgf(const StoredGame& game);

}  // namespace pz::arena
