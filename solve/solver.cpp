#include "solve/solver.h"

#include <stdexcept>

#include "games/connect4.h"
#include "games/hex.h"
#include "solve/connect4_solver.h"
#include "solve/hex_solver.h"
#include "solve/minimax_solver.h"
#include "solve/othello_solver.h"

namespace pz::solve {

std::unique_ptr<Solver> make_solver(const games::Game& game, std::string* why) {
  try {
    if (const auto* c4 = dynamic_cast<const games::Connect4Game*>(&game))
      return std::make_unique<Connect4Solver>(c4->width(), c4->height());
    // Hex boards beyond the bitboards keep the generic solver, which still solves endgames.
    if (const auto* hex = dynamic_cast<const games::HexGame*>(&game); hex && hex->size() <= HexBitboard::kMaxSize)
      return std::make_unique<HexSolver>(hex->size());
    if (game.info().name == "othello" && game.info().num_distinct_actions == 65) return std::make_unique<OthelloSolver>();
    return std::make_unique<MinimaxSolver>(game);
  } catch (const std::invalid_argument& e) {
    if (why) *why = e.what();
    return nullptr;
  }
}

const char* value_name(int value) { return value > 0 ? "win" : value < 0 ? "loss" : "draw"; }

}  // namespace pz::solve
