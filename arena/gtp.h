// The vocabulary both sides of the Go Text Protocol (GTP v2) share here: polyzero as an
// engine for GUIs and tools (arena/gtp_engine.h) and external engines as players
// (arena/gtp_player.h).
//
// GTP is spoken for Go and Hex, and by the gtp player for Othello too (arena/gtp_player.h).
// Its two colours are the games' seats: black moves first (seat 0), white second (seat 1).
// Colours are read case-insensitively as b, w, black or white. Vertices are the games' own
// notation: Go's is GTP's ("d4", columns without 'i', row 1 at the bottom, "pass"); Hex's
// is "c3" with a1 the top-left cell, and "swap"; Othello's is "d3" with a1 the top-left
// cell, as GRhino's gtp-rhino writes it, and "pass".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "games/game.h"

namespace pz::arena {

// Whether GTP is spoken for this game (Go and Hex).
bool is_gtp_game(const games::Game& game);
// Throws util::UsageError naming the games GTP is spoken for; `who` says who asked
// ("polyzero gtp", "player 'gtp'").
void require_gtp_game(const games::Game& game, const std::string& who);

// The seat a GTP colour names, or nullopt.
std::optional<games::Player> parse_gtp_colour(std::string_view text);
// "black" or "white".
std::string gtp_colour_name(games::Player seat);

// The moves that led to `state` from the initial position, in GTP vertices, in order; move
// i was played by seat i % 2 (true of Go and Hex, swap included).
std::vector<std::string> gtp_moves(const games::State& state);

}  // namespace pz::arena
