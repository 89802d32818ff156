#include "games/breakthrough.h"

#include <bit>
#include <cctype>
#include <stdexcept>

#include "games/board_notation.h"
#include "util/error.h"

namespace pz::games {
namespace {

constexpr int kMinRows = 5, kMaxRows = 8, kMinColumns = 4, kMaxColumns = 8;

const char* colour_name(int seat) { return seat == 0 ? "White" : "Black"; }

GameInfo make_info(int rows, int columns) {
  GameInfo info;
  info.name = "breakthrough";
  info.long_name = "Breakthrough";
  info.family = Family::kBoard;
  info.num_players = 2;
  info.num_distinct_actions = 3 * rows * columns;
  info.observation_shape = {3, rows, columns};
  info.policy_shape = {3, rows, columns};
  // Every move takes a pawn one row forward. A side's pawns start on its two home rows and
  // can make (rows-2) + (rows-3) moves per column before one more would reach the far row,
  // which ends the game: so at most 2·columns·(2·rows-5) moves plus the winning one.
  info.max_game_length = 2 * columns * (2 * rows - 5) + 1;
  return info;
}

}  // namespace

BreakthroughGame::BreakthroughGame(util::Spec spec, int rows, int columns)
    : Game(make_info(rows, columns), std::move(spec), {Symmetry::kIdentity, Symmetry::kMirror}),
      rows_(rows),
      columns_(columns),
      zobrist_(2 * 64 + 1, 0xB7EA7C4209ULL) {
  if (rows < kMinRows || rows > kMaxRows || columns < kMinColumns || columns > kMaxColumns) {
    throw std::logic_error("breakthrough: board size out of range");
  }
  const int n = rows * columns;
  full_ = n == 64 ? ~0ULL : (1ULL << n) - 1;
  for (int y = 0; y < rows; ++y) {
    first_column_ |= 1ULL << (y * columns);
    last_column_ |= 1ULL << (y * columns + columns - 1);
  }
  top_row_ = (1ULL << columns) - 1;
  bottom_row_ = top_row_ << ((rows - 1) * columns);
}

std::unique_ptr<State> BreakthroughGame::new_initial_state() const { return std::make_unique<BreakthroughState>(this); }

Action BreakthroughGame::transform_action(Symmetry symmetry, Action action) const {
  switch (symmetry) {
    case Symmetry::kIdentity: return action;
    case Symmetry::kMirror: {
      const int n = cells(), dir = action / n, cell = action % n;
      const int y = cell / columns_, x = cell % columns_;
      return (2 - dir) * n + y * columns_ + (columns_ - 1 - x);
    }
    default: throw std::logic_error(std::string("breakthrough: unsupported symmetry ") + symmetry_name(symmetry));
  }
}

std::unique_ptr<State> BreakthroughGame::deserialize(std::string_view text) const {
  const std::string quoted = "Breakthrough position '" + std::string(text) + "'";
  const std::string format = "expected the board (" + std::to_string(cells()) +
                             " characters 'w', 'b' or '.', in reading order from the top), a space, the side to move "
                             "('w' or 'b'), a space and the move number";
  // Split on whitespace.
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
  if (static_cast<int>(board.size()) != cells()) {
    throw util::UsageError(quoted + ": the board has " + std::to_string(board.size()) + " characters, a " +
                           std::to_string(rows_) + "x" + std::to_string(columns_) + " board needs " +
                           std::to_string(cells()) + "; " + format);
  }
  auto state = std::make_unique<BreakthroughState>(this);
  state->pawns_[0] = state->pawns_[1] = 0;
  for (int cell = 0; cell < cells(); ++cell) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(board[static_cast<size_t>(cell)])));
    if (c == 'w') {
      state->pawns_[0] |= 1ULL << cell;
    } else if (c == 'b') {
      state->pawns_[1] |= 1ULL << cell;
    } else if (c != '.') {
      throw util::UsageError(quoted + ": bad character '" + std::string(1, board[static_cast<size_t>(cell)]) +
                             "' on the board: use 'w' (White pawn), 'b' (Black pawn) or '.' (empty)");
    }
  }
  const std::string side = util::to_lower(fields[1]);
  if (side != "w" && side != "b") {
    throw util::UsageError(quoted + ": the side to move is '" + fields[1] + "': use 'w' (White) or 'b' (Black)");
  }
  state->to_move_ = side == "w" ? 0 : 1;
  auto moves = util::parse_int(fields[2]);
  if (!moves || *moves < 0 || *moves > info_.max_game_length) {
    throw util::UsageError(quoted + ": the move number '" + fields[2] + "' is not a number from 0 to " +
                           std::to_string(info_.max_game_length));
  }
  state->moves_ = static_cast<int>(*moves);
  if (state->moves_ % 2 != state->to_move_) {
    throw util::UsageError(quoted + ": White moves first, so " + colour_name(state->to_move_) +
                           " cannot be to move after " + fields[2] + " moves");
  }
  for (int seat = 0; seat < 2; ++seat) {
    if (std::popcount(state->pawns_[seat]) > 2 * columns_) {
      throw util::UsageError(quoted + ": " + colour_name(seat) + " has " + std::to_string(std::popcount(state->pawns_[seat])) +
                             " pawns, more than the " + std::to_string(2 * columns_) + " it starts with");
    }
  }
  if (state->pawns_[0] == 0 && state->pawns_[1] == 0) throw util::UsageError(quoted + ": there are no pawns on the board");
  const bool white_won = (state->pawns_[0] & top_row_) || state->pawns_[1] == 0;
  const bool black_won = (state->pawns_[1] & bottom_row_) || state->pawns_[0] == 0;
  if (white_won && black_won) {
    throw util::UsageError(quoted + " is unreachable: both players have won (a pawn on the far row or no enemy pawns left)");
  }
  if ((white_won && state->to_move_ == 0) || (black_won && state->to_move_ == 1)) {
    throw util::UsageError(quoted + " is unreachable: " + colour_name(state->to_move_) +
                           " has already won, so the other side made the last move and is to move");
  }
  state->recompute_hash_and_winner();
  return state;
}

BreakthroughState::BreakthroughState(const BreakthroughGame* game) : State(game) {
  const int c = game->columns(), n = game->cells();
  const std::uint64_t two_rows = (1ULL << (2 * c)) - 1;
  pawns_[1] = two_rows;                // rows y = 0, 1: Black's home
  pawns_[0] = two_rows << (n - 2 * c);  // the two bottom rows: White's home
  recompute_hash_and_winner();
}

void BreakthroughState::recompute_hash_and_winner() {
  const auto& g = bt();
  hash_ = to_move_ == 0 ? g.white_to_move_key() : 0;
  for (int seat = 0; seat < 2; ++seat) {
    for (std::uint64_t b = pawns_[seat]; b; b &= b - 1) hash_ ^= g.zobrist()[seat * 64 + std::countr_zero(b)];
  }
  winner_ = -1;
  if (wins(0, pawns_[0], pawns_[1])) winner_ = 0;
  if (wins(1, pawns_[1], pawns_[0])) winner_ = 1;
}

int BreakthroughState::owner(int y, int x) const {
  const int bit = y * bt().columns() + x;
  if (pawns_[0] >> bit & 1) return 0;
  if (pawns_[1] >> bit & 1) return 1;
  return -1;
}

int BreakthroughState::target(int seat, int from, int dir) const {
  const int c = bt().columns();
  return from + (seat == 0 ? -c : c) + dir - 1;
}

void BreakthroughState::legal_actions(std::vector<Action>& out) const {
  out.clear();
  if (winner_ >= 0) return;
  const auto& g = bt();
  const int c = g.columns(), n = g.cells();
  const std::uint64_t own = pawns_[to_move_], empty = g.full_mask() & ~(pawns_[0] | pawns_[1]);
  std::uint64_t targets[3];
  int offset[3];  // from = to + offset
  if (to_move_ == 0) {  // White moves up: towards lower bit indices
    targets[0] = ((own & ~g.first_column()) >> (c + 1)) & ~own;
    targets[1] = (own >> c) & empty;
    targets[2] = ((own & ~g.last_column()) >> (c - 1)) & ~own;
    offset[0] = c + 1, offset[1] = c, offset[2] = c - 1;
  } else {  // Black moves down: towards higher bit indices
    targets[0] = ((own & ~g.first_column()) << (c - 1)) & ~own & g.full_mask();
    targets[1] = (own << c) & empty;
    targets[2] = ((own & ~g.last_column()) << (c + 1)) & ~own & g.full_mask();
    offset[0] = 1 - c, offset[1] = -c, offset[2] = -c - 1;
  }
  // Within a direction, from = to + constant, so ascending targets give ascending actions.
  for (int dir = 0; dir < 3; ++dir) {
    const int base = dir * n + offset[dir];
    for (std::uint64_t b = targets[dir]; b; b &= b - 1) out.push_back(base + std::countr_zero(b));
  }
}

bool BreakthroughState::wins(int seat, std::uint64_t arrived, std::uint64_t opponent_pawns) const {
  return (arrived & (seat == 0 ? bt().top_row() : bt().bottom_row())) != 0 || opponent_pawns == 0;
}

bool BreakthroughState::may_end_game(Action action) const {
  const int n = bt().cells(), seat = to_move_;
  const std::uint64_t to_bit = 1ULL << target(seat, action % n, action / n);
  return wins(seat, to_bit, pawns_[1 - seat] & ~to_bit);
}

void BreakthroughState::apply_action(Action action) {
  const auto& g = bt();
  const int n = g.cells(), seat = to_move_, other = 1 - seat;
  const int from = action % n, to = target(seat, from, action / n);
  const std::uint64_t from_bit = 1ULL << from, to_bit = 1ULL << to;
  pawns_[seat] ^= from_bit | to_bit;
  hash_ ^= g.zobrist()[seat * 64 + from] ^ g.zobrist()[seat * 64 + to] ^ g.white_to_move_key();
  if (pawns_[other] & to_bit) {
    pawns_[other] ^= to_bit;
    hash_ ^= g.zobrist()[other * 64 + to];
  }
  if (wins(seat, to_bit, pawns_[other])) winner_ = static_cast<std::int8_t>(seat);
  to_move_ = static_cast<std::int8_t>(other);
  ++moves_;
}

std::vector<double> BreakthroughState::returns() const {
  if (winner_ < 0) return {0.0, 0.0};
  return winner_ == 0 ? std::vector<double>{1.0, -1.0} : std::vector<double>{-1.0, 1.0};
}

void BreakthroughState::observation(Player player, float* out) const {
  const int n = bt().cells();
  const std::uint64_t mine = pawns_[player], theirs = pawns_[1 - player];
  const float colour = player == 0 ? 1.0f : 0.0f;
  for (int cell = 0; cell < n; ++cell) {
    out[cell] = static_cast<float>(mine >> cell & 1);
    out[n + cell] = static_cast<float>(theirs >> cell & 1);
    out[2 * n + cell] = colour;
  }
}

std::string BreakthroughState::action_to_string(Player player, Action action) const {
  const auto& g = bt();
  const int seat = player == 0 || player == 1 ? player : to_move_;
  const int n = g.cells(), c = g.columns(), r = g.rows();
  const int from = action % n, dir = action / n;
  const int fy = from / c, fx = from % c, ty = fy + (seat == 0 ? -1 : 1), tx = fx + dir - 1;
  const std::string from_name = cell_name(fx, r - fy);
  if (action < 0 || action >= 3 * n || ty < 0 || ty >= r || tx < 0 || tx >= c) {
    return from_name + "-(off the board)";
  }
  const bool capture = pawns_[1 - seat] >> (ty * c + tx) & 1;
  return from_name + (capture ? "x" : "-") + cell_name(tx, r - ty);
}

std::optional<Action> BreakthroughState::parse_action(std::string_view text, std::string* error) const {
  auto fail = [&](const std::string& why) -> std::optional<Action> {
    if (error) *error = why;
    return std::nullopt;
  };
  const auto& g = bt();
  const int r = g.rows(), c = g.columns();
  const std::string t = util::to_lower(util::trim(text));
  const std::string expected = "expected a move from one square to the next such as a2-a3, or b2xc3 for a capture";
  // Columns go up to 'h', so 'x' can only be the capture sign.
  size_t sep = std::string::npos, rest = 0;
  for (size_t i = 1; i < t.size(); ++i) {
    if (t[i] == '-' || t[i] == 'x') {
      sep = i, rest = i + 1;
      break;
    }
  }
  if (sep == std::string::npos) {  // "a2a3": the second square starts at the second letter
    for (size_t i = 1; i < t.size(); ++i) {
      if (std::isalpha(static_cast<unsigned char>(t[i]))) {
        sep = rest = i;
        break;
      }
    }
  }
  if (sep == std::string::npos) return fail("'" + t + "' is not a move: " + expected);
  std::string why;
  auto from = parse_cell_name(std::string_view(t).substr(0, sep), c, r, false, &why);
  if (!from) return fail("'" + t + "': bad starting square: " + why);
  auto to = parse_cell_name(std::string_view(t).substr(rest), c, r, false, &why);
  if (!to) return fail("'" + t + "': bad destination square: " + why);
  const int seat = to_move_;
  const int forward = seat == 0 ? 1 : -1, dx = to->column - from->column;
  if (to->row - from->row != forward || dx < -1 || dx > 1) {
    return fail("'" + t + "' is not a move for " + colour_name(seat) + ", to move: a pawn steps one row " +
                (seat == 0 ? "up (towards row " + std::to_string(r) + ")" : std::string("down (towards row 1)")) +
                ", straight or diagonally");
  }
  const int from_cell = (r - from->row) * c + from->column;
  return (dx + 1) * g.cells() + from_cell;
}

std::string BreakthroughState::to_string() const {
  const auto& g = bt();
  const int r = g.rows(), c = g.columns();
  std::string letters = "   ";
  for (int x = 0; x < c; ++x) letters += column_letter(x) + (x + 1 < c ? " " : "\n");
  std::string out = letters;
  for (int y = 0; y < r; ++y) {
    const std::string row = std::to_string(r - y);
    out += " " + row + " ";
    for (int x = 0; x < c; ++x) {
      const int o = owner(y, x);
      out += o == 0 ? 'W' : o == 1 ? 'B' : '.';
      out += ' ';
    }
    out += row + "\n";
  }
  out += letters;
  if (winner_ >= 0) {
    out += std::string(colour_name(winner_)) + " has won";
  } else {
    out += std::string(colour_name(to_move_)) + " to move";
  }
  out += " (" + std::to_string(moves_) + " moves played)\n";
  return out;
}

std::string BreakthroughState::serialize() const {
  const auto& g = bt();
  std::string out;
  out.reserve(static_cast<size_t>(g.cells()) + 6);
  for (int cell = 0; cell < g.cells(); ++cell) {
    out += (pawns_[0] >> cell & 1) ? 'w' : (pawns_[1] >> cell & 1) ? 'b' : '.';
  }
  out += to_move_ == 0 ? " w " : " b ";
  out += std::to_string(moves_);
  return out;
}

GameEntry breakthrough_entry() {
  util::OptionSchema options;
  options.add_int("rows", 8, "number of rows", kMinRows, kMaxRows)
      .add_int("columns", 8, "number of columns", kMinColumns, kMaxColumns);
  return {"breakthrough", "Breakthrough", Family::kBoard, "race a pawn to the far row; pawns capture diagonally",
          std::move(options),
          [](const util::OptionSchema::Values& v, const util::Spec& spec) -> std::shared_ptr<const Game> {
            const int rows = v.get_int("rows"), columns = v.get_int("columns");
            if (rows * columns > 64) {  // cannot happen within the ranges; kept for wider ones
              throw util::UsageError("breakthrough board " + std::to_string(rows) + "x" + std::to_string(columns) +
                                     " is too large: rows*columns must be at most 64");
            }
            return std::make_shared<BreakthroughGame>(spec, rows, columns);
          }};
}

std::string BreakthroughState::explain_illegal(Action action) const {
  const auto& g = bt();
  if (is_terminal() || action < 0 || action >= 3 * g.cells()) return State::explain_illegal(action);
  const int from = action % g.cells(), dir = action / g.cells();
  const int fy = from / g.columns(), fx = from % g.columns();
  auto square = [&](int y, int x) { return std::string(1, static_cast<char>('a' + x)) + std::to_string(g.rows() - y); };
  if (owner(fy, fx) != to_move_) return "there is no pawn of yours on " + square(fy, fx);
  const int tx = fx + dir - 1;
  if (tx < 0 || tx >= g.columns()) return "that move leaves the board";
  const int to = target(to_move_, from, dir), ty = to / g.columns();
  const int there = owner(ty, tx);
  if (there == to_move_) return square(ty, tx) + " holds your own pawn";
  if (there >= 0 && dir == 1) return "a pawn captures only diagonally: " + square(ty, tx) + " is blocked";
  return State::explain_illegal(action);
}

}  // namespace pz::games
