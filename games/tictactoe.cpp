#include "games/tictactoe.h"

#include <bit>

#include "games/board_notation.h"
#include "util/error.h"

namespace pz::games {
namespace {

constexpr std::uint16_t kFull = 0x1FF;
constexpr std::uint16_t kLines[8] = {0007, 0070, 0700, 0111, 0222, 0444, 0421, 0124};

GameInfo make_info() {
  GameInfo info;
  info.name = "tictactoe";
  info.long_name = "Tic-tac-toe";
  info.family = Family::kBoard;
  info.num_players = 2;
  info.num_distinct_actions = 9;
  info.observation_shape = {3, 3, 3};
  info.policy_shape = {1, 3, 3};
  info.max_game_length = 9;
  return info;
}

}  // namespace

TicTacToeGame::TicTacToeGame(util::Spec spec)
    : Game(make_info(), std::move(spec),
           {Symmetry::kIdentity, Symmetry::kRotate90, Symmetry::kRotate180, Symmetry::kRotate270, Symmetry::kMirror,
            Symmetry::kFlip, Symmetry::kTranspose, Symmetry::kAntiTranspose}),
      zobrist_(2 * 9 + 1, 0x7177AC70E) {}

std::unique_ptr<State> TicTacToeGame::new_initial_state() const {
  auto state = std::make_unique<TicTacToeState>(this);
  state->hash_ = zobrist_[18];  // X to move
  return state;
}

std::unique_ptr<State> TicTacToeGame::deserialize(std::string_view text) const {
  auto state = std::make_unique<TicTacToeState>(this);
  state->hash_ = zobrist_[18];
  if (text.size() != 9) throw util::UsageError("tic-tac-toe position must be 9 characters of x, o or '.', got '" + std::string(text) + "'");
  int counts[2] = {0, 0};
  for (int cell = 0; cell < 9; ++cell) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[cell])));
    if (c == '.') continue;
    if (c != 'x' && c != 'o') throw util::UsageError(std::string("bad character '") + text[cell] + "' in tic-tac-toe position: use x, o or '.'");
    counts[c == 'o']++;
  }
  if (counts[0] != counts[1] && counts[0] != counts[1] + 1) {
    throw util::UsageError("tic-tac-toe position '" + std::string(text) + "' is unreachable: X must have as many marks as O or one more");
  }
  // Place X and O marks alternately so the side-to-move part of the hash is as in play.
  int next[2] = {0, 0};
  bool has_line[2] = {false, false};
  for (int turn = 0; turn < counts[0] + counts[1]; ++turn) {
    int p = turn % 2;
    char mark = p == 0 ? 'x' : 'o';
    while (std::tolower(static_cast<unsigned char>(text[next[p]])) != mark) ++next[p];
    state->place(p, next[p]++);
    if (state->winner_ == p) has_line[p] = true;
  }
  if (has_line[0] && has_line[1]) {
    throw util::UsageError("tic-tac-toe position '" + std::string(text) + "' is unreachable: both players have a line");
  }
  return state;
}

int TicTacToeState::move_number() const { return std::popcount(static_cast<unsigned>(marks_[0] | marks_[1])); }

Player TicTacToeState::current_player() const {
  if (winner_ >= 0 || (marks_[0] | marks_[1]) == kFull) return kTerminalPlayer;
  return move_number() % 2;
}

int TicTacToeState::owner(int cell) const {
  if (marks_[0] >> cell & 1) return 0;
  if (marks_[1] >> cell & 1) return 1;
  return -1;
}

void TicTacToeState::legal_actions(std::vector<Action>& out) const {
  out.clear();
  if (current_player() == kTerminalPlayer) return;
  for (int cell = 0; cell < 9; ++cell) {
    if (!((marks_[0] | marks_[1]) >> cell & 1)) out.push_back(cell);
  }
}

void TicTacToeState::place(int player, int cell) {
  const auto& z = static_cast<const TicTacToeGame&>(game()).zobrist();
  marks_[player] |= static_cast<std::uint16_t>(1u << cell);
  hash_ ^= z[player * 9 + cell] ^ z[18];
  for (std::uint16_t line : kLines) {
    if ((marks_[player] & line) == line) winner_ = player;
  }
}

void TicTacToeState::apply_action(Action action) { place(current_player(), action); }

std::string TicTacToeState::explain_illegal(Action action) const {
  if (!is_terminal() && action >= 0 && action < 9 && owner(action) >= 0) return "cell " + action_to_string(0, action) + " is taken";
  return State::explain_illegal(action);
}

std::vector<double> TicTacToeState::returns() const {
  if (winner_ < 0) return {0.0, 0.0};
  return winner_ == 0 ? std::vector<double>{1.0, -1.0} : std::vector<double>{-1.0, 1.0};
}

void TicTacToeState::observation(Player player, float* out) const {
  for (int cell = 0; cell < 9; ++cell) {
    out[cell] = static_cast<float>(marks_[player] >> cell & 1);
    out[9 + cell] = static_cast<float>(marks_[1 - player] >> cell & 1);
    out[18 + cell] = player == 0 ? 1.0f : 0.0f;
  }
}

std::string TicTacToeState::action_to_string(Player, Action action) const {
  return cell_name(action % 3, action / 3 + 1);
}

std::optional<Action> TicTacToeState::parse_action(std::string_view text, std::string* error) const {
  std::string t = util::trim(text);
  if (t.size() == 1 && t[0] >= '1' && t[0] <= '9') return t[0] - '1';
  auto cell = parse_cell_name(t, 3, 3, false, error);
  if (!cell) {
    if (error) *error += " (or a digit 1-9 in reading order)";
    return std::nullopt;
  }
  return (cell->row - 1) * 3 + cell->column;
}

std::string TicTacToeState::to_string() const {
  std::string out = "   a b c\n";
  for (int row = 0; row < 3; ++row) {
    out += " " + std::to_string(row + 1) + " ";
    for (int col = 0; col < 3; ++col) {
      int o = owner(row * 3 + col);
      out += o == 0 ? 'X' : o == 1 ? 'O' : '.';
      out += col < 2 ? " " : "\n";
    }
  }
  return out;
}

std::string TicTacToeState::serialize() const {
  std::string out;
  for (int cell = 0; cell < 9; ++cell) {
    int o = owner(cell);
    out += o == 0 ? 'x' : o == 1 ? 'o' : '.';
  }
  return out;
}

GameEntry tictactoe_entry() {
  return {"tictactoe", "Tic-tac-toe", Family::kBoard, "three in a row on 3x3", util::OptionSchema(),
          [](const util::OptionSchema::Values&, const util::Spec& spec) -> std::shared_ptr<const Game> {
            return std::make_shared<TicTacToeGame>(spec);
          }};
}

}  // namespace pz::games
