// What the play page draws: a game's board as cells owned by seats, the move each cell
// plays, coordinates, and the last move — the "board" object of server/README.md.
//
// Boards are known for Connect Four (columns), Go (intersections), Hex (a rhombus of
// hexagons), tic-tac-toe, Othello and Gomoku (square cells: their cells are the games'
// board actions, numbered row-major from the top row, so the move of cell i is action i in
// the game's notation), and 2048, Snake and Tron (grids played with direction moves). Other
// games have no board view; the page shows their text.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>

#include "games/game.h"

namespace pz::server {

// Null when the game has no board view. `last` is the last action played (if any) and
// `legal` the moves of a human to move (empty otherwise), for `other_moves`.
nlohmann::json board_view(const games::State& state, std::optional<games::Action> last,
                          const std::vector<std::string>& legal);

// Whether board_view draws this game.
bool has_board_view(const games::Game& game);

}  // namespace pz::server
