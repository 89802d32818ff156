#include "games/game2048.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <climits>
#include <cmath>

#include "games/board_notation.h"
#include "games/grid_directions.h"
#include "util/error.h"

namespace pz::games {
namespace {


// Largest number of moves the rules allow on n cells: 2^(n+1) - 4 (see the header), or
// the cap for boards where that does not fit.
long long rules_move_bound(int cells) {
  if (cells + 1 >= 40) return Game2048::kCapForLargeBoards;
  return std::min<long long>((1LL << (cells + 1)) - 4, Game2048::kCapForLargeBoards);
}

double score_bound(int cells, int max_moves) {
  // Rules: tiles 2^(n+1), 2^n, ..., 2^2 each built from 2s.
  double rules = 0;
  for (int e = 2; e <= cells + 1; ++e) rules += (e - 1) * std::ldexp(1.0, e);
  // Move cap: tile sum <= 4·(M + 2); a tile scores at most (log2 v - 1)·v, v <= the sum.
  const double sum = 4.0 * (static_cast<double>(max_moves) + 2.0);
  const int top = static_cast<int>(std::floor(std::log2(sum)));
  const double capped = sum * std::max(top - 1, 0);
  return std::min(rules, capped);
}

GameInfo make_info(int size, int max_moves) {
  const int n = size * size;
  GameInfo info;
  info.name = "2048";
  info.long_name = "2048";
  info.family = Family::kAction;
  info.num_players = 1;
  info.num_distinct_actions = 4;
  info.max_chance_outcomes = 2 * n;
  info.observation_shape = {n + 2, size, size};
  info.policy_shape = {4, 1, 1};
  info.zero_sum = false;
  info.min_return = 0;
  info.max_return = score_bound(n, max_moves);
  info.max_game_length = 2 + 2 * max_moves;
  return info;
}

int effective_max_moves(int size, int max_moves) {
  const long long rules = rules_move_bound(size * size);
  return static_cast<int>(max_moves > 0 ? std::min<long long>(max_moves, rules) : rules);
}

std::vector<Symmetry> all_symmetries() {
  return {Symmetry::kIdentity, Symmetry::kRotate90, Symmetry::kRotate180, Symmetry::kRotate270,
          Symmetry::kMirror,   Symmetry::kFlip,     Symmetry::kTranspose, Symmetry::kAntiTranspose};
}

// First cell and stride of line k for a move in `direction`; position 0 is the side the
// tiles move towards.
void line_geometry(int direction, int size, int k, int* start, int* step) {
  switch (direction) {
    case 0: *start = k; *step = size; break;                            // up: column k
    case 1: *start = k * size + size - 1; *step = -1; break;            // right: row k
    case 2: *start = (size - 1) * size + k; *step = -size; break;       // down: column k
    default: *start = k * size; *step = 1; break;                       // left: row k
  }
}

}  // namespace

Game2048::Game2048(util::Spec spec, int size, int max_moves)
    : Game(make_info(size, effective_max_moves(size, max_moves)), std::move(spec), all_symmetries()),
      size_(size),
      max_moves_(effective_max_moves(size, max_moves)),
      zobrist_(kMaxCells * (kMaxExponent + 1) + 3, 0x2048204820480ULL + static_cast<std::uint64_t>(size)) {
  assert(size >= kMinSize && size <= kMaxSize);
}

std::unique_ptr<State> Game2048::new_initial_state() const { return std::make_unique<Game2048State>(this); }

Action Game2048::transform_action(Symmetry symmetry, Action action) const { return transform_direction(symmetry, action); }

Action Game2048::transform_chance_outcome(Symmetry symmetry, Action outcome) const {
  const int cell = outcome / 2;
  const Cell c = transform_cell(symmetry, size_, size_, {cell / size_, cell % size_});
  return (c.y * size_ + c.x) * 2 + (outcome & 1);
}

Game2048State::Game2048State(const Game2048* game) : State(game) { recompute_hash(); }

void Game2048State::recompute_hash() {
  const Game2048& game = g();
  hash_ = game.pending_key(pending_);
  for (int c = 0; c < game.num_cells(); ++c) {
    if (cells_[c]) hash_ ^= game.tile_key(c, cells_[c]);
  }
}

Player Game2048State::current_player() const {
  if (pending_ > 0) return kChancePlayer;
  if (stuck_ || moves_ >= g().max_moves()) return kTerminalPlayer;
  return 0;
}

bool Game2048State::slide(int direction, std::uint8_t* cells, std::int64_t* gained) const {
  const int size = g().size();
  bool changed = false;
  for (int k = 0; k < size; ++k) {
    int start, step;
    line_geometry(direction, size, k, &start, &step);
    std::uint8_t out[Game2048::kMaxSize];
    int count = 0;
    bool last_merged = false;
    for (int i = 0, c = start; i < size; ++i, c += step) {
      const std::uint8_t e = cells[c];
      if (!e) continue;
      if (count > 0 && !last_merged && out[count - 1] == e) {
        ++out[count - 1];
        *gained += std::int64_t{1} << (e + 1);
        last_merged = true;
      } else {
        out[count++] = e;
        last_merged = false;
      }
    }
    for (int i = 0, c = start; i < size; ++i, c += step) {
      const std::uint8_t e = i < count ? out[i] : 0;
      if (cells[c] != e) {
        cells[c] = e;
        changed = true;
      }
    }
  }
  return changed;
}

bool Game2048State::has_move() const {
  const int size = g().size();
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const std::uint8_t e = cells_[y * size + x];
      // An empty cell next to a tile (the grid is connected, so any empty cell on a board
      // with tiles gives one) or two equal neighbours: something can move.
      if (!e) return true;
      if (x + 1 < size && cells_[y * size + x + 1] == e) return true;
      if (y + 1 < size && cells_[(y + 1) * size + x] == e) return true;
    }
  }
  return false;
}

void Game2048State::legal_actions(std::vector<Action>& out) const {
  out.clear();
  const Player p = current_player();
  if (p == kTerminalPlayer) return;
  const Game2048& game = g();
  if (p == kChancePlayer) {
    for (int c = 0; c < game.num_cells(); ++c) {
      if (!cells_[c]) {
        out.push_back(2 * c);
        out.push_back(2 * c + 1);
      }
    }
    return;
  }
  const int size = game.size();
  for (int d = 0; d < 4; ++d) {
    bool legal = false;
    for (int k = 0; k < size && !legal; ++k) {
      int start, step;
      line_geometry(d, size, k, &start, &step);
      // Along the line in the order tiles pile up: the move changes it iff some tile has an
      // empty cell or an equal tile just before it.
      for (int i = 1, c = start + step; i < size; ++i, c += step) {
        const std::uint8_t before = cells_[c - step], e = cells_[c];
        if (e && (!before || before == e)) {
          legal = true;
          break;
        }
      }
    }
    if (legal) out.push_back(d);
  }
}

std::string Game2048State::explain_illegal(Action action) const {
  const Player p = current_player();
  if (p == kTerminalPlayer) {
    return moves_ >= g().max_moves() ? "the game is over (the move limit max_moves=" + std::to_string(g().max_moves()) + " is reached)"
                                     : "the game is over: no move changes the board";
  }
  if (p == kChancePlayer) return "a tile must spawn first (chance)";
  if (action >= 0 && action < 4) return std::string("sliding ") + kDirectionNames[action] + " changes nothing";
  return State::explain_illegal(action);
}

std::vector<std::pair<Action, double>> Game2048State::chance_outcomes() const {
  std::vector<std::pair<Action, double>> out;
  if (current_player() != kChancePlayer) return out;
  int empty = 0;
  for (int c = 0; c < g().num_cells(); ++c) empty += cells_[c] == 0;
  for (int c = 0; c < g().num_cells(); ++c) {
    if (!cells_[c]) {
      out.emplace_back(2 * c, 0.9 / empty);
      out.emplace_back(2 * c + 1, 0.1 / empty);
    }
  }
  return out;
}

void Game2048State::apply_action(Action action) {
  const Game2048& game = g();
  hash_ ^= game.pending_key(pending_);
  if (pending_ > 0) {
    const int cell = action / 2;
    assert(cell >= 0 && cell < game.num_cells() && cells_[cell] == 0);
    cells_[cell] = static_cast<std::uint8_t>(1 + (action & 1));
    hash_ ^= game.tile_key(cell, cells_[cell]);
    --pending_;
    if (pending_ == 0) stuck_ = !has_move();
  } else {
    assert(action >= 0 && action < 4);
    std::uint8_t before[Game2048::kMaxCells];
    std::copy(cells_, cells_ + game.num_cells(), before);
    const bool changed = slide(action, cells_, &score_);
    assert(changed);
    (void)changed;
    for (int c = 0; c < game.num_cells(); ++c) {
      if (before[c] != cells_[c]) {
        if (before[c]) hash_ ^= game.tile_key(c, before[c]);
        if (cells_[c]) hash_ ^= game.tile_key(c, cells_[c]);
      }
    }
    ++moves_;
    pending_ = 1;
  }
  hash_ ^= game.pending_key(pending_);
}

void Game2048State::observation(Player, float* out) const {
  const Game2048& game = g();
  const int n = game.num_cells();
  std::fill(out, out + game.info().observation_shape.size(), 0.0f);
  for (int c = 0; c < n; ++c) out[cells_[c] * n + c] = 1.0f;
}

std::string Game2048State::action_to_string(Player player, Action action) const {
  const int size = g().size();
  if (player == kChancePlayer) {
    const int cell = action / 2;
    return std::string((action & 1) ? "4" : "2") + "@" + cell_name(cell % size, cell / size + 1);
  }
  if (action >= 0 && action < 4) return kDirectionNames[action];
  return "?" + std::to_string(action);
}

std::optional<Action> Game2048State::parse_action(std::string_view text, std::string* error) const {
  const std::string t = util::to_lower(util::trim(text));
  const int size = g().size();
  if (current_player() == kChancePlayer) {
    const size_t at = t.find('@');
    if (at != std::string::npos) {
      const std::string value = t.substr(0, at);
      if (value == "2" || value == "4") {
        auto cell = parse_cell_name(t.substr(at + 1), size, size, false, error);
        if (!cell) return std::nullopt;
        return ((cell->row - 1) * size + cell->column) * 2 + (value == "4" ? 1 : 0);
      }
    }
    if (error) *error = "'" + util::trim(text) + "' is not a spawn: expected 2@cell or 4@cell, e.g. 2@a1";
    return std::nullopt;
  }
  return parse_direction(text, error);
}

std::int64_t Game2048State::tile(int y, int x) const {
  const std::uint8_t e = cells_[y * g().size() + x];
  return e ? std::int64_t{1} << e : 0;
}

std::string Game2048State::to_string() const {
  const int size = g().size();
  int width = 1;
  for (int c = 0; c < g().num_cells(); ++c) {
    if (cells_[c]) width = std::max(width, static_cast<int>(std::to_string(std::int64_t{1} << cells_[c]).size()));
  }
  auto pad = [&](const std::string& s) { return std::string(static_cast<size_t>(width + 1) - s.size(), ' ') + s; };
  std::string out = "  ";
  for (int x = 0; x < size; ++x) out += pad(column_letter(x));
  out += "\n";
  for (int y = 0; y < size; ++y) {
    out += std::to_string(y + 1) + " ";
    for (int x = 0; x < size; ++x) {
      const std::int64_t v = tile(y, x);
      out += pad(v ? std::to_string(v) : ".");
    }
    out += "\n";
  }
  out += "Score " + std::to_string(score_) + ", " + std::to_string(moves_) + " moves";
  const Player p = current_player();
  if (p == kChancePlayer) out += ", a tile spawns next.\n";
  else if (p == kTerminalPlayer) out += stuck_ ? ". Game over: no move left.\n" : ". Game over: move limit reached.\n";
  else out += ".\n";
  return out;
}

std::string Game2048State::serialize() const {
  const int size = g().size();
  std::string out = "moves=" + std::to_string(moves_) + " score=" + std::to_string(score_) +
                    " spawns=" + std::to_string(pending_) + " board=";
  for (int y = 0; y < size; ++y) {
    if (y) out += '/';
    for (int x = 0; x < size; ++x) {
      if (x) out += '.';
      out += std::to_string(tile(y, x));
    }
  }
  return out;
}

void Game2048State::set_board(const std::array<std::uint8_t, Game2048::kMaxCells>& exponents, int size) {
  if (size != g().size()) throw util::UsageError("2048: board of side " + std::to_string(size) + " for a game of side " + std::to_string(g().size()));
  std::copy(exponents.begin(), exponents.begin() + g().num_cells(), cells_);
  pending_ = 0;
  stuck_ = !has_move();
  recompute_hash();
}

std::unique_ptr<State> Game2048::deserialize(std::string_view text) const {
  const std::string record(text);
  auto fail = [&](const std::string& why) -> void {
    throw util::UsageError("2048 position '" + record + "': " + why +
                           " (expected e.g. 'moves=3 score=8 spawns=0 board=0.2.0.0/0.0.0.0/4.0.0.0/0.0.0.2')");
  };
  std::optional<long long> moves, score, spawns;
  std::string board;
  size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos == text.size()) break;
    size_t end = pos;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    const std::string token(text.substr(pos, end - pos));
    pos = end;
    const size_t eq = token.find('=');
    if (eq == std::string::npos) fail("'" + token + "' is not key=value");
    const std::string key = util::to_lower(token.substr(0, eq)), value = token.substr(eq + 1);
    if (key == "board") {
      board = value;
      continue;
    }
    auto number = util::parse_int(value);
    if (!number || *number < 0) fail("'" + token + "' needs a non-negative integer");
    if (key == "moves") moves = number;
    else if (key == "score") score = number;
    else if (key == "spawns") spawns = number;
    else fail("unknown key '" + key + "' (keys: moves, score, spawns, board)");
  }
  if (!moves || !score || !spawns || board.empty()) fail("moves, score, spawns and board are all required");
  if (*moves > max_moves_) fail("moves=" + std::to_string(*moves) + " exceeds the move limit " + std::to_string(max_moves_));
  if (*spawns > 2) fail("spawns must be 0, 1 or 2");
  // Board: rows separated by '/', values by '.'.
  std::array<std::uint8_t, kMaxCells> cells{};
  int y = 0, x = 0, tiles = 0;
  size_t i = 0;
  while (true) {
    size_t j = i;
    while (j < board.size() && board[j] != '.' && board[j] != '/') ++j;
    const std::string cell_text = board.substr(i, j - i);
    auto value = util::parse_int(cell_text);
    if (y >= size_ || x >= size_) fail("the board is not " + std::to_string(size_) + "x" + std::to_string(size_));
    if (!value || *value < 0) fail("'" + cell_text + "' is not a tile value");
    int e = 0;
    if (*value) {
      while (e <= kMaxExponent && (1LL << e) < *value) ++e;
      if (e == 0 || e > num_cells() + 1 || (1LL << e) != *value) {
        fail("'" + cell_text + "' is not a tile: tiles are powers of two from 2 to " + std::to_string(1LL << (num_cells() + 1)));
      }
      ++tiles;
    }
    cells[static_cast<size_t>(y * size_ + x)] = static_cast<std::uint8_t>(e);
    if (j == board.size()) break;
    if (board[j] == '.') {
      ++x;
    } else {
      if (x != size_ - 1) fail("row " + std::to_string(y + 1) + " does not have " + std::to_string(size_) + " cells");
      ++y;
      x = 0;
    }
    i = j + 1;
  }
  if (y != size_ - 1 || x != size_ - 1) fail("the board is not " + std::to_string(size_) + "x" + std::to_string(size_));
  if (*moves == 0) {
    if (*score != 0) fail("a score before the first move");
    if (tiles + *spawns != 2) fail("before the first move, board tiles plus pending spawns must be 2");
  } else if (*spawns > 1) {
    fail("two pending spawns after a move");
  }
  if (*spawns > 0 && tiles == num_cells()) fail("a spawn is pending on a full board");
  auto state = std::make_unique<Game2048State>(this);
  std::copy(cells.begin(), cells.begin() + num_cells(), state->cells_);
  state->moves_ = static_cast<int>(*moves);
  state->score_ = *score;
  state->pending_ = static_cast<std::int8_t>(*spawns);
  state->stuck_ = *spawns == 0 && !state->has_move();
  state->recompute_hash();
  return state;
}

GameEntry game2048_entry() {
  util::OptionSchema options;
  options.add_int("size", 4, "board side", Game2048::kMinSize, Game2048::kMaxSize)
      .add_int("max_moves", 0, "end the game after this many moves (0: only when no move is left)", 0,
               Game2048::kCapForLargeBoards);
  return {"2048", "2048", Family::kAction, "slide and merge tiles; score = sum of merged tiles (one player, chance spawns)",
          std::move(options),
          [](const util::OptionSchema::Values& v, const util::Spec& spec) -> std::shared_ptr<const Game> {
            return std::make_shared<Game2048>(spec, v.get_int("size"), v.get_int("max_moves"));
          }};
}

}  // namespace pz::games
