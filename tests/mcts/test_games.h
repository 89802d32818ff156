// Toy games that exercise the node kinds the board games lack, and small helpers shared by
// the search tests.
//
//  * DiceGame: seat 0 either stands (0.2 for seat 0) or rolls a loaded die (a chance node
//    with outcomes of probability 0.1 / 0.2 / 0.7 worth -1 / 0 / +0.6): rolling is worth
//    0.32 in expectation. Two players, zero-sum (seat 1 never moves).
//  * MatrixGame: one simultaneous move by two seats, a zero-sum 2×2 payoff matrix with a
//    dominant row and column, value 0.5 for seat 0 at the equilibrium (row 0, column 0).
//  * TreasureGame: one player, three steps of choosing 0..2; a score between 0 and 200 that
//    rewards an early sacrifice (step 1: action 0 scores 0 but unlocks 150 at step 2).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "games/game.h"
#include "mcts/node.h"

namespace pz::mcts::testing {

std::shared_ptr<const games::Game> dice_game();
std::shared_ptr<const games::Game> matrix_game();
std::shared_ptr<const games::Game> treasure_game();

// A state of a registered game after the given moves in its notation ("b2 a1 ...").
std::unique_ptr<games::State> play(const games::Game& game, const std::string& moves);

// Checks the tree's statistics after a search without the solver: in-flight counts back to
// zero, a decision or simultaneous node's visits equal 1 (its evaluation) plus its
// children's, a chance node's equal its children's, simultaneous marginals sum per seat.
// Returns "" when every node passes, else the first violation.
std::string check_tree(const Node& root, bool root_reused = false);

}  // namespace pz::mcts::testing
