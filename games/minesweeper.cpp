#include "games/minesweeper.h"

#include "games/minesweeper_sampler.h"

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
  MineFrontier f;
  f.rows = g.rows();
  f.columns = g.columns();
  f.total_mines = g.mines();
  f.var_of.assign(static_cast<size_t>(n), -1);
  auto& var_of = f.var_of;
  for (int cell = 0; cell < n; ++cell) {
    if (!test(revealed_, cell)) continue;
    MineFrontier::Constraint c;
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
  std::vector<char> true_mines(static_cast<size_t>(n), 0);
  for (int cell = 0; cell < n; ++cell) true_mines[static_cast<size_t>(cell)] = is_mine(cell) ? 1 : 0;
  const MineSample sample = sample_mines(f, true_mines, rng, budget);
  if (exact) *exact = sample.exact;
  out->mines_ = {};
  for (int cell : sample.mines) set(out->mines_, cell);
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
