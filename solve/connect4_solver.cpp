#include "solve/connect4_solver.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "games/connect4.h"

namespace pz::solve {

namespace {

std::size_t prime_at_least(std::size_t n) {
  auto prime = [](std::size_t v) {
    if (v < 2) return false;
    for (std::size_t d = 2; d * d <= v; ++d)
      if (v % d == 0) return false;
    return true;
  };
  while (!prime(n)) ++n;
  return n;
}

}  // namespace

Connect4Solver::Connect4Solver(int width, int height, std::size_t table_entries)
    : width_(width), height_(height), cells_(width * height),
      table_entries_(prime_at_least(std::max<std::size_t>(table_entries, 1024))) {
  if (width < 1 || height < 1 || width * (height + 1) > 64)
    throw std::invalid_argument("connect4 solver: a " + std::to_string(width) + "x" + std::to_string(height) +
                                " board does not fit the bitboard (width x (height + 1) <= 64)");
  for (int c = 0; c < width; ++c) bottom_ |= std::uint64_t{1} << (c * (height + 1));
  board_ = bottom_ * ((std::uint64_t{1} << height) - 1);
  for (int i = 0; i < width; ++i) order_.push_back(width / 2 + (1 - 2 * (i % 2)) * (i + 1) / 2);
}

std::uint64_t Connect4Solver::column_mask(int column) const {
  return ((std::uint64_t{1} << height_) - 1) << (column * (height_ + 1));
}

// Empty cells that would complete four of `discs`: vertical, then for each of the horizontal
// and the two diagonal directions, a cell with three discs on one side, or two and one.
std::uint64_t Connect4Solver::winning_cells(std::uint64_t discs, std::uint64_t mask) const {
  std::uint64_t r = (discs << 1) & (discs << 2) & (discs << 3);
  for (int shift : {height_ + 1, height_, height_ + 2}) {
    std::uint64_t p = (discs << shift) & (discs << (2 * shift));
    r |= p & (discs << (3 * shift));
    r |= p & (discs >> shift);
    p = (discs >> shift) & (discs >> (2 * shift));
    r |= p & (discs << shift);
    r |= p & (discs >> (3 * shift));
  }
  return r & (board_ ^ mask);
}

// Moves after which the opponent cannot win at once: the only block when the opponent has
// one winning cell to play, none when it has two, and never the cell under one of them.
std::uint64_t Connect4Solver::non_losing_moves(const Position& p) const {
  std::uint64_t moves = possible(p);
  const std::uint64_t threats = winning_cells(p.current ^ p.mask, p.mask);
  const std::uint64_t forced = moves & threats;
  if (forced) {
    if (forced & (forced - 1)) return 0;
    moves = forced;
  }
  return moves & ~(threats >> 1);
}

Connect4Solver::Position Connect4Solver::played(const Position& p, std::uint64_t move) {
  return Position{p.current ^ p.mask, p.mask | move, p.moves + 1};
}

int Connect4Solver::negamax(const Position& p, int alpha, int beta) {
  if (budget_.spend()) return 0;
  const std::uint64_t next = non_losing_moves(p);
  if (!next) return -(cells_ - p.moves) / 2;  // every move lets the opponent win next
  if (p.moves >= cells_ - 2) return 0;         // the last two discs cannot make a four here
  const int min_score = -(cells_ - 2 - p.moves) / 2;  // the opponent cannot win on its next move
  if (alpha < min_score && (alpha = min_score) >= beta) return alpha;
  int max_score = (cells_ - 1 - p.moves) / 2;  // this player cannot win on this move
  const std::uint64_t key = p.current + p.mask;
  const std::size_t slot = static_cast<std::size_t>(key % keys_.size());
  const int table_base = -cells_ / 2 - 1;  // below every score: a stored value is ≥ 1 (0 = empty)
  if (keys_[slot] == key && values_[slot]) max_score = values_[slot] + table_base;
  if (beta > max_score && alpha >= (beta = max_score)) return beta;
  // Order: more winning cells after the move first; the centre first among equals.
  std::uint64_t moves[64];
  int threat_counts[64];
  int n = 0;
  for (int column : order_) {
    const std::uint64_t move = next & column_mask(column);
    if (!move) continue;
    const int threats = std::popcount(winning_cells(p.current | move, p.mask | move));
    int at = n++;
    for (; at > 0 && threat_counts[at - 1] < threats; --at) moves[at] = moves[at - 1], threat_counts[at] = threat_counts[at - 1];
    moves[at] = move;
    threat_counts[at] = threats;
  }
  for (int i = 0; i < n; ++i) {
    const int score = -negamax(played(p, moves[i]), -beta, -alpha);
    if (budget_.exhausted()) return 0;
    if (score >= beta) return score;
    alpha = std::max(alpha, score);
  }
  keys_[slot] = key;
  values_[slot] = static_cast<std::int8_t>(alpha - table_base);
  return alpha;
}

// Bisects the score interval with null-window searches (toward 0 first: most positions
// are near it). `weak`: only win, draw or loss.
int Connect4Solver::solve_position(const Position& p, bool weak) {
  if (can_win_next(p)) return (cells_ + 1 - p.moves) / 2;
  int lo = -(cells_ - p.moves) / 2, hi = (cells_ + 1 - p.moves) / 2;
  if (weak) lo = -1, hi = 1;
  while (lo < hi && !budget_.exhausted()) {
    int mid = lo + (hi - lo) / 2;
    if (mid <= 0 && lo / 2 < mid) mid = lo / 2;
    else if (mid >= 0 && hi / 2 > mid) mid = hi / 2;
    const int r = negamax(p, mid, mid + 1);
    if (r <= mid) hi = r;
    else lo = r;
  }
  return lo;
}

int Connect4Solver::plies_for_score(int score, int moves) const {
  if (score == 0) return cells_ - moves;
  // The winner's last disc is disc n + 1, where (cells + 1 − n) / 2 = |score| and n has the
  // parity of the winner's turns.
  const int winner_turn = score > 0 ? moves : moves + 1;
  int n = cells_ + 1 - 2 * std::abs(score);
  if ((n - winner_turn) % 2 != 0) --n;
  return n + 1 - moves;
}

Solution Connect4Solver::solve(const games::State& state, const SolveOptions& options) {
  const auto* c4 = dynamic_cast<const games::Connect4State*>(&state);
  if (!c4) throw std::invalid_argument("connect4 solver: not a Connect Four position");
  if (state.current_player() < 0) throw std::invalid_argument("connect4 solver: the game is over");
  if (keys_.empty()) keys_.assign(table_entries_, 0), values_.assign(table_entries_, 0);
  budget_.start(options);
  // The position from the board: the mover's discs and every disc.
  const int mover = state.current_player();
  Position p;
  p.moves = state.move_number();
  for (int c = 0; c < width_; ++c)
    for (int r = 0; r < height_; ++r) {
      const int owner = c4->owner(c, r);
      if (owner < 0) continue;
      const std::uint64_t bit = std::uint64_t{1} << (c * (height_ + 1) + r);
      p.mask |= bit;
      if (owner == mover) p.current |= bit;
    }
  Solution s;
  const bool weak = !options.distances;
  const int score = solve_position(p, weak);
  s.value = (score > 0) - (score < 0);
  if (!weak) s.plies = plies_for_score(score, p.moves);
  if (options.each_move && !budget_.exhausted()) {
    std::vector<games::Action> legal;
    state.legal_actions(legal);
    for (games::Action column : legal) {
      const std::uint64_t move = (p.mask + (std::uint64_t{1} << (column * (height_ + 1)))) & column_mask(column);
      MoveValue m;
      m.action = column;
      if (winning_cells(p.current, p.mask) & move) {
        m.value = 1;
        if (!weak) m.plies = 1;
      } else if (p.moves + 1 == cells_) {
        m.value = 0;
        if (!weak) m.plies = 1;
      } else {
        const Position child = played(p, move);
        const int child_score = solve_position(child, weak);
        if (budget_.exhausted()) break;
        m.value = (child_score < 0) - (child_score > 0);
        if (!weak) m.plies = 1 + plies_for_score(child_score, child.moves);
      }
      s.moves.push_back(m);
    }
  }
  budget_.finish(s);
  if (!s.complete) s.plies.reset();
  return s;
}

}  // namespace pz::solve
