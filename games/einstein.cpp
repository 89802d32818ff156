#include "games/einstein.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "games/board_notation.h"
#include "util/error.h"

namespace pz::games {
namespace {

constexpr int kSize = EinsteinGame::kSize, kCells = EinsteinGame::kCells, kStones = EinsteinGame::kStones;
constexpr int kDie = EinsteinGame::kDieOutcomes;
constexpr int kKeyDie = 2 * kStones * kCells;  // + face (1..6)
constexpr int kKeyBlueToMove = kKeyDie + 7;

const char* colour_name(int seat) { return seat == 0 ? "Red" : "Blue"; }
const char* direction_words(int seat) {
  return seat == 0 ? "right, down or diagonally down-right" : "left, up or diagonally up-left";
}

std::string square(int cell) { return cell_name(cell % kSize, cell / kSize + 1); }

// Red (moving down-right) needs at most 8 + 7 + 6 + 7 + 6 + 6 = 40 moves before a stone
// reaches e5: every move brings one of its stones at least one step closer (captures only
// shorten this). Likewise Blue. Each move follows a roll.
GameInfo make_info(bool random_setup) {
  GameInfo info;
  info.name = "einstein";
  info.long_name = "EinStein würfelt nicht!";
  info.family = Family::kStrategy;
  info.num_players = 2;
  info.num_distinct_actions = 3 * kCells;
  info.max_chance_outcomes = kDie + EinsteinGame::kSetupOutcomes;
  info.observation_shape = {14, kSize, kSize};
  info.policy_shape = {3, kSize, kSize};
  info.max_game_length = 2 * (40 + 40) + (random_setup ? 2 : 0);
  return info;
}

std::vector<Symmetry> make_symmetries(bool random_setup) {
  if (random_setup) return {Symmetry::kIdentity, Symmetry::kTranspose};
  return {Symmetry::kIdentity};
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Game

EinsteinGame::EinsteinGame(util::Spec spec, bool random_setup)
    : Game(make_info(random_setup), std::move(spec), make_symmetries(random_setup)),
      random_setup_(random_setup),
      zobrist_(kKeyBlueToMove + 1, 0xE1257E1DULL) {}

const std::array<int, 6>& EinsteinGame::triangle(int seat) {
  static const std::array<int, 6> red = {0, 1, 2, 5, 6, 10};     // a1 b1 c1 a2 b2 a3
  static const std::array<int, 6> blue = {24, 23, 22, 19, 18, 14};  // e5 d5 c5 e4 d4 e3
  return seat == 0 ? red : blue;
}

std::array<int, 6> EinsteinGame::arrangement_from_rank(int rank) {
  std::array<int, 6> out{}, left = {1, 2, 3, 4, 5, 6};
  int factorial = 120;
  for (int i = 0; i < 6; ++i) {
    const int k = rank / factorial;
    rank %= factorial;
    out[static_cast<size_t>(i)] = left[static_cast<size_t>(k)];
    for (int j = k; j + 1 < 6 - i; ++j) left[static_cast<size_t>(j)] = left[static_cast<size_t>(j + 1)];
    if (i < 5) factorial /= 5 - i;
  }
  return out;
}

int EinsteinGame::rank_of_arrangement(const std::array<int, 6>& arrangement) {
  int rank = 0;
  for (int i = 0; i < 6; ++i) {
    int smaller_after = 0;
    for (int j = i + 1; j < 6; ++j) smaller_after += arrangement[static_cast<size_t>(j)] < arrangement[static_cast<size_t>(i)];
    rank = rank * (6 - i) + smaller_after;
  }
  return rank;
}

std::unique_ptr<State> EinsteinGame::new_initial_state() const { return std::make_unique<EinsteinState>(this); }

Action EinsteinGame::transform_action(Symmetry symmetry, Action action) const {
  switch (symmetry) {
    case Symmetry::kIdentity: return action;
    case Symmetry::kTranspose: {
      const int dir = action / kCells, cell = action % kCells;
      const int new_dir = dir == 2 ? 2 : 1 - dir;
      return new_dir * kCells + (cell % kSize) * kSize + cell / kSize;
    }
    default: throw std::logic_error(std::string("einstein: unsupported symmetry ") + symmetry_name(symmetry));
  }
}

Action EinsteinGame::transform_chance_outcome(Symmetry symmetry, Action outcome) const {
  if (symmetry == Symmetry::kIdentity || outcome < kDie) return outcome;
  if (symmetry != Symmetry::kTranspose) {
    throw std::logic_error(std::string("einstein: unsupported symmetry ") + symmetry_name(symmetry));
  }
  // Triangle cell i goes to triangle cell image[i] under the transpose (for both corners).
  static const int image[6] = {0, 3, 5, 1, 4, 2};
  const auto from = arrangement_from_rank(outcome - kDie);
  std::array<int, 6> to{};
  for (int i = 0; i < 6; ++i) to[static_cast<size_t>(image[i])] = from[static_cast<size_t>(i)];
  return kDie + rank_of_arrangement(to);
}

std::unique_ptr<State> EinsteinGame::deserialize(std::string_view text) const {
  const std::string quoted = "EinStein position '" + std::string(text) + "'";
  const std::string format =
      "expected five rows of five cells from the top joined by '/' ('.' empty, '1'-'6' Red's stones, 'a'-'f' "
      "Blue's), the side to move ('r' or 'b'), the rolled face ('1'-'6' or '-') and the number of actions played, "
      "e.g. \"123../45.../6...f/...ed/..cba r - 0\"";
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
  if (fields.size() != 4) throw util::UsageError(quoted + " has " + std::to_string(fields.size()) + " fields: " + format);

  auto state = std::make_unique<EinsteinState>(this);
  state->board_.fill(-1);
  state->cell_of_.fill(-1);
  const std::string& board = fields[0];
  if (board.size() != 29) throw util::UsageError(quoted + ": the board '" + board + "' is not 29 characters long: " + format);
  for (int y = 0; y < kSize; ++y) {
    if (y > 0 && board[static_cast<size_t>(y * 6 - 1)] != '/') {
      throw util::UsageError(quoted + ": rows must be separated by '/': " + format);
    }
    for (int x = 0; x < kSize; ++x) {
      const char c = board[static_cast<size_t>(y * 6 + x)];
      const int cell = y * kSize + x;
      int seat, n;
      if (c == '.') continue;
      if (c >= '1' && c <= '6') {
        seat = 0, n = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        seat = 1, n = c - 'a' + 1;
      } else {
        throw util::UsageError(quoted + ": bad character '" + std::string(1, c) + "' on the board: " + format);
      }
      if (state->stone_cell(seat, n) >= 0) {
        throw util::UsageError(quoted + ": " + colour_name(seat) + " has two stones numbered " + std::to_string(n));
      }
      state->put(seat, n, cell);
    }
  }
  const std::string side = util::to_lower(fields[1]);
  if (side != "r" && side != "b") throw util::UsageError(quoted + ": the side to move is '" + fields[1] + "': use 'r' or 'b'");
  const std::string& die = fields[2];
  if (die.size() != 1 || (die[0] != '-' && (die[0] < '1' || die[0] > '6'))) {
    throw util::UsageError(quoted + ": the rolled face is '" + die + "': use '1'-'6', or '-' before the roll");
  }
  auto moves = util::parse_int(fields[3]);
  if (!moves || *moves < 0 || *moves > info_.max_game_length) {
    throw util::UsageError(quoted + ": the number of actions '" + fields[3] + "' is not a number from 0 to " +
                           std::to_string(info_.max_game_length));
  }
  state->moves_ = static_cast<std::int16_t>(*moves);
  state->to_move_ = static_cast<std::int8_t>(side == "r" ? 0 : 1);
  state->die_ = static_cast<std::int8_t>(die[0] == '-' ? 0 : die[0] - '0');

  int count[2] = {0, 0};
  for (int i = 0; i < 2 * kStones; ++i) count[i / kStones] += state->cell_of_[static_cast<size_t>(i)] >= 0;
  const int offset = random_setup_ ? 2 : 0;
  if (state->moves_ < offset) {
    // Setup under way: nothing rolled, Red to act; after Red's arrangement only Red's stones.
    const bool red_done = state->moves_ == 1;
    bool ok = state->to_move_ == 0 && state->die_ == 0 && count[1] == 0 && count[0] == (red_done ? kStones : 0);
    for (int i = 0; ok && red_done && i < 6; ++i) ok = state->owner(triangle(0)[static_cast<size_t>(i)]) == 0;
    if (!ok) {
      throw util::UsageError(quoted + ": with setup=random, after " + std::to_string(state->moves_) +
                             " actions the board must " + (red_done ? "hold just Red's six stones on its triangle" : "be empty") +
                             ", Red to act and nothing rolled");
    }
    state->recompute_hash();
    return state;
  }
  const int k = state->moves_ - offset;  // actions since the setup
  const int expected_side = (k / 2) % 2;
  if (state->to_move_ != expected_side) {
    throw util::UsageError(quoted + ": Red rolls first and turns alternate, so " + colour_name(expected_side) +
                           " is to play after " + fields[3] + " actions, not " + colour_name(state->to_move_));
  }
  if ((k % 2 == 1) != (state->die_ != 0)) {
    throw util::UsageError(quoted + ": after " + fields[3] + " actions the die " +
                           (k % 2 == 1 ? "has been rolled: give the face" : "is still to be rolled: write '-'"));
  }
  const bool red_won = state->owner(kCells - 1) == 0 || count[1] == 0;
  const bool blue_won = state->owner(0) == 1 || count[0] == 0;
  if (red_won && blue_won) throw util::UsageError(quoted + " is unreachable: both players have won");
  if (red_won || blue_won) {
    const int w = red_won ? 0 : 1;
    if (w == state->to_move_ || state->die_ != 0 || k == 0) {
      throw util::UsageError(quoted + " is unreachable: " + colour_name(w) +
                             " has won, so it made the last move and the other side is to roll");
    }
    state->winner_ = static_cast<std::int8_t>(w);
  }
  state->recompute_hash();
  return state;
}

// ---------------------------------------------------------------------------------------
// State

EinsteinState::EinsteinState(const EinsteinGame* game) : State(game) {
  board_.fill(-1);
  cell_of_.fill(-1);
  if (!game->random_setup()) {
    for (int seat = 0; seat < 2; ++seat) {
      for (int i = 0; i < 6; ++i) put(seat, i + 1, EinsteinGame::triangle(seat)[static_cast<size_t>(i)]);
    }
  }
  recompute_hash();
}

void EinsteinState::put(int seat, int number, int cell) {
  const int code = seat * kStones + number - 1;
  board_[static_cast<size_t>(cell)] = static_cast<std::int8_t>(code);
  cell_of_[static_cast<size_t>(code)] = static_cast<std::int8_t>(cell);
  hash_ ^= eg().zobrist()[code * kCells + cell];
}

void EinsteinState::remove(int cell) {
  const int code = board_[static_cast<size_t>(cell)];
  board_[static_cast<size_t>(cell)] = -1;
  cell_of_[static_cast<size_t>(code)] = -1;
  hash_ ^= eg().zobrist()[code * kCells + cell];
}

void EinsteinState::recompute_hash() {
  const auto& z = eg().zobrist();
  hash_ = 0;
  for (int cell = 0; cell < kCells; ++cell) {
    if (board_[static_cast<size_t>(cell)] >= 0) hash_ ^= z[board_[static_cast<size_t>(cell)] * kCells + cell];
  }
  if (die_ > 0) hash_ ^= z[kKeyDie + die_];
  if (to_move_ == 1) hash_ ^= z[kKeyBlueToMove];
}

Player EinsteinState::current_player() const {
  if (winner_ >= 0) return kTerminalPlayer;
  if (in_setup() || die_ == 0) return kChancePlayer;
  return to_move_;
}

int EinsteinState::destination(int seat, int cell, int dir) {
  const int step = seat == 0 ? 1 : -1;
  const int y = cell / kSize + (dir >= 1 ? step : 0), x = cell % kSize + (dir != 1 ? step : 0);
  if (y < 0 || y >= kSize || x < 0 || x >= kSize) return -1;
  return y * kSize + x;
}

int EinsteinState::movable_stones(int face, int out[2]) const {
  if (stone_cell(to_move_, face) >= 0) {
    out[0] = face;
    return 1;
  }
  int n = 0;
  for (int lower = face - 1; lower >= 1; --lower) {
    if (stone_cell(to_move_, lower) >= 0) {
      out[n++] = lower;
      break;
    }
  }
  for (int higher = face + 1; higher <= kStones; ++higher) {
    if (stone_cell(to_move_, higher) >= 0) {
      out[n++] = higher;
      break;
    }
  }
  return n;
}

void EinsteinState::legal_actions(std::vector<Action>& out) const {
  out.clear();
  const Player p = current_player();
  if (p == kTerminalPlayer) return;
  if (p == kChancePlayer) {
    if (in_setup()) {
      for (int r = 0; r < EinsteinGame::kSetupOutcomes; ++r) out.push_back(kDie + r);
    } else {
      for (int f = 0; f < kDie; ++f) out.push_back(f);
    }
    return;
  }
  int stones[2];
  const int n = movable_stones(die_, stones);
  for (int i = 0; i < n; ++i) {
    const int cell = stone_cell(to_move_, stones[i]);
    for (int dir = 0; dir < 3; ++dir) {
      if (destination(to_move_, cell, dir) >= 0) out.push_back(dir * kCells + cell);
    }
  }
  std::sort(out.begin(), out.end());
}

std::vector<std::pair<Action, double>> EinsteinState::chance_outcomes() const {
  std::vector<std::pair<Action, double>> out;
  if (!is_chance_node()) return out;
  if (in_setup()) {
    for (int r = 0; r < EinsteinGame::kSetupOutcomes; ++r) out.emplace_back(kDie + r, 1.0 / EinsteinGame::kSetupOutcomes);
  } else {
    for (int f = 0; f < kDie; ++f) out.emplace_back(f, 1.0 / kDie);
  }
  return out;
}

void EinsteinState::apply_action(Action action) {
  const auto& z = eg().zobrist();
  if (in_setup()) {
    const int seat = moves_;
    const auto arrangement = EinsteinGame::arrangement_from_rank(action - kDie);
    for (int i = 0; i < 6; ++i) put(seat, arrangement[static_cast<size_t>(i)], EinsteinGame::triangle(seat)[static_cast<size_t>(i)]);
    ++moves_;
    return;
  }
  if (die_ == 0) {
    die_ = static_cast<std::int8_t>(action + 1);
    hash_ ^= z[kKeyDie + die_];
    ++moves_;
    return;
  }
  const int seat = to_move_, other = 1 - seat;
  const int from = action % kCells, to = destination(seat, from, action / kCells);
  const int n = number(from);
  if (board_[static_cast<size_t>(to)] >= 0) remove(to);
  remove(from);
  put(seat, n, to);
  hash_ ^= z[kKeyDie + die_] ^ z[kKeyBlueToMove];
  die_ = 0;
  to_move_ = static_cast<std::int8_t>(other);
  ++moves_;
  bool opponent_left = false;
  for (int i = 0; i < kStones; ++i) opponent_left |= cell_of_[static_cast<size_t>(other * kStones + i)] >= 0;
  if (to == (seat == 0 ? kCells - 1 : 0) || !opponent_left) winner_ = static_cast<std::int8_t>(seat);
}

std::string EinsteinState::explain_illegal(Action action) const {
  const Player p = current_player();
  if (p < 0 || action < 0 || action >= 3 * kCells) return State::explain_illegal(action);
  const int from = action % kCells, dir = action / kCells;
  if (owner(from) != to_move_) return "there is no stone of yours on " + square(from);
  const int n = number(from);
  int stones[2];
  const int count = movable_stones(die_, stones);
  if (std::find(stones, stones + count, n) == stones + count) {
    const std::string rolled = "the die shows " + std::to_string(die_);
    if (count == 1 && stones[0] == die_) return rolled + ": you must move stone " + std::to_string(die_);
    std::string choices = "stone " + std::to_string(stones[0]);
    if (count == 2) choices += " or stone " + std::to_string(stones[1]);
    return rolled + " and your stone " + std::to_string(die_) + " has been captured: move " + choices;
  }
  if (destination(to_move_, from, dir) < 0) return "that step leaves the board";
  return State::explain_illegal(action);
}

std::vector<double> EinsteinState::returns() const {
  if (winner_ < 0) return {0.0, 0.0};
  return winner_ == 0 ? std::vector<double>{1.0, -1.0} : std::vector<double>{-1.0, 1.0};
}

void EinsteinState::observation(Player player, float* out) const {
  std::fill(out, out + 14 * kCells, 0.0f);
  for (int cell = 0; cell < kCells; ++cell) {
    const int code = board_[static_cast<size_t>(cell)];
    if (code < 0) continue;
    const int seat = code / kStones, n = code % kStones;
    out[((seat == player ? 0 : kStones) + n) * kCells + cell] = 1.0f;
  }
  if (current_player() == to_move_) {
    int stones[2];
    const int count = movable_stones(die_, stones);
    for (int i = 0; i < count; ++i) out[12 * kCells + stone_cell(to_move_, stones[i])] = 1.0f;
  }
  if (player == 0) std::fill(out + 13 * kCells, out + 14 * kCells, 1.0f);
}

std::string EinsteinState::action_to_string(Player player, Action action) const {
  if (player == kChancePlayer) {
    if (action >= 0 && action < kDie) return "roll " + std::to_string(action + 1);
    if (action >= kDie && action < kDie + EinsteinGame::kSetupOutcomes) {
      std::string out = "setup ";
      for (int n : EinsteinGame::arrangement_from_rank(action - kDie)) out += static_cast<char>('0' + n);
      return out;
    }
    return "(not a chance outcome)";
  }
  const int seat = player == 0 || player == 1 ? player : to_move_;
  if (action < 0 || action >= 3 * kCells) return "(not a move)";
  const int from = action % kCells, to = destination(seat, from, action / kCells);
  if (to < 0) return square(from) + "-(off the board)";
  return square(from) + (board_[static_cast<size_t>(to)] >= 0 ? "x" : "-") + square(to);
}

std::optional<Action> EinsteinState::parse_action(std::string_view text, std::string* error) const {
  auto fail = [&](const std::string& why) -> std::optional<Action> {
    if (error) *error = why;
    return std::nullopt;
  };
  std::string t = util::to_lower(util::trim(text));
  if (is_chance_node()) {
    if (in_setup()) {
      if (t.rfind("setup", 0) == 0) t = util::trim(t.substr(5));
      std::array<int, 6> arrangement{};
      bool seen[7] = {};
      bool ok = t.size() == 6;
      for (size_t i = 0; ok && i < 6; ++i) {
        const int n = t[i] - '0';
        ok = n >= 1 && n <= 6 && !seen[n];
        if (ok) seen[n] = true, arrangement[i] = n;
      }
      if (!ok) {
        return fail("'" + util::trim(text) +
                    "' is not an arrangement: expected 'setup' and the six stone numbers 1-6, each once, on the "
                    "triangle cells from the corner (e.g. setup 123456)");
      }
      return kDie + EinsteinGame::rank_of_arrangement(arrangement);
    }
    if (t.rfind("roll", 0) == 0) t = util::trim(t.substr(4));
    if (t.size() != 1 || t[0] < '1' || t[0] > '6') {
      return fail("'" + util::trim(text) + "' is not a die roll: expected roll 1 to roll 6");
    }
    return t[0] - '1';
  }
  const std::string expected = "expected a step from one cell to the next such as b2-c3 (b2xc3 for a capture)";
  std::string from_text, to_text;
  if (t.size() == 4) {
    from_text = t.substr(0, 2), to_text = t.substr(2);
  } else if (t.size() == 5 && (t[2] == '-' || t[2] == 'x')) {
    from_text = t.substr(0, 2), to_text = t.substr(3);
  } else {
    return fail("'" + util::trim(text) + "' is not a move: " + expected);
  }
  std::string why;
  auto from = parse_cell_name(from_text, kSize, kSize, false, &why);
  if (!from) return fail("'" + t + "': bad starting cell: " + why);
  auto to = parse_cell_name(to_text, kSize, kSize, false, &why);
  if (!to) return fail("'" + t + "': bad destination cell: " + why);
  const int seat = to_move_, step = seat == 0 ? 1 : -1;
  const int dx = to->column - from->column, dy = to->row - from->row;
  int dir = -1;
  if (dx == step && dy == 0) dir = 0;
  if (dx == 0 && dy == step) dir = 1;
  if (dx == step && dy == step) dir = 2;
  if (dir < 0) {
    return fail("'" + t + "' is not a move for " + colour_name(seat) + ": stones step one cell " + direction_words(seat));
  }
  return dir * kCells + (from->row - 1) * kSize + from->column;
}

std::string EinsteinState::to_string() const {
  std::string out = "     a  b  c  d  e\n";
  for (int y = 0; y < kSize; ++y) {
    out += "  " + std::to_string(y + 1) + " ";
    for (int x = 0; x < kSize; ++x) {
      const int cell = y * kSize + x;
      if (board_[static_cast<size_t>(cell)] < 0) {
        out += "  .";
      } else {
        out += owner(cell) == 0 ? " R" : " B";
        out += static_cast<char>('0' + number(cell));
      }
    }
    out += "\n";
  }
  if (winner_ >= 0) {
    out += std::string(colour_name(winner_)) + " has won";
  } else if (in_setup()) {
    out += std::string("setting up ") + colour_name(moves_) + "'s stones";
  } else if (die_ == 0) {
    out += std::string(colour_name(to_move_)) + " to roll";
  } else {
    int stones[2];
    const int count = movable_stones(die_, stones);
    out += std::string(colour_name(to_move_)) + " rolled " + std::to_string(die_) + ", moves stone " +
           std::to_string(stones[0]) + (count == 2 ? " or " + std::to_string(stones[1]) : "");
  }
  out += " (" + std::to_string(moves_) + " actions played)\n";
  return out;
}

std::string EinsteinState::serialize() const {
  std::string out;
  for (int y = 0; y < kSize; ++y) {
    if (y > 0) out += '/';
    for (int x = 0; x < kSize; ++x) {
      const int cell = y * kSize + x;
      if (board_[static_cast<size_t>(cell)] < 0) {
        out += '.';
      } else {
        out += static_cast<char>((owner(cell) == 0 ? '1' : 'a') + number(cell) - 1);
      }
    }
  }
  out += to_move_ == 0 ? " r " : " b ";
  out += die_ == 0 ? '-' : static_cast<char>('0' + die_);
  out += ' ';
  out += std::to_string(moves_);
  return out;
}

GameEntry einstein_entry() {
  util::OptionSchema options;
  options.add_string("setup", "fixed", "starting arrangement: fixed (123/45/6 from each corner) or random (chance)",
                     {"fixed", "random"});
  return {"einstein", "EinStein würfelt nicht!", Family::kStrategy,
          "roll a die, move that stone towards the far corner; reach it or capture everything", std::move(options),
          [](const util::OptionSchema::Values& v, const util::Spec& spec) -> std::shared_ptr<const Game> {
            return std::make_shared<EinsteinGame>(spec, v.get_string("setup") == "random");
          }};
}

}  // namespace pz::games
