#include "games/swap_rule.h"

#include <cassert>
#include <vector>

namespace pz::games {

std::string stamped_move_record(const std::int16_t* stamps, int cells, int moves, bool swapped,
                                const std::function<int(int)>& first_cell_after_swap,
                                const std::function<std::string(int, int)>& name) {
  std::vector<int> by_move(static_cast<std::size_t>(moves), -1);  // the cell each move placed
  for (int c = 0; c < cells; ++c) {
    if (stamps[c] != 0 && stamps[c] <= moves) by_move[static_cast<std::size_t>(stamps[c] - 1)] = c;
  }
  std::string out;
  out.reserve(static_cast<std::size_t>(moves) * 4);
  for (int k = 0; k < moves; ++k) {
    if (k > 0) out += ' ';
    if (swapped && k == 1) {
      out += SwapRule::kName;
      continue;
    }
    const int cell = swapped && k == 0 ? first_cell_after_swap(by_move[1]) : by_move[static_cast<std::size_t>(k)];
    assert(cell >= 0);
    out += name(k & 1, cell);
  }
  return out;
}

}  // namespace pz::games
