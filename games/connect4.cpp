#include "games/connect4.h"

#include <bit>

#include "util/error.h"

namespace pz::games {
namespace {

GameInfo make_info(int width, int height) {
  GameInfo info;
  info.name = "connect4";
  info.long_name = "Connect Four";
  info.family = Family::kBoard;
  info.num_players = 2;
  info.num_distinct_actions = width;
  info.observation_shape = {3, height, width};
  info.policy_shape = {1, 1, width};
  info.max_game_length = width * height;
  return info;
}

}  // namespace

Connect4Game::Connect4Game(util::Spec spec, int width, int height)
    : Game(make_info(width, height), std::move(spec), {Symmetry::kIdentity, Symmetry::kMirror}),
      width_(width),
      height_(height),
      zobrist_(2 * 64 + 1, 0xC0441EC7F0) {}

std::unique_ptr<State> Connect4Game::new_initial_state() const { return std::make_unique<Connect4State>(this); }

std::unique_ptr<State> Connect4Game::deserialize(std::string_view text) const {
  auto state = std::make_unique<Connect4State>(this);
  for (size_t i = 0; i < text.size(); ++i) {
    std::string error;
    auto action = state->parse_action(text.substr(i, 1), &error);
    if (!action) throw util::UsageError("Connect Four record '" + std::string(text) + "', move " + std::to_string(i + 1) + ": " + error);
    if (state->is_terminal()) throw util::UsageError("Connect Four record '" + std::string(text) + "' goes on after the game ended at move " + std::to_string(i));
    if (!state->is_legal(*action)) throw util::UsageError("Connect Four record '" + std::string(text) + "', move " + std::to_string(i + 1) + ": column " + text[i] + " is full");
    state->apply_action(*action);
  }
  return state;
}

Connect4State::Connect4State(const Connect4Game* game) : State(game) { hash_ = game->zobrist()[128]; }

Player Connect4State::current_player() const {
  if (winner_ >= 0 || moves_ == c4().width() * c4().height()) return kTerminalPlayer;
  return moves_ & 1;
}

void Connect4State::legal_actions(std::vector<Action>& out) const {
  out.clear();
  if (current_player() == kTerminalPlayer) return;
  const int h = c4().height();
  for (int col = 0; col < c4().width(); ++col) {
    if (!(mask_ >> (col * (h + 1) + h - 1) & 1)) out.push_back(col);
  }
}

bool Connect4State::has_four(std::uint64_t b, int height) {
  const int steps[4] = {1, height + 1, height, height + 2};  // vertical, horizontal, two diagonals
  for (int d : steps) {
    std::uint64_t m = b & (b >> d);
    if (m & (m >> (2 * d))) return true;
  }
  return false;
}

std::uint64_t Connect4State::landing_bit(int column) const {
  // The column's discs are a run of bits from its bottom: adding the bottom bit carries into
  // the first empty cell.
  const std::uint64_t bottom = 1ULL << (column * (c4().height() + 1));
  return (mask_ | (mask_ + bottom)) ^ mask_;
}

bool Connect4State::may_end_game(Action column) const {
  const int player = moves_ & 1;
  return has_four(discs_[player] | landing_bit(column), c4().height()) || moves_ + 1 == c4().width() * c4().height();
}

void Connect4State::apply_action(Action column) {
  const int h = c4().height();
  const int player = moves_ & 1;
  const std::uint64_t placed = landing_bit(column);
  mask_ |= placed;
  discs_[player] |= placed;
  const int bit = std::countr_zero(placed);
  hash_ ^= c4().zobrist()[player * 64 + bit] ^ c4().zobrist()[128];
  ++moves_;
  history_text_ += static_cast<char>('1' + column);
  if (has_four(discs_[player], h)) winner_ = player;
}

std::string Connect4State::explain_illegal(Action action) const {
  if (!is_terminal() && action >= 0 && action < c4().width()) return "column " + std::to_string(action + 1) + " is full";
  return State::explain_illegal(action);
}

std::vector<double> Connect4State::returns() const {
  if (winner_ < 0) return {0.0, 0.0};
  return winner_ == 0 ? std::vector<double>{1.0, -1.0} : std::vector<double>{-1.0, 1.0};
}

int Connect4State::owner(int column, int row) const {
  const int bit = column * (c4().height() + 1) + row;
  if (discs_[0] >> bit & 1) return 0;
  if (discs_[1] >> bit & 1) return 1;
  return -1;
}

void Connect4State::observation(Player player, float* out) const {
  const int w = c4().width(), h = c4().height(), hw = w * h;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const int o = owner(x, h - 1 - y), i = y * w + x;
      out[i] = o == player ? 1.0f : 0.0f;
      out[hw + i] = o == 1 - player ? 1.0f : 0.0f;
      out[2 * hw + i] = player == 0 ? 1.0f : 0.0f;
    }
  }
}

std::string Connect4State::action_to_string(Player, Action action) const { return std::to_string(action + 1); }

std::optional<Action> Connect4State::parse_action(std::string_view text, std::string* error) const {
  auto column = util::parse_int(text);
  const int w = c4().width();
  if (!column || *column < 1 || *column > w) {
    if (error) *error = "'" + util::trim(text) + "' is not a column: expected a number from 1 to " + std::to_string(w);
    return std::nullopt;
  }
  return static_cast<Action>(*column - 1);
}

std::string Connect4State::to_string() const {
  const int w = c4().width(), h = c4().height();
  std::string out;
  for (int row = h - 1; row >= 0; --row) {
    out += "|";
    for (int col = 0; col < w; ++col) {
      const int o = owner(col, row);
      out += o == 0 ? 'X' : o == 1 ? 'O' : '.';
      out += col + 1 < w ? " " : "|\n";
    }
  }
  out += " ";
  for (int col = 0; col < w; ++col) out += std::to_string(col + 1) + (col + 1 < w ? " " : "\n");
  return out;
}

GameEntry connect4_entry() {
  util::OptionSchema options;
  options.add_int("width", 7, "number of columns", 4, 9).add_int("height", 6, "number of rows", 4, 9);
  return {"connect4", "Connect Four", Family::kBoard, "drop discs, four in a row wins", std::move(options),
          [](const util::OptionSchema::Values& v, const util::Spec& spec) -> std::shared_ptr<const Game> {
            const int w = v.get_int("width"), h = v.get_int("height");
            if (w * (h + 1) > 64) {
              throw util::UsageError("connect4 board " + std::to_string(w) + "x" + std::to_string(h) +
                                     " is too large: width*(height+1) must be at most 64 (e.g. 9x6, 8x7, 7x7)");
            }
            return std::make_shared<Connect4Game>(spec, w, h);
          }};
}

}  // namespace pz::games
