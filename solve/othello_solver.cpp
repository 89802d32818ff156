#include "solve/othello_solver.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "games/othello.h"
#include "games/othello_bitboard.h"

namespace pz::solve {

namespace {

using games::othello8::flips8;
using games::othello8::moves8;

constexpr std::uint64_t kCorners = 0x8100000000000081ULL;
constexpr int kOrderedAbove = 6;  // empty squares above which moves are ordered

int sign(int x) { return (x > 0) - (x < 0); }

}  // namespace

OthelloSolver::OthelloSolver(std::size_t table_entries) : table_entries_(std::max<std::size_t>(table_entries, 1024)) {}

int OthelloSolver::negamax(std::uint64_t own, std::uint64_t opp, int alpha, int beta, bool passed) {
  if (budget_.spend()) return 0;
  std::uint64_t moves = moves8(own, opp);
  if (!moves) {
    if (passed) return sign(std::popcount(own) - std::popcount(opp));  // neither can move
    return -negamax(opp, own, -beta, -alpha, true);
  }
  const std::uint64_t empty = ~(own | opp);
  const int empties = std::popcount(empty);
  Entry* entry = nullptr;
  if (empties > kOrderedAbove) {
    entry = &table_[static_cast<std::size_t>((own * 0x9E3779B97F4A7C15ULL ^ opp * 0xC2B2AE3D27D4EB4FULL) >> 20) % table_.size()];
    if (entry->own == own && entry->opp == opp) {
      if (entry->lower >= beta) return entry->lower;
      if (entry->upper <= alpha) return entry->upper;
      alpha = std::max(alpha, static_cast<int>(entry->lower));
      beta = std::min(beta, static_cast<int>(entry->upper));
    }
  }
  const int alpha0 = alpha;
  // Fastest first: the moves that leave the opponent the fewest replies, corners first.
  int cells[32];
  int keys[32];
  int n = 0;
  for (std::uint64_t m = moves; m; m &= m - 1) {
    const int cell = std::countr_zero(m);
    int key = 0;
    if (empties > kOrderedAbove) {
      const std::uint64_t flipped = flips8(cell, own, opp);
      const std::uint64_t bit = std::uint64_t{1} << cell;
      key = std::popcount(moves8(opp & ~flipped, own | flipped | bit)) * 2 - ((bit & kCorners) ? 1 : 0);
    }
    int at = n++;
    for (; at > 0 && keys[at - 1] > key; --at) cells[at] = cells[at - 1], keys[at] = keys[at - 1];
    cells[at] = cell;
    keys[at] = key;
  }
  int best = -2;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t flipped = flips8(cells[i], own, opp);
    const std::uint64_t bit = std::uint64_t{1} << cells[i];
    const int v = -negamax(opp & ~flipped, own | flipped | bit, -beta, -alpha, false);
    if (budget_.exhausted()) return 0;
    best = std::max(best, v);
    alpha = std::max(alpha, v);
    if (alpha >= beta) break;
  }
  if (entry) {
    if (!(entry->own == own && entry->opp == opp)) *entry = Entry{own, opp, -2, 2};
    if (best > alpha0 && best < beta) entry->lower = entry->upper = static_cast<std::int8_t>(best);
    else if (best >= beta) entry->lower = static_cast<std::int8_t>(best);
    else entry->upper = static_cast<std::int8_t>(best);
  }
  return best;
}

Solution OthelloSolver::solve(const games::State& state, const SolveOptions& options) {
  const auto* othello = dynamic_cast<const games::OthelloState*>(&state);
  if (!othello || state.game().info().num_distinct_actions != 65)
    throw std::invalid_argument("othello solver: not an 8x8 Othello position");
  const games::Player mover = state.current_player();
  if (mover < 0) throw std::invalid_argument("othello solver: the game is over");
  std::uint64_t own = 0, opp = 0;
  for (int cell = 0; cell < 64; ++cell) {
    const int owner = othello->owner(cell);
    if (owner == mover) own |= std::uint64_t{1} << cell;
    else if (owner >= 0) opp |= std::uint64_t{1} << cell;
  }
  if (table_.empty()) table_.resize(table_entries_);
  budget_.start(options);
  Solution s;
  s.value = negamax(own, opp, -1, 1, false);
  if (options.each_move && !budget_.exhausted()) {
    std::vector<games::Action> legal;
    state.legal_actions(legal);
    for (games::Action a : legal) {
      MoveValue m;
      m.action = a;
      if (a >= 64) {
        m.value = -negamax(opp, own, -1, 1, true);  // the pass
      } else {
        const std::uint64_t flipped = flips8(a, own, opp);
        m.value = -negamax(opp & ~flipped, own | flipped | (std::uint64_t{1} << a), -1, 1, false);
      }
      if (budget_.exhausted()) break;
      s.moves.push_back(m);
    }
  }
  budget_.finish(s);
  return s;
}

}  // namespace pz::solve
