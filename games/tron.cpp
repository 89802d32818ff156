#include "games/tron.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <stdexcept>

#include "games/board_notation.h"
#include "games/move_record.h"
#include "games/grid_directions.h"
#include "util/error.h"

namespace pz::games {
namespace {


GameInfo make_info(int rows, int columns) {
  GameInfo info;
  info.name = "tron";
  info.long_name = "Tron";
  info.family = Family::kAction;
  info.num_players = 2;
  info.num_distinct_actions = 4;
  info.observation_shape = {5, rows, columns};
  info.policy_shape = {4, 1, 1};
  info.simultaneous = true;
  info.max_game_length = (rows * columns - 2) / 2 + 1;
  return info;
}

std::vector<Symmetry> tron_symmetries(int rows) {
  if (rows % 2 == 1) return {Symmetry::kIdentity, Symmetry::kFlip};
  return {Symmetry::kIdentity};
}

}  // namespace

TronGame::TronGame(util::Spec spec, int rows, int columns)
    : Game(make_info(rows, columns), std::move(spec), tron_symmetries(rows)),
      rows_(rows),
      columns_(columns),
      zobrist_(4 * kMaxCells + 2, 0x7A0A11C9C1EULL + static_cast<std::uint64_t>(rows * 32 + columns)) {
  assert(rows >= kMinSide && rows <= kMaxSide && columns >= kMinSide && columns <= kMaxSide);
}

int TronGame::start_cell(int player) const {
  const int y = (rows_ - 1) / 2, x = columns_ / 4;
  return y * columns_ + (player == 0 ? x : columns_ - 1 - x);
}

std::unique_ptr<State> TronGame::new_initial_state() const { return std::make_unique<TronState>(this); }

Action TronGame::transform_action(Symmetry symmetry, Action action) const { return transform_direction(symmetry, action); }

TronState::TronState(const TronGame* game) : State(game) {
  for (int p = 0; p < 2; ++p) {
    const int c = game->start_cell(p);
    head_[p] = static_cast<std::int16_t>(c);
    trail_[p][c >> 6] |= std::uint64_t{1} << (c & 63);
    hash_ ^= game->trail_key(p, c) ^ game->head_key(p, c);
  }
}

Player TronState::current_player() const {
  return crashed_[0] || crashed_[1] ? kTerminalPlayer : kSimultaneousPlayer;
}

void TronState::legal_actions(Player player, std::vector<Action>& out) const {
  out.clear();
  if (current_player() == kTerminalPlayer || player < 0 || player > 1) return;
  out = {0, 1, 2, 3};
}

std::string TronState::explain_illegal(Action action) const {
  if (current_player() == kTerminalPlayer) return "the game is over";
  if (action < 0 || action > 3) return "not a direction";
  return "both players move at once: submit a joint action (one direction per player)";
}

void TronState::apply_action(Action) {
  throw std::logic_error("tron: both players move at once; use apply_joint_action");
}

int TronState::owner(int cell) const {
  if (on_trail(0, cell)) return 0;
  if (on_trail(1, cell)) return 1;
  return -1;
}

void TronState::apply_joint_action(const std::vector<Action>& actions) {
  const TronGame& game = g();
  assert(actions.size() == 2 && !crashed_[0] && !crashed_[1]);
  const int columns = game.columns();
  int target[2];
  for (int p = 0; p < 2; ++p) {
    const Action a = actions[static_cast<size_t>(p)];
    assert(a >= 0 && a < 4);
    const int y = head_[p] / columns + kDirectionDy[a], x = head_[p] % columns + kDirectionDx[a];
    target[p] = -1;
    if (y < 0 || y >= game.rows() || x < 0 || x >= columns) continue;
    const int c = y * columns + x;
    if (owner(c) < 0) target[p] = c;
  }
  if (target[0] >= 0 && target[0] == target[1]) target[0] = target[1] = -1;  // head-on
  for (int p = 0; p < 2; ++p) {
    if (target[p] < 0) {
      crashed_[p] = true;
      hash_ ^= game.crash_key(p);
      continue;
    }
    const int c = target[p];
    trail_[p][c >> 6] |= std::uint64_t{1} << (c & 63);
    hash_ ^= game.trail_key(p, c) ^ game.head_key(p, head_[p]) ^ game.head_key(p, c);
    head_[p] = static_cast<std::int16_t>(c);
  }
  joint_[steps_] = static_cast<std::uint8_t>(actions[0] | (actions[1] << 2));
  ++steps_;
}

std::vector<double> TronState::returns() const {
  if (crashed_[0] == crashed_[1]) return {0.0, 0.0};
  return crashed_[0] ? std::vector<double>{-1.0, 1.0} : std::vector<double>{1.0, -1.0};
}

void TronState::observation(Player player, float* out) const {
  const int n = g().num_cells();
  const int me = player, other = 1 - player;
  std::fill(out, out + 5 * n, 0.0f);
  for (int c = 0; c < n; ++c) {
    out[c] = on_trail(me, c) ? 1.0f : 0.0f;
    out[2 * n + c] = on_trail(other, c) ? 1.0f : 0.0f;
  }
  out[n + head_[me]] = 1.0f;
  out[3 * n + head_[other]] = 1.0f;
  std::fill(out + 4 * n, out + 5 * n, 1.0f);
}

std::string TronState::action_to_string(Player, Action action) const {
  if (action >= 0 && action < 4) return kDirectionNames[action];
  return "?" + std::to_string(action);
}

std::optional<Action> TronState::parse_action(std::string_view text, std::string* error) const {
  return parse_direction(text, error);
}

std::string TronState::to_string() const {
  const TronGame& game = g();
  const int rows = game.rows(), columns = game.columns();
  std::string out = "   ";
  for (int x = 0; x < columns; ++x) out += column_letter(x) + (x + 1 < columns ? " " : "\n");
  for (int y = 0; y < rows; ++y) {
    const std::string label = std::to_string(y + 1);
    out += (label.size() < 2 ? " " : "") + label + " ";
    for (int x = 0; x < columns; ++x) {
      const int c = y * columns + x, o = owner(c);
      char ch = '.';
      if (o >= 0) ch = c == head_[o] ? (o == 0 ? 'X' : 'O') : (o == 0 ? 'x' : 'o');
      out += ch;
      out += x + 1 < columns ? " " : "\n";
    }
  }
  out += "Step " + std::to_string(steps_);
  if (crashed_[0] && crashed_[1]) out += ": both players crashed, a draw.\n";
  else if (crashed_[0]) out += ": player 1 (X) crashed, player 2 (O) wins.\n";
  else if (crashed_[1]) out += ": player 2 (O) crashed, player 1 (X) wins.\n";
  else out += ", both players move at once.\n";
  return out;
}

std::string TronState::serialize() const {
  std::string out;
  out.reserve(static_cast<size_t>(steps_) * 3);
  for (int s = 0; s < steps_; ++s) {
    if (s) out += ' ';
    out += kDirectionNames[joint_[s] & 3][0];
    out += kDirectionNames[joint_[s] >> 2][0];
  }
  return out;
}

std::unique_ptr<State> TronGame::deserialize(std::string_view text) const {
  auto state = std::make_unique<TronState>(this);
  for_each_word(text, [&](int step, std::string_view word) {
    const std::string token(word);
    auto fail = [&](const std::string& why) {
      throw util::UsageError("tron record '" + std::string(text) + "', step " + std::to_string(step) + " '" + token +
                             "': " + why);
    };
    if (state->is_terminal()) fail("the game already ended");
    if (token.size() != 2) fail("a step is two letters, player 1's move then player 2's, each u, r, d or l (e.g. 'rl')");
    std::vector<Action> joint;
    for (char ch : token) {
      auto a = state->parse_action(std::string(1, ch));
      if (!a) fail(std::string("'") + ch + "' is not a move (u, r, d or l)");
      joint.push_back(*a);
    }
    state->apply_joint_action(joint);
  });
  return state;
}

GameEntry tron_entry() {
  util::OptionSchema options;
  options.add_int("rows", 11, "board height", TronGame::kMinSide, TronGame::kMaxSide)
      .add_int("columns", 11, "board width", TronGame::kMinSide, TronGame::kMaxSide);
  return {"tron", "Tron", Family::kAction, "light cycles: both move at once, leave walls; crash = loss, both = draw",
          std::move(options),
          [](const util::OptionSchema::Values& v, const util::Spec& spec) -> std::shared_ptr<const Game> {
            return std::make_shared<TronGame>(spec, v.get_int("rows"), v.get_int("columns"));
          }};
}

}  // namespace pz::games
