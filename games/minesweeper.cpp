#include "games/minesweeper.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "util/error.h"

namespace pz::games {
namespace {

using Bits = MinesweeperGame::Bits;

GameInfo make_info(int rows, int columns) {
  GameInfo info;
  info.name = "minesweeper";
  info.long_name = "Minesweeper";
  info.family = Family::kStrategy;
  info.num_players = 1;
  info.num_distinct_actions = rows * columns;
  info.max_chance_outcomes = rows * columns;
  info.observation_shape = {12, rows, columns};
  info.policy_shape = {1, rows, columns};
  info.zero_sum = false;
  info.perfect_information = false;
  info.min_return = -1;
  info.max_return = 1;
  // One chance node per mine, and at most one click per safe cell: every click but a losing
  // one reveals at least one new safe cell, and a losing click needs one left unrevealed.
  info.max_game_length = rows * columns;
  return info;
}

std::vector<Symmetry> make_symmetries(int rows, int columns) {
  std::vector<Symmetry> out;
  for (int s = 0; s < kNumSymmetries; ++s) {
    if (symmetry_fits(static_cast<Symmetry>(s), rows, columns)) out.push_back(static_cast<Symmetry>(s));
  }
  return out;
}

std::string column_name(int x) {
  if (x < 26) return std::string(1, static_cast<char>('a' + x));
  return std::string(1, static_cast<char>('a' + x / 26 - 1)) + static_cast<char>('a' + x % 26);
}

// C(n, k) for every k, as long doubles (C(720, 360) is about 1e215).
std::vector<long double> binomials(int n) {
  std::vector<long double> c(static_cast<size_t>(n) + 1);
  c[0] = 1;
  for (int k = 0; k < n; ++k) c[static_cast<size_t>(k) + 1] = c[static_cast<size_t>(k)] * (n - k) / (k + 1);
  return c;
}

// Index drawn with probability proportional to weights[i].
int draw(const std::vector<long double>& weights, util::Rng& rng) {
  long double total = 0;
  for (long double w : weights) total += w;
  long double u = static_cast<long double>(rng.uniform()) * total;
  int last = -1;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] <= 0) continue;
    last = static_cast<int>(i);
    if (u < weights[i]) return last;
    u -= weights[i];
  }
  return last;
}

// The constraint system of a position: frontier variables and the revealed numbers on them.
struct Frontier {
  struct Constraint {
    int target = 0, count = 0;
    int vars[8];
  };
  std::vector<int> cells;                    // frontier variable -> cell
  std::vector<Constraint> constraints;
  std::vector<std::vector<int>> var_constraints;  // variable -> constraints touching it
  std::vector<int> interior;                 // unrevealed cells next to no revealed number
};

// Counts the consistent assignments of one component by number of mines, by a search over
// its variables (in `order`) memoised on the running sums of the numbers that are partly
// assigned: the rest of the search depends on nothing else, so a long frontier costs about
// its length times the number of distinct partial sums, not the number of assignments. The
// table then lets sample() draw an assignment with a given number of mines exactly uniformly.
class ComponentCounter {
 public:
  ComponentCounter(const Frontier& f, const std::vector<int>& order, std::int64_t budget, int max_mines)
      : f_(f), order_(order), budget_(budget), max_mines_(max_mines), sum_(f.constraints.size(), 0),
        open_count_(f.constraints.size(), 0) {
    const size_t n = order.size();
    std::vector<int> position(f.cells.size(), -1);
    for (size_t i = 0; i < n; ++i) position[static_cast<size_t>(order[i])] = static_cast<int>(i);
    open_.resize(n + 1);
    memo_.resize(n + 1);
    std::vector<char> mine(f.constraints.size(), 0);
    for (int v : order) {
      for (int c : f.var_constraints[static_cast<size_t>(v)]) mine[static_cast<size_t>(c)] = 1;
    }
    for (size_t c = 0; c < f.constraints.size(); ++c) {
      if (!mine[c]) continue;
      const auto& con = f.constraints[c];
      int first = static_cast<int>(n), last = -1;
      for (int i = 0; i < con.count; ++i) {
        first = std::min(first, position[static_cast<size_t>(con.vars[i])]);
        last = std::max(last, position[static_cast<size_t>(con.vars[i])]);
      }
      open_count_[c] = con.count;
      for (int d = first + 1; d <= last; ++d) open_[static_cast<size_t>(d)].push_back(static_cast<int>(c));
    }
  }

  // Fills the table; false when it would take more than the budget (or when more numbers
  // are half-filled at once than a key holds).
  bool run() {
    for (const auto& open : open_) {
      if (open.size() > kMaxOpen) return false;
    }
    root_ = solve(0);
    return !aborted_;
  }
  // counts()[m]: the number of consistent assignments with m mines.
  std::vector<double> counts() const {
    const Counts& root = pool_[static_cast<size_t>(root_)];
    std::vector<double> out(static_cast<size_t>(root.offset), 0.0);
    out.insert(out.end(), root.c.begin(), root.c.end());
    if (out.empty()) out.push_back(0.0);
    return out;
  }
  std::int64_t work() const { return work_; }

  // Draws an assignment with `mines` mines uniformly (values by position in `order`).
  std::vector<std::uint8_t> sample(int mines, util::Rng& rng) {
    const size_t n = order_.size();
    std::vector<std::uint8_t> values(n);
    int left = mines;
    for (size_t i = 0; i < n; ++i) {
      double weight[2] = {0, 0};
      for (int value = 0; value <= std::min(1, left); ++value) {
        if (assign(i, value)) {
          const Counts& next = pool_[static_cast<size_t>(lookup(i + 1))];
          const int at = left - value - next.offset;
          if (at >= 0 && static_cast<size_t>(at) < next.c.size()) weight[value] = next.c[static_cast<size_t>(at)];
        }
        unassign(i, value);
      }
      const int value = rng.uniform() * (weight[0] + weight[1]) < weight[0] ? 0 : 1;
      assign(i, value);
      values[i] = static_cast<std::uint8_t>(value);
      left -= value;
    }
    for (size_t i = n; i-- > 0;) unassign(i, values[i]);
    return values;
  }

 private:
  // Applies value to the variable at position i; false when a number is then broken.
  bool assign(size_t i, int value) {
    bool ok = true;
    for (int c : f_.var_constraints[static_cast<size_t>(order_[i])]) {
      sum_[static_cast<size_t>(c)] += value;
      --open_count_[static_cast<size_t>(c)];
      const int target = f_.constraints[static_cast<size_t>(c)].target;
      if (sum_[static_cast<size_t>(c)] > target || sum_[static_cast<size_t>(c)] + open_count_[static_cast<size_t>(c)] < target) ok = false;
    }
    return ok;
  }
  void unassign(size_t i, int value) {
    for (int c : f_.var_constraints[static_cast<size_t>(order_[i])]) {
      sum_[static_cast<size_t>(c)] -= value;
      ++open_count_[static_cast<size_t>(c)];
    }
  }
  // The running sums of the numbers open at `depth`, 4 bits each (a sum is at most 8).
  struct Key {
    std::array<std::uint64_t, 4> w{};
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      std::uint64_t h = 0x9E3779B97F4A7C15ULL;
      for (std::uint64_t x : k.w) h = (h ^ x) * 0xBF58476D1CE4E5B9ULL, h ^= h >> 29;
      return static_cast<size_t>(h);
    }
  };
  static constexpr size_t kMaxOpen = 64;
  Key key(size_t depth) const {
    Key k;
    const auto& open = open_[depth];
    for (size_t i = 0; i < open.size(); ++i) {
      k.w[i >> 4] |= static_cast<std::uint64_t>(sum_[static_cast<size_t>(open[i])]) << (4 * (i & 15));
    }
    return k;
  }
  int lookup(size_t depth) const { return memo_[depth].at(key(depth)); }

  int solve(size_t depth) {
    const Key k = key(depth);
    auto it = memo_[depth].find(k);
    if (it != memo_[depth].end()) return it->second;
    const size_t n = order_.size();
    Counts trimmed;
    if (depth == n) {
      trimmed.c.assign(1, 1.0);
    } else {
      // Children first (they may grow the pool), then their counts shifted by the value.
      int child[2] = {-1, -1};
      for (int value = 0; value < 2 && !aborted_; ++value) {
        if (assign(depth, value)) child[value] = solve(depth + 1);
        unassign(depth, value);
      }
      int lo = max_mines_ + 1, hi = -1;  // the range of mine counts that occur, [lo, hi]
      for (int value = 0; value < 2; ++value) {
        if (child[value] < 0) continue;
        const Counts& counts = pool_[static_cast<size_t>(child[value])];
        if (counts.c.empty()) continue;
        lo = std::min(lo, counts.offset + value);
        hi = std::max(hi, std::min(max_mines_, counts.offset + value + static_cast<int>(counts.c.size()) - 1));
      }
      if (hi >= lo) {
        trimmed.offset = lo;
        trimmed.c.assign(static_cast<size_t>(hi - lo + 1), 0.0);
        for (int value = 0; value < 2; ++value) {
          if (child[value] < 0) continue;
          const Counts& counts = pool_[static_cast<size_t>(child[value])];
          for (size_t m = 0; m < counts.c.size(); ++m) {
            const int at = counts.offset + value + static_cast<int>(m) - lo;
            if (at <= hi - lo) trimmed.c[static_cast<size_t>(at)] += counts.c[m];
          }
        }
      }
    }
    work_ += 1 + static_cast<std::int64_t>(trimmed.c.size());
    if (work_ > budget_) aborted_ = true;
    pool_.push_back(std::move(trimmed));
    const int index = static_cast<int>(pool_.size()) - 1;
    memo_[depth].emplace(k, index);
    return index;
  }

  const Frontier& f_;
  const std::vector<int>& order_;
  std::int64_t budget_, work_ = 0;
  int max_mines_;
  bool aborted_ = false;
  int root_ = -1;
  std::vector<int> sum_, open_count_;
  std::vector<std::vector<int>> open_;  // by depth: constraints with variables on both sides
  struct Counts {
    int offset = 0;         // c[i] counts the assignments with offset + i mines
    std::vector<double> c;
  };
  std::vector<std::unordered_map<Key, int, KeyHash>> memo_;
  std::vector<Counts> pool_;
};

// Finds one consistent assignment of a component by backtracking with values tried in
// random order (the Markov chain's start).
class RandomSearch {
 public:
  RandomSearch(const Frontier& f, const std::vector<int>& order, util::Rng& rng, std::int64_t budget)
      : f_(f), order_(order), rng_(rng), budget_(budget), sum_(f.constraints.size(), 0), open_(f.constraints.size(), 0),
        values_(order.size(), 0) {
    for (size_t c = 0; c < f.constraints.size(); ++c) open_[c] = f.constraints[c].count;
  }
  bool find(std::vector<std::uint8_t>& out) {
    if (!dfs(0)) return false;
    out = values_;
    return true;
  }

 private:
  bool dfs(size_t depth) {
    if (depth == order_.size()) return true;
    if (++nodes_ > budget_) return false;
    const int v = order_[depth], first = static_cast<int>(rng_.below(2));
    for (int i = 0; i < 2; ++i) {
      const int value = first ^ i;
      bool ok = true;
      for (int c : f_.var_constraints[static_cast<size_t>(v)]) {
        sum_[static_cast<size_t>(c)] += value;
        --open_[static_cast<size_t>(c)];
        const int target = f_.constraints[static_cast<size_t>(c)].target;
        if (sum_[static_cast<size_t>(c)] > target || sum_[static_cast<size_t>(c)] + open_[static_cast<size_t>(c)] < target) ok = false;
      }
      values_[depth] = static_cast<std::uint8_t>(value);
      if (ok && dfs(depth + 1)) return true;
      for (int c : f_.var_constraints[static_cast<size_t>(v)]) {
        sum_[static_cast<size_t>(c)] -= value;
        ++open_[static_cast<size_t>(c)];
      }
      if (nodes_ > budget_) return false;
    }
    return false;
  }

  const Frontier& f_;
  const std::vector<int>& order_;
  util::Rng& rng_;
  std::int64_t budget_, nodes_ = 0;
  std::vector<int> sum_, open_;
  std::vector<std::uint8_t> values_;
};

}  // namespace

// ---------------------------------------------------------------------------------------
// Game

MinesweeperGame::MinesweeperGame(util::Spec spec, int rows, int columns, int mines)
    : Game(make_info(rows, columns), std::move(spec), make_symmetries(rows, columns)),
      rows_(rows),
      columns_(columns),
      mines_(mines),
      zobrist_(4 * kMaxCells, 0x3135E5EE7E12ULL) {
  if (rows < 2 || rows > kMaxRows || columns < 2 || columns > kMaxColumns || mines < 1 || mines > rows * columns - 9) {
    throw std::logic_error("minesweeper: options out of range");
  }
  const int n = cells();
  neighbours_.resize(static_cast<size_t>(n));
  neighbour_count_.resize(static_cast<size_t>(n));
  neighbourhood_.resize(static_cast<size_t>(n));
  for (int cell = 0; cell < n; ++cell) {
    const int y = cell / columns, x = cell % columns;
    MinesweeperState::set(board_mask_, cell);
    MinesweeperState::set(neighbourhood_[static_cast<size_t>(cell)], cell);
    int k = 0;
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        const int ny = y + dy, nx = x + dx;
        if ((dy == 0 && dx == 0) || ny < 0 || ny >= rows || nx < 0 || nx >= columns) continue;
        neighbours_[static_cast<size_t>(cell)][static_cast<size_t>(k++)] = static_cast<std::int16_t>(ny * columns + nx);
        MinesweeperState::set(neighbourhood_[static_cast<size_t>(cell)], ny * columns + nx);
      }
    }
    neighbour_count_[static_cast<size_t>(cell)] = static_cast<std::uint8_t>(k);
  }
}

std::unique_ptr<State> MinesweeperGame::new_initial_state() const { return std::make_unique<MinesweeperState>(this); }

std::string MinesweeperGame::cell_name(int cell) const {
  return column_name(cell % columns_) + std::to_string(cell / columns_ + 1);
}

std::optional<int> MinesweeperGame::parse_cell(std::string_view text, std::string* error) const {
  const std::string t = util::to_lower(util::trim(text));
  const std::string expected =
      "expected a cell from a1 to " + cell_name(cells() - 1) + " (column letters from the left, row numbers from the top)";
  size_t letters = 0;
  while (letters < t.size() && std::isalpha(static_cast<unsigned char>(t[letters]))) ++letters;
  auto row = util::parse_int(std::string_view(t).substr(letters));
  if (letters == 0 || letters > 2 || letters == t.size() || !row || !std::isdigit(static_cast<unsigned char>(t[letters]))) {
    if (error) *error = "'" + t + "' is not a cell: " + expected;
    return std::nullopt;
  }
  const int column = letters == 1 ? t[0] - 'a' : (t[0] - 'a' + 1) * 26 + (t[1] - 'a');
  if (column < 0 || column >= columns_ || *row < 1 || *row > rows_) {
    if (error) *error = "'" + t + "' is off the board: " + expected;
    return std::nullopt;
  }
  return static_cast<int>(*row - 1) * columns_ + column;
}

std::unique_ptr<State> MinesweeperGame::deserialize(std::string_view text) const {
  const std::string quoted = "Minesweeper position '" + std::string(text) + "'";
  const std::string format = "expected the " + std::to_string(rows_) + " rows of " + std::to_string(columns_) +
                             " cells from the top joined by '/' ('.' unrevealed, '*' unrevealed mine, '0'-'8' revealed, "
                             "'X' exploded mine), the first click (a cell or '-') and the number of actions played";
  std::vector<std::string> fields;
  std::string current;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!current.empty()) fields.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) fields.push_back(std::move(current));
  if (fields.size() != 3) throw util::UsageError(quoted + " has " + std::to_string(fields.size()) + " fields: " + format);
  const std::string& board = fields[0];
  if (static_cast<int>(board.size()) != rows_ * (columns_ + 1) - 1) {
    throw util::UsageError(quoted + ": the board has " + std::to_string(board.size()) + " characters, not " +
                           std::to_string(rows_ * (columns_ + 1) - 1) + ": " + format);
  }
  auto state = std::make_unique<MinesweeperState>(this);
  std::vector<int> shown(static_cast<size_t>(cells()), -1);
  int mines = 0, exploded = -1, revealed = 0;
  for (int y = 0; y < rows_; ++y) {
    if (y > 0 && board[static_cast<size_t>(y * (columns_ + 1) - 1)] != '/') {
      throw util::UsageError(quoted + ": rows must be separated by '/': " + format);
    }
    for (int x = 0; x < columns_; ++x) {
      const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(board[static_cast<size_t>(y * (columns_ + 1) + x)])));
      const int cell = y * columns_ + x;
      if (c == '*' || c == 'X') {
        MinesweeperState::set(state->mines_, cell);
        ++mines;
        if (c == 'X') {
          if (exploded >= 0) throw util::UsageError(quoted + ": only one mine can have exploded");
          exploded = cell;
        }
      } else if (c >= '0' && c <= '8') {
        MinesweeperState::set(state->revealed_, cell);
        shown[static_cast<size_t>(cell)] = c - '0';
        ++revealed;
      } else if (c != '.') {
        throw util::UsageError(quoted + ": bad character '" + std::string(1, c) + "': " + format);
      }
    }
  }
  std::optional<int> click;
  if (fields[1] != "-") {
    std::string error;
    click = parse_cell(fields[1], &error);
    if (!click) throw util::UsageError(quoted + ": bad first click: " + error);
  }
  auto moves = util::parse_int(fields[2]);
  if (!moves || *moves < 0 || *moves > info_.max_game_length) {
    throw util::UsageError(quoted + ": the number of actions '" + fields[2] + "' is not a number from 0 to " +
                           std::to_string(info_.max_game_length));
  }
  auto unreachable = [&](const std::string& why) { return util::UsageError(quoted + " is unreachable: " + why); };
  if (mines > mines_) throw unreachable("it has " + std::to_string(mines) + " mines, the game " + std::to_string(mines_));
  if (!click) {
    if (mines > 0 || revealed > 0 || *moves != 0) throw unreachable("nothing happens before the first click");
  } else {
    for (int w = 0; w < MinesweeperGame::kWords; ++w) {
      if (state->mines_[static_cast<size_t>(w)] & neighbourhood(*click)[static_cast<size_t>(w)]) {
        throw unreachable("no mine can lie on or next to the first click " + cell_name(*click));
      }
    }
    if (mines < mines_) {
      if (revealed > 0 || *moves != 1 + mines) {
        throw unreachable("while mines are being placed nothing is revealed and " + std::to_string(1 + mines) +
                          " actions have been played");
      }
    } else {
      if (!MinesweeperState::test(state->revealed_, *click)) throw unreachable("the first click " + cell_name(*click) + " is not revealed");
      const int clicks = static_cast<int>(*moves) - 1 - mines_;  // after the first
      if (clicks < 0 || clicks > revealed - 1 + (exploded >= 0 ? 1 : 0)) {
        throw unreachable("the number of actions does not fit the cells revealed");
      }
      for (int cell = 0; cell < cells(); ++cell) {
        if (shown[static_cast<size_t>(cell)] < 0) continue;
        if (state->number(cell) != shown[static_cast<size_t>(cell)]) {
          throw unreachable(cell_name(cell) + " shows " + std::to_string(shown[static_cast<size_t>(cell)]) + " but has " +
                            std::to_string(state->number(cell)) + " mines around it");
        }
        if (shown[static_cast<size_t>(cell)] == 0) {
          for (int i = 0; i < num_neighbours(cell); ++i) {
            if (!MinesweeperState::test(state->revealed_, neighbour(cell, i))) {
              throw unreachable(cell_name(cell) + " shows 0 but its neighbour " + cell_name(neighbour(cell, i)) + " is not revealed");
            }
          }
        }
      }
      if (exploded >= 0 && revealed == safe_cells()) throw unreachable("the game was won before a mine exploded");
    }
  }
  if (mines < mines_ && exploded >= 0) throw unreachable("a mine exploded before all were placed");
  state->first_click_ = static_cast<std::int16_t>(click ? *click : -1);
  state->mines_placed_ = static_cast<std::int16_t>(mines);
  state->revealed_count_ = static_cast<std::int16_t>(revealed);
  state->exploded_ = static_cast<std::int16_t>(exploded);
  state->moves_ = static_cast<std::int16_t>(*moves);
  state->recompute_hash();
  return state;
}

// ---------------------------------------------------------------------------------------
// State

MinesweeperState::MinesweeperState(const MinesweeperGame* game) : State(game) { recompute_hash(); }

void MinesweeperState::recompute_hash() {
  const auto& z = ms().zobrist();
  constexpr int n = MinesweeperGame::kMaxCells;
  hash_ = 0;
  for (int cell = 0; cell < ms().cells(); ++cell) {
    if (test(mines_, cell)) hash_ ^= z[cell];
    if (test(revealed_, cell)) hash_ ^= z[n + cell];
  }
  if (first_click_ >= 0) hash_ ^= z[2 * n + first_click_];
  if (exploded_ >= 0) hash_ ^= z[3 * n + exploded_];
}

Player MinesweeperState::current_player() const {
  if (exploded_ >= 0 || won()) return kTerminalPlayer;
  if (placing()) return kChancePlayer;
  return 0;
}

int MinesweeperState::number(int cell) const {
  const auto& g = ms();
  int n = 0;
  for (int i = 0; i < g.num_neighbours(cell); ++i) n += test(mines_, g.neighbour(cell, i));
  return n;
}

void MinesweeperState::legal_actions(std::vector<Action>& out) const {
  out.clear();
  const Player p = current_player();
  if (p == kTerminalPlayer) return;
  const auto& g = ms();
  const Bits& excluded = p == kChancePlayer ? g.neighbourhood(first_click_) : revealed_;
  for (int w = 0; w < MinesweeperGame::kWords; ++w) {
    std::uint64_t free = g.board_mask()[static_cast<size_t>(w)] & ~excluded[static_cast<size_t>(w)];
    if (p == kChancePlayer) free &= ~mines_[static_cast<size_t>(w)];
    for (; free; free &= free - 1) out.push_back(w * 64 + std::countr_zero(free));
  }
}

std::vector<std::pair<Action, double>> MinesweeperState::chance_outcomes() const {
  std::vector<std::pair<Action, double>> out;
  if (!is_chance_node()) return out;
  std::vector<Action> cells;
  legal_actions(cells);
  const double p = 1.0 / static_cast<double>(cells.size());
  out.reserve(cells.size());
  for (Action c : cells) out.emplace_back(c, p);
  return out;
}

void MinesweeperState::place_mine(int cell) {
  set(mines_, cell);
  hash_ ^= ms().zobrist()[cell];
  ++mines_placed_;
}

void MinesweeperState::reveal(int start) {
  const auto& g = ms();
  const auto& z = g.zobrist();
  std::int16_t stack[MinesweeperGame::kMaxCells];
  int top = 0;
  set(revealed_, start);
  hash_ ^= z[MinesweeperGame::kMaxCells + start];
  stack[top++] = static_cast<std::int16_t>(start);
  while (top > 0) {
    const int cell = stack[--top];
    ++revealed_count_;
    if (number(cell) != 0) continue;
    for (int i = 0; i < g.num_neighbours(cell); ++i) {
      const int nb = g.neighbour(cell, i);
      if (test(revealed_, nb)) continue;
      set(revealed_, nb);
      hash_ ^= z[MinesweeperGame::kMaxCells + nb];
      stack[top++] = static_cast<std::int16_t>(nb);
    }
  }
}

void MinesweeperState::apply_action(Action action) {
  const auto& g = ms();
  ++moves_;
  if (first_click_ < 0) {
    first_click_ = static_cast<std::int16_t>(action);
    hash_ ^= g.zobrist()[2 * MinesweeperGame::kMaxCells + action];
    return;
  }
  if (placing()) {
    place_mine(action);
    if (mines_placed_ == g.mines()) reveal(first_click_);
    return;
  }
  if (test(mines_, action)) {
    exploded_ = static_cast<std::int16_t>(action);
    hash_ ^= g.zobrist()[3 * MinesweeperGame::kMaxCells + action];
    return;
  }
  reveal(action);
}

std::string MinesweeperState::explain_illegal(Action action) const {
  const auto& g = ms();
  if (current_player() == 0 && action >= 0 && action < g.cells() && test(revealed_, action)) {
    return g.cell_name(action) + " is already revealed";
  }
  if (is_chance_node() && action >= 0 && action < g.cells()) {
    return test(mines_, action) ? "a mine is already on " + g.cell_name(action)
                                : g.cell_name(action) + " is next to the first click: no mine goes there";
  }
  return State::explain_illegal(action);
}

std::vector<double> MinesweeperState::returns() const {
  if (won()) return {1.0};
  if (exploded_ >= 0) return {static_cast<double>(revealed_count_) / ms().safe_cells() - 1.0};
  return {0.0};
}

void MinesweeperState::observation(Player, float* out) const {
  const auto& g = ms();
  const int n = g.cells();
  std::fill(out, out + 12 * n, 0.0f);
  for (int cell = 0; cell < n; ++cell) {
    if (test(revealed_, cell)) {
      out[number(cell) * n + cell] = 1.0f;
    } else if (cell == exploded_) {
      out[10 * n + cell] = 1.0f;
    } else {
      out[9 * n + cell] = 1.0f;
    }
    out[11 * n + cell] = 1.0f;
  }
}

std::unique_ptr<State> MinesweeperState::resample(Player, util::Rng& rng) const {
  return resample_mines(rng, kDefaultEnumerationBudget);
}

std::unique_ptr<MinesweeperState> MinesweeperState::resample_mines(util::Rng& rng, std::int64_t budget, bool* exact) const {
  auto out = std::make_unique<MinesweeperState>(*this);
  if (exact) *exact = true;
  const auto& g = ms();
  const int n = g.cells();
  if (is_terminal() || first_click_ < 0) return out;
  if (placing()) {
    // Nothing is revealed yet: the mines placed so far are uniform outside the neighbourhood.
    std::vector<int> allowed;
    for (int cell = 0; cell < n; ++cell) {
      if (!test(g.neighbourhood(first_click_), cell)) allowed.push_back(cell);
    }
    out->mines_ = {};
    for (int i = 0; i < mines_placed_; ++i) {
      const int j = i + static_cast<int>(rng.below(static_cast<std::uint32_t>(allowed.size() - static_cast<size_t>(i))));
      std::swap(allowed[static_cast<size_t>(i)], allowed[static_cast<size_t>(j)]);
      set(out->mines_, allowed[static_cast<size_t>(i)]);
    }
    out->recompute_hash();
    return out;
  }

  // The constraint system: one variable per frontier cell, one constraint per revealed
  // number that touches an unrevealed cell.
  Frontier f;
  std::vector<int> var_of(static_cast<size_t>(n), -1);
  for (int cell = 0; cell < n; ++cell) {
    if (!test(revealed_, cell)) continue;
    Frontier::Constraint c;
    c.target = number(cell);
    for (int i = 0; i < g.num_neighbours(cell); ++i) {
      const int nb = g.neighbour(cell, i);
      if (test(revealed_, nb)) continue;
      if (var_of[static_cast<size_t>(nb)] < 0) {
        var_of[static_cast<size_t>(nb)] = static_cast<int>(f.cells.size());
        f.cells.push_back(nb);
      }
      c.vars[c.count++] = var_of[static_cast<size_t>(nb)];
    }
    if (c.count > 0) f.constraints.push_back(c);
  }
  for (int cell = 0; cell < n; ++cell) {
    if (!test(revealed_, cell) && var_of[static_cast<size_t>(cell)] < 0) f.interior.push_back(cell);
  }
  const int num_vars = static_cast<int>(f.cells.size());
  f.var_constraints.resize(static_cast<size_t>(num_vars));
  for (size_t c = 0; c < f.constraints.size(); ++c) {
    for (int i = 0; i < f.constraints[c].count; ++i) f.var_constraints[static_cast<size_t>(f.constraints[c].vars[i])].push_back(static_cast<int>(c));
  }
  // Components, each listed in breadth-first order from a far end (the last cell reached by
  // a first breadth-first pass): the frontier is a thin band of cells, and sweeping it from
  // one end keeps few numbers half-filled at any time, which keeps the counting tables small.
  std::vector<std::vector<int>> components;
  std::vector<int> mark(static_cast<size_t>(num_vars), -1);
  auto bfs = [&](int start, int stamp) {
    std::vector<int> order = {start};
    mark[static_cast<size_t>(start)] = stamp;
    for (size_t head = 0; head < order.size(); ++head) {
      for (int c : f.var_constraints[static_cast<size_t>(order[head])]) {
        for (int i = 0; i < f.constraints[static_cast<size_t>(c)].count; ++i) {
          const int v = f.constraints[static_cast<size_t>(c)].vars[i];
          if (mark[static_cast<size_t>(v)] != stamp) {
            mark[static_cast<size_t>(v)] = stamp;
            order.push_back(v);
          }
        }
      }
    }
    return order;
  };
  for (int start = 0; start < num_vars; ++start) {
    if (mark[static_cast<size_t>(start)] >= 0) continue;
    const int far_end = bfs(start, 2 * static_cast<int>(components.size())).back();
    components.push_back(bfs(far_end, 2 * static_cast<int>(components.size()) + 1));
  }

  const int total_mines = g.mines(), interior = static_cast<int>(f.interior.size());
  auto fill_interior = [&](int count) {
    std::vector<int> cells = f.interior;
    for (int i = 0; i < count; ++i) {
      const int j = i + static_cast<int>(rng.below(static_cast<std::uint32_t>(cells.size() - static_cast<size_t>(i))));
      std::swap(cells[static_cast<size_t>(i)], cells[static_cast<size_t>(j)]);
      set(out->mines_, cells[static_cast<size_t>(i)]);
    }
  };

  // Exact: count every component's assignments by number of mines.
  std::vector<std::unique_ptr<ComponentCounter>> counters;
  std::int64_t left = budget;
  bool complete = true;
  for (size_t k = 0; k < components.size() && complete; ++k) {
    counters.push_back(std::make_unique<ComponentCounter>(f, components[k], left, total_mines));
    complete = counters.back()->run();
    left -= counters.back()->work();
  }
  if (complete) {
    // prefix[k][t]: the number of assignments of the first k components with t mines.
    std::vector<std::vector<long double>> prefix = {{1.0L}};
    for (size_t k = 0; k < components.size(); ++k) {
      const auto& p = prefix.back();
      const auto counts = counters[k]->counts();
      std::vector<long double> next(p.size() + counts.size() - 1, 0.0L);
      for (size_t t = 0; t < p.size(); ++t) {
        if (p[t] == 0) continue;
        for (size_t m = 0; m < counts.size(); ++m) next[t + m] += p[t] * static_cast<long double>(counts[m]);
      }
      prefix.push_back(std::move(next));
    }
    const auto choose = binomials(interior);
    std::vector<long double> weight(prefix.back().size(), 0.0L);
    for (size_t t = 0; t < weight.size(); ++t) {
      const int rest = total_mines - static_cast<int>(t);
      if (rest >= 0 && rest <= interior) weight[t] = prefix.back()[t] * choose[static_cast<size_t>(rest)];
    }
    int t = draw(weight, rng);
    if (t >= 0) {
      out->mines_ = {};
      fill_interior(total_mines - t);
      for (size_t k = components.size(); k-- > 0;) {
        const auto counts = counters[k]->counts();
        std::vector<long double> w(counts.size(), 0.0L);
        for (size_t m = 0; m < w.size(); ++m) {
          if (static_cast<int>(m) <= t && static_cast<size_t>(t) - m < prefix[k].size()) {
            w[m] = prefix[k][static_cast<size_t>(t) - m] * static_cast<long double>(counts[m]);
          }
        }
        const int m = draw(w, rng);
        const auto values = counters[k]->sample(m, rng);
        for (size_t i = 0; i < values.size(); ++i) {
          if (values[i]) set(out->mines_, f.cells[static_cast<size_t>(components[k][i])]);
        }
        t -= m;
      }
      out->recompute_hash();
      return out;
    }
  }

  // Fallback: block Gibbs sampling of the frontier (see the header), then the interior.
  if (exact) *exact = false;
  std::vector<std::uint8_t> value(static_cast<size_t>(num_vars), 0);
  int frontier_mines = 0;
  bool ok = true;
  for (size_t k = 0; k < components.size() && ok; ++k) {
    RandomSearch search(f, components[k], rng, 20000);
    std::vector<std::uint8_t> values;
    ok = search.find(values);
    for (size_t i = 0; ok && i < values.size(); ++i) {
      value[static_cast<size_t>(components[k][i])] = values[i];
      frontier_mines += values[i];
    }
  }
  if (!ok || frontier_mines > total_mines || total_mines - frontier_mines > interior) {
    frontier_mines = 0;  // start from the true placement instead
    for (int v = 0; v < num_vars; ++v) {
      value[static_cast<size_t>(v)] = is_mine(f.cells[static_cast<size_t>(v)]) ? 1 : 0;
      frontier_mines += value[static_cast<size_t>(v)];
    }
  }
  std::vector<int> sum(f.constraints.size(), 0), open(f.constraints.size(), 0);
  for (size_t c = 0; c < f.constraints.size(); ++c) {
    for (int i = 0; i < f.constraints[c].count; ++i) sum[c] += value[static_cast<size_t>(f.constraints[c].vars[i])];
  }
  const auto choose = binomials(interior);
  const int columns = g.columns(), rows = g.rows();
  constexpr int kMaxBlock = 12;
  std::vector<int> block;
  std::vector<std::pair<std::uint32_t, int>> options;  // (block values as bits, mines)
  std::vector<long double> weights;
  const std::int64_t steps = 5 * static_cast<std::int64_t>(num_vars);
  for (std::int64_t step = 0; step < steps; ++step) {
    // The block: frontier cells within two steps of a random frontier cell, nearest first.
    const int centre = f.cells[rng.below(static_cast<std::uint32_t>(num_vars))];
    const int cy = centre / columns, cx = centre % columns;
    block.clear();
    for (int radius = 0; radius <= 2; ++radius) {
      for (int y = std::max(0, cy - radius); y <= std::min(rows - 1, cy + radius); ++y) {
        for (int x = std::max(0, cx - radius); x <= std::min(columns - 1, cx + radius); ++x) {
          if (std::max(std::abs(y - cy), std::abs(x - cx)) != radius) continue;
          const int v = var_of[static_cast<size_t>(y * columns + x)];
          if (v >= 0 && static_cast<int>(block.size()) < kMaxBlock) block.push_back(v);
        }
      }
    }
    int old_mines = 0;
    for (int v : block) {
      old_mines += value[static_cast<size_t>(v)];
      for (int c : f.var_constraints[static_cast<size_t>(v)]) {
        sum[static_cast<size_t>(c)] -= value[static_cast<size_t>(v)];
        ++open[static_cast<size_t>(c)];
      }
    }
    // Every assignment of the block consistent with the rest, by backtracking.
    options.clear();
    auto fits = [&](int v) {
      for (int c : f.var_constraints[static_cast<size_t>(v)]) {
        const int target = f.constraints[static_cast<size_t>(c)].target;
        if (sum[static_cast<size_t>(c)] > target || sum[static_cast<size_t>(c)] + open[static_cast<size_t>(c)] < target) return false;
      }
      return true;
    };
    auto place = [&](int v, int x, int sign) {
      for (int c : f.var_constraints[static_cast<size_t>(v)]) {
        sum[static_cast<size_t>(c)] += sign * x;
        open[static_cast<size_t>(c)] -= sign;
      }
    };
    auto search = [&](auto&& self, size_t i, std::uint32_t bits, int mines) -> void {
      if (i == block.size()) {
        options.emplace_back(bits, mines);
        return;
      }
      const int v = block[i];
      for (int x = 0; x < 2; ++x) {
        place(v, x, 1);
        if (fits(v)) self(self, i + 1, bits | static_cast<std::uint32_t>(x) << i, mines + x);
        place(v, x, -1);
      }
    };
    search(search, 0, 0, 0);
    weights.assign(options.size(), 0.0L);
    for (size_t o = 0; o < options.size(); ++o) {
      const int rest = total_mines - (frontier_mines - old_mines + options[o].second);
      if (rest >= 0 && rest <= interior) weights[o] = choose[static_cast<size_t>(rest)];
    }
    const int pick = draw(weights, rng);  // the current assignment is always an option
    const std::uint32_t bits = options[static_cast<size_t>(pick)].first;
    for (size_t i = 0; i < block.size(); ++i) {
      const int v = block[i];
      value[static_cast<size_t>(v)] = static_cast<std::uint8_t>(bits >> i & 1);
      for (int c : f.var_constraints[static_cast<size_t>(v)]) {
        sum[static_cast<size_t>(c)] += value[static_cast<size_t>(v)];
        --open[static_cast<size_t>(c)];
      }
    }
    frontier_mines += options[static_cast<size_t>(pick)].second - old_mines;
  }
  out->mines_ = {};
  for (int v = 0; v < num_vars; ++v) {
    if (value[static_cast<size_t>(v)]) set(out->mines_, f.cells[static_cast<size_t>(v)]);
  }
  fill_interior(total_mines - frontier_mines);
  out->recompute_hash();
  return out;
}

std::string MinesweeperState::action_to_string(Player player, Action action) const {
  if (action < 0 || action >= ms().cells()) return "(not a cell)";
  return (player == kChancePlayer ? "mine " : "") + ms().cell_name(action);
}

std::optional<Action> MinesweeperState::parse_action(std::string_view text, std::string* error) const {
  std::string t = util::to_lower(util::trim(text));
  if (is_chance_node()) {
    if (t.rfind("mine", 0) == 0) t = util::trim(t.substr(4));
    if (t.rfind('*', 0) == 0) t = t.substr(1);
  }
  return ms().parse_cell(t, error);
}

std::string MinesweeperState::to_string() const {
  const auto& g = ms();
  const int rows = g.rows(), columns = g.columns();
  const bool over = is_terminal();
  std::string header = "    ";
  for (int x = 0; x < columns; ++x) {
    const std::string name = column_name(x);
    header += (name.size() == 1 ? " " : "") + name;
  }
  std::string out = header + "\n";
  for (int y = 0; y < rows; ++y) {
    const std::string row = std::to_string(y + 1);
    out += std::string(3 - row.size(), ' ') + row + " ";
    for (int x = 0; x < columns; ++x) {
      const int cell = y * columns + x;
      char c = '#';
      if (test(revealed_, cell)) {
        const int k = number(cell);
        c = k == 0 ? '.' : static_cast<char>('0' + k);
      } else if (cell == exploded_) {
        c = 'X';
      } else if (over && test(mines_, cell)) {
        c = '*';
      }
      out += ' ';
      out += c;
    }
    out += "\n";
  }
  const std::string size = std::to_string(g.mines()) + " mines, " + std::to_string(revealed_count_) + " of " +
                           std::to_string(g.safe_cells()) + " safe cells revealed";
  if (won()) {
    out += "Cleared! " + size + "\n";
  } else if (exploded_ >= 0) {
    out += "A mine exploded on " + g.cell_name(exploded_) + ": " + size + "\n";
  } else if (first_click_ < 0) {
    out += size + "; the first click is always safe\n";
  } else if (placing()) {
    out += "Placing mines after the first click on " + g.cell_name(first_click_) + " (" + std::to_string(mines_placed_) +
           " of " + std::to_string(g.mines()) + ")\n";
  } else {
    out += size + "\n";
  }
  return out;
}

std::string MinesweeperState::serialize() const {
  const auto& g = ms();
  std::string out;
  for (int y = 0; y < g.rows(); ++y) {
    if (y > 0) out += '/';
    for (int x = 0; x < g.columns(); ++x) {
      const int cell = y * g.columns() + x;
      if (cell == exploded_) {
        out += 'X';
      } else if (test(revealed_, cell)) {
        out += static_cast<char>('0' + number(cell));
      } else {
        out += test(mines_, cell) ? '*' : '.';
      }
    }
  }
  out += ' ';
  out += first_click_ >= 0 ? g.cell_name(first_click_) : "-";
  out += ' ';
  out += std::to_string(moves_);
  return out;
}

GameEntry minesweeper_entry() {
  util::OptionSchema options;
  options.add_int("rows", 9, "number of rows", 2, MinesweeperGame::kMaxRows)
      .add_int("columns", 9, "number of columns", 2, MinesweeperGame::kMaxColumns)
      .add_int("mines", 10, "number of mines (at most rows*columns - 9)", 1, MinesweeperGame::kMaxCells - 9);
  return {"minesweeper", "Minesweeper", Family::kStrategy,
          "single player: reveal every safe cell; numbers count neighbouring mines; first click safe",
          std::move(options),
          [](const util::OptionSchema::Values& v, const util::Spec& spec) -> std::shared_ptr<const Game> {
            const int rows = v.get_int("rows"), columns = v.get_int("columns"), mines = v.get_int("mines");
            if (mines > rows * columns - 9) {
              throw util::UsageError("minesweeper: " + std::to_string(mines) + " mines do not fit a " + std::to_string(rows) +
                                     "x" + std::to_string(columns) + " board: at most rows*columns - 9 = " +
                                     std::to_string(rows * columns - 9) +
                                     " (the first click and its neighbours are kept free)");
            }
            return std::make_shared<MinesweeperGame>(spec, rows, columns, mines);
          }};
}

}  // namespace pz::games
