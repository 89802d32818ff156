#include "games/grid_directions.h"

#include <cassert>

#include "util/spec.h"

namespace pz::games {

int transform_direction(Symmetry symmetry, int direction) {
  const Cell c = transform_cell(symmetry, 3, 3, {1 + kDirectionDy[direction], 1 + kDirectionDx[direction]});
  for (int d = 0; d < kNumDirections; ++d) {
    if (c.y == 1 + kDirectionDy[d] && c.x == 1 + kDirectionDx[d]) return d;
  }
  assert(false);
  return direction;
}

std::optional<int> parse_direction(std::string_view text, std::string* error) {
  const std::string t = util::to_lower(util::trim(text));
  for (int d = 0; d < kNumDirections; ++d) {
    if (t == kDirectionNames[d] || (t.size() == 1 && t[0] == kDirectionNames[d][0])) return d;
  }
  if (error) *error = "'" + util::trim(text) + "' is not a move: expected up, right, down or left (or u, r, d, l)";
  return std::nullopt;
}

}  // namespace pz::games
