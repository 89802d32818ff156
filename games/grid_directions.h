// The four moves of the grid games that steer (2048, Snake, Tron): actions 0..3 are up,
// right, down and left, written as those words or their first letters.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "games/symmetry.h"

namespace pz::games {

inline constexpr int kNumDirections = 4;
inline constexpr const char* kDirectionNames[kNumDirections] = {"up", "right", "down", "left"};
// The step of each direction: rows grow downwards.
inline constexpr int kDirectionDy[kNumDirections] = {-1, 0, 1, 0};
inline constexpr int kDirectionDx[kNumDirections] = {0, 1, 0, -1};

// The direction a move becomes when the board is transformed: the image of the step
// vector, read off a 3×3 grid around its centre (every symmetry fixes the centre).
int transform_direction(Symmetry symmetry, int direction);

// "up", "right", "down", "left" or u, r, d, l, in any case, spaces around ignored. nullopt
// with the reason in `error` otherwise.
std::optional<int> parse_direction(std::string_view text, std::string* error);

}  // namespace pz::games
