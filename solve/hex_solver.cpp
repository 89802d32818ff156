#include "solve/hex_solver.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "games/hex.h"

namespace pz::solve {

namespace {

constexpr std::uint8_t kUsed = 1, kWhiteToMove = 2, kMoverWins = 4;

// Twice the hex distance of `cell` from the centre of a size×size rhombus (axial
// coordinates: x and y, the third being −x−y).
int doubled_centre_distance(int cell, int size) {
  const int dx = 2 * (cell % size) - (size - 1), dy = 2 * (cell / size) - (size - 1);
  return (std::abs(dx) + std::abs(dy) + std::abs(dx + dy)) / 2;
}

std::uint64_t mix(std::uint64_t x) {  // the splitmix64 finaliser
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

HexBitboard checked_board(int size) {
  if (size < 1 || size > HexBitboard::kMaxSize)
    throw std::invalid_argument("hex solver: a " + std::to_string(size) + "x" + std::to_string(size) +
                                " board does not fit its 64-bit cell sets (at most 8x8)");
  return HexBitboard(size);
}

}  // namespace

HexSolver::HexSolver(int size, std::size_t table_entries)
    : board_(checked_board(size)), table_entries_(std::bit_ceil(std::max<std::size_t>(table_entries, 2))) {
  for (int c = 0; c < board_.cells(); ++c) centre_order_.push_back(c);
  std::stable_sort(centre_order_.begin(), centre_order_.end(), [&](int a, int b) {
    return doubled_centre_distance(a, size) < doubled_centre_distance(b, size);
  });
}

std::size_t HexSolver::bucket(const Position& p) const {
  const std::uint64_t key = mix(p.stones[0] * 0x9E3779B97F4A7C15ULL ^ mix(p.stones[1] + static_cast<Cells>(p.mover)));
  return static_cast<std::size_t>(key) & (table_entries_ - 2);  // an even index: the bucket's first entry
}

const HexSolver::Entry* HexSolver::probe(const Position& p, std::size_t slot) const {
  const std::uint8_t mover = p.mover ? kWhiteToMove : 0;
  const Entry* e = &table_[slot];
  for (int i = 0; i < 2; ++i, ++e)
    if ((e->flags & (kUsed | kWhiteToMove)) == (kUsed | mover) && e->black == p.stones[0] && e->white == p.stones[1])
      return e;
  return nullptr;
}

// The first entry of a bucket keeps the costlier result, the second the newest.
void HexSolver::store(const Position& p, std::size_t slot, bool win, Cells proof, std::uint64_t nodes) {
  Entry entry;
  entry.black = p.stones[0];
  entry.white = p.stones[1];
  entry.proof = proof;
  entry.flags = static_cast<std::uint8_t>(kUsed | (p.mover ? kWhiteToMove : 0) | (win ? kMoverWins : 0));
  entry.cost = static_cast<std::uint8_t>(std::bit_width(nodes));
  Entry* first = &table_[slot];
  if (first->cost <= entry.cost) first[1] = first[0], first[0] = entry;
  else first[1] = entry;
}

// `candidates` in search order into `out`: nearest the centre first. Returns how many.
int HexSolver::ordered_moves(Cells candidates, int* out) const {
  int count = 0;
  for (int cell : centre_order_)
    if (candidates & cell_bit(cell)) out[count++] = cell;
  return count;
}

HexSolver::Result HexSolver::search(const Position& p) {
  if (budget_.spend()) return {};
  const std::uint64_t nodes_before = nodes_++;
  // The table holds the smaller of the position and its half turn.
  Position key = p;
  key.stones[0] = board_.half_turn(p.stones[0]);
  key.stones[1] = board_.half_turn(p.stones[1]);
  const bool turned = std::pair(key.stones[0], key.stones[1]) < std::pair(p.stones[0], p.stones[1]);
  if (!turned) key = p;
  const auto as_key = [&](Cells set) { return turned ? board_.half_turn(set) : set; };  // its own inverse
  const std::size_t slot = bucket(key);
  __builtin_prefetch(&table_[slot]);
  const int mover = p.mover, opponent = 1 - p.mover;
  const Cells own = p.stones[mover], theirs = p.stones[opponent], empty = p.empty(board_.all());
  if (const Cells wins = board_.winning_cells(own, empty, mover))
    return {true, board_.win_carrier(own, mover, std::countr_zero(wins))};
  if (const Cells connection = board_.bridge_connection(own, empty, mover)) return {true, connection};
  if (const Entry* e = probe(key, slot)) return {(e->flags & kMoverWins) != 0, as_key(e->proof)};
  if (const Cells connection = board_.bridge_connection(theirs, empty, opponent)) return {false, connection};

  // The opponent's threats rule moves out, and their carriers prove that those lose: two
  // winning cells lose, one must be blocked; without one, each cell that would give the
  // opponent a bridge connection confines the mover to that connection's cells.
  Cells must_play = empty, proof = 0;
  if (const Cells threats = board_.winning_cells(theirs, empty, opponent)) {
    const int first = std::countr_zero(threats);
    proof = board_.win_carrier(theirs, opponent, first);
    if (const Cells others = threats & (threats - 1)) {
      const Result loss{false, proof | board_.win_carrier(theirs, opponent, std::countr_zero(others))};
      store(key, slot, loss.win, as_key(loss.proof), 1);
      return loss;
    }
    must_play = cell_bit(first);
  } else {
    for (Cells rest = empty; rest && must_play; rest &= rest - 1) {
      const Cells cell = lowest_cell(rest);
      if (const Cells carrier = board_.bridge_connection(theirs | cell, empty & ~cell, opponent)) {
        must_play &= carrier;
        proof |= carrier;
      }
    }
    if (!must_play) {
      const Result loss{false, proof};
      store(key, slot, loss.win, as_key(loss.proof), 1);
      return loss;
    }
  }

  int moves[64];
  const int count = ordered_moves(must_play, moves);
  for (int i = 0; i < count; ++i) {
    const int move = moves[i];
    if (!(must_play & cell_bit(move))) continue;  // already proved to lose
    Position child = p;
    child.stones[mover] |= cell_bit(move);
    child.mover = opponent;
    const Result reply = search(child);
    if (budget_.exhausted()) return {};
    if (!reply.win) {
      const Result win{true, reply.proof | cell_bit(move)};
      store(key, slot, true, as_key(win.proof), nodes_ - nodes_before);
      return win;
    }
    proof |= reply.proof;
    must_play &= reply.proof;
  }
  const Result loss{false, proof};
  store(key, slot, false, as_key(loss.proof), nodes_ - nodes_before);
  return loss;
}

int HexSolver::move_value(const Position& p, Stage stage, int move) {
  if (move == board_.cells()) {  // the swap: White's stone on the mirror image of Black's
    Position swapped;
    swapped.stones[1] = cell_bit(board_.transposed(std::countr_zero(p.stones[0])));
    swapped.mover = 0;
    return -stage_value(swapped, Stage::kPlain);
  }
  const Cells empty = p.empty(board_.all());
  if (board_.winning_cells(p.stones[p.mover], empty, p.mover) & cell_bit(move)) return 1;
  Position child = p;
  child.stones[p.mover] |= cell_bit(move);
  child.mover = 1 - p.mover;
  return -stage_value(child, stage == Stage::kFirstMoveBeforeSwap ? Stage::kSwapAvailable : Stage::kPlain);
}

int HexSolver::stage_value(const Position& p, Stage stage) {
  if (stage == Stage::kPlain) return search(p).win ? 1 : -1;
  // The swap first: it wins exactly when Black's stone would win for Black, about half the time.
  if (stage == Stage::kSwapAvailable && move_value(p, stage, board_.cells()) > 0) return 1;
  const Cells empty = p.empty(board_.all());
  for (int cell : centre_order_)
    if ((empty & cell_bit(cell)) && (move_value(p, stage, cell) > 0 || budget_.exhausted())) return 1;
  return -1;
}

Solution HexSolver::solve(const games::State& state, const SolveOptions& options) {
  const auto* hex = dynamic_cast<const games::HexState*>(&state);
  if (!hex) throw std::invalid_argument("hex solver: not a Hex position");
  const auto& game = static_cast<const games::HexGame&>(state.game());
  if (game.size() != board_.size())
    throw std::invalid_argument("hex solver: built for " + std::to_string(board_.size()) + "x" +
                                std::to_string(board_.size()) + ", the position is " + std::to_string(game.size()) +
                                "x" + std::to_string(game.size()));
  if (state.current_player() < 0) throw std::invalid_argument("hex solver: the game is over");
  if (table_.empty()) table_.assign(table_entries_, Entry{});
  budget_.start(options);
  nodes_ = 0;

  Position p;
  for (int c = 0; c < board_.cells(); ++c)
    if (hex->owner(c) >= 0) p.stones[hex->owner(c)] |= cell_bit(c);
  p.mover = state.current_player();
  const Stage stage = hex->swap_available()                               ? Stage::kSwapAvailable
                      : state.move_number() == 0 && game.swap_allowed() ? Stage::kFirstMoveBeforeSwap
                                                                          : Stage::kPlain;
  Solution s;
  if (options.each_move) {
    s.value = -1;
    for (games::Action action : state.legal_actions()) {
      MoveValue m;
      m.action = action;
      m.value = move_value(p, stage, action);
      if (budget_.exhausted()) break;
      s.value = std::max(s.value, m.value);
      s.moves.push_back(m);
    }
  } else {
    s.value = stage_value(p, stage);
  }
  budget_.finish(s);
  return s;
}

}  // namespace pz::solve
