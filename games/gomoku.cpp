#include "games/gomoku.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cctype>
#include <cstring>

#include "games/board_notation.h"
#include "games/cell_sets.h"
#include "games/move_record.h"
#include "util/error.h"

namespace pz::games {
namespace {

GameInfo make_info(int size, GomokuGame::Variant variant) {
  const int n = size * size;
  GameInfo info;
  info.name = "gomoku";
  info.long_name = variant == GomokuGame::Variant::kConnect6 ? "Connect6" : "Gomoku";
  info.family = Family::kBoard;
  info.num_players = 2;
  info.num_distinct_actions = n;
  info.observation_shape = {GomokuGame::kObservationPlanes, size, size};
  info.policy_shape = {1, size, size};
  info.max_game_length = n;  // one stone per action, at most one per cell
  return info;
}

const char* colour_name(int seat) { return seat == 0 ? "Black (X)" : "White (O)"; }

}  // namespace

GomokuGame::GomokuGame(util::Spec spec, int size, Variant variant)
    : Game(make_info(size, variant), std::move(spec),
           {Symmetry::kIdentity, Symmetry::kRotate90, Symmetry::kRotate180, Symmetry::kRotate270, Symmetry::kMirror,
            Symmetry::kFlip, Symmetry::kTranspose, Symmetry::kAntiTranspose}),
      size_(size),
      variant_(variant),
      zobrist_(2 * kMaxCells + 2, 0x60D0C0FFEE5ULL + static_cast<std::uint64_t>(size)) {
  assert(size >= kMinSize && size <= kMaxSize);
}

std::unique_ptr<State> GomokuGame::new_initial_state() const { return std::make_unique<GomokuState>(this); }

std::unique_ptr<State> GomokuGame::deserialize(std::string_view text) const {
  auto state = std::make_unique<GomokuState>(this);
  replay_move_record(*state, text);
  return state;
}

GomokuState::GomokuState(const GomokuGame* game) : State(game) {
  std::memset(cell_, 0, sizeof(cell_));
  std::memset(history_, 0, sizeof(history_));
  const int n = game->num_cells();
  for (int w = 0; w < kWords; ++w) {
    const int bits = std::clamp(n - 64 * w, 0, 64);
    empty_[w] = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  }
}

Player GomokuState::current_player() const { return over() ? kTerminalPlayer : gomoku().mover(moves_); }

void GomokuState::legal_actions(std::vector<Action>& out) const {
  out.clear();
  if (over()) return;
  const int n = gomoku().num_cells();
  out.resize(static_cast<size_t>(n));
  Action* p = out.data();
  int k = write_set_bits(empty_, n, p);
  out.resize(static_cast<size_t>(k));
}

int GomokuState::longest_line(int cell, int colour) const {
  const int size = gomoku().size();
  const int y = cell / size, x = cell % size;
  static constexpr int kDy[4] = {0, 1, 1, 1}, kDx[4] = {1, 0, 1, -1};
  int best = 0;
  for (int d = 0; d < 4; ++d) {
    int run = 1;
    for (int sign = -1; sign <= 1; sign += 2) {
      int ny = y + sign * kDy[d], nx = x + sign * kDx[d];
      while (ny >= 0 && ny < size && nx >= 0 && nx < size && cell_[ny * size + nx] == colour) {
        ++run;
        ny += sign * kDy[d];
        nx += sign * kDx[d];
      }
    }
    best = std::max(best, run);
  }
  return best;
}

void GomokuState::apply_action(Action action) {
  const GomokuGame& g = gomoku();
  assert(!over() && action >= 0 && action < g.num_cells() && cell_[action] == 0);
  const int player = g.mover(moves_);
  cell_[action] = static_cast<std::int8_t>(player + 1);
  ++stones_[player];
  empty_[action >> 6] &= ~(std::uint64_t{1} << (action & 63));
  history_[moves_] = static_cast<std::int16_t>(action);
  hash_ ^= g.zobrist()[player * GomokuGame::kMaxCells + action];
  // Side-to-move and second-stone keys: out with the old, in with the new.
  const int next = moves_ + 1;
  if (g.mover(moves_) != g.mover(next)) hash_ ^= g.zobrist()[2 * GomokuGame::kMaxCells];
  if (g.second_stone(moves_) != g.second_stone(next)) hash_ ^= g.zobrist()[2 * GomokuGame::kMaxCells + 1];
  moves_ = static_cast<std::int16_t>(next);
  if (longest_line(action, player + 1) >= g.win_length()) winner_ = static_cast<std::int8_t>(player);
}

std::string GomokuState::explain_illegal(Action action) const {
  const GomokuGame& g = gomoku();
  if (winner_ >= 0) {
    return std::string("the game already ended (") + colour_name(winner_) + " made " +
           std::to_string(g.win_length()) + " in a row)";
  }
  if (over()) return "the game already ended in a draw (the board is full)";
  if (action >= 0 && action < g.num_cells() && cell_[action] != 0) {
    return "cell " + action_to_string(0, action) + " is already occupied";
  }
  return State::explain_illegal(action);
}

std::vector<double> GomokuState::returns() const {
  if (winner_ < 0) return {0.0, 0.0};
  return winner_ == 0 ? std::vector<double>{1.0, -1.0} : std::vector<double>{-1.0, 1.0};
}

void GomokuState::observation(Player player, float* out) const {
  const int n = gomoku().num_cells();
  const float black = player == 0 ? 1.0f : 0.0f;
  const float second = !over() && second_stone() ? 1.0f : 0.0f;
  const int own = player + 1;
  for (int c = 0; c < n; ++c) {
    const int v = cell_[c];
    out[c] = v == own ? 1.0f : 0.0f;
    out[n + c] = v != 0 && v != own ? 1.0f : 0.0f;
    out[2 * n + c] = black;
    out[3 * n + c] = second;
  }
}

std::string GomokuState::action_to_string(Player, Action action) const {
  const int size = gomoku().size();
  return cell_name(action % size, size - action / size);
}

std::optional<Action> GomokuState::parse_action(std::string_view text, std::string* error) const {
  const int size = gomoku().size();
  auto cell = parse_cell_name(text, size, size, false, error);
  if (!cell) return std::nullopt;
  return (size - cell->row) * size + cell->column;
}

std::string GomokuState::to_string() const {
  const GomokuGame& g = gomoku();
  const int size = g.size();
  std::string out;
  for (int y = 0; y < size; ++y) {
    const std::string label = std::to_string(size - y);
    out += (label.size() < 2 ? " " : "") + label;
    for (int x = 0; x < size; ++x) {
      const int v = cell_[y * size + x];
      out += ' ';
      out += v == 1 ? 'X' : v == 2 ? 'O' : '.';
    }
    out += '\n';
  }
  out += "  ";
  for (int x = 0; x < size; ++x) out += " " + column_letter(x);
  out += '\n';
  const std::string line = std::to_string(g.win_length());
  if (winner_ >= 0) {
    out += std::string(colour_name(winner_)) + " has won with " + line + " in a row.";
  } else if (over()) {
    out += "Draw: the board is full.";
  } else {
    out += std::string(colour_name(current_player())) + " to move";
    if (g.connect6()) out += moves_ == 0 ? " (one stone)" : second_stone() ? " (second stone)" : " (first of two stones)";
    out += ".";
  }
  out += " " + line + " or more in a row wins.\n";
  return out;
}

std::string GomokuState::serialize() const {
  std::string out;
  out.reserve(static_cast<size_t>(moves_) * 4);
  for (int k = 0; k < moves_; ++k) {
    if (k > 0) out += ' ';
    out += action_to_string(gomoku().mover(k), history_[k]);
  }
  return out;
}

GameEntry gomoku_entry() {
  util::OptionSchema options;
  options.add_int("size", 15, "board side (use 19 for standard Connect6)", GomokuGame::kMinSize, GomokuGame::kMaxSize)
      .add_string("variant", "gomoku",
                  "gomoku: one stone a turn, five or more in a row wins; connect6: Black's first turn one stone, "
                  "then two stones a turn, six or more wins",
                  {"gomoku", "connect6"});
  return {"gomoku", "Gomoku", Family::kBoard, "five in a row (freestyle); Connect6 with variant=connect6",
          std::move(options),
          [](const util::OptionSchema::Values& v, const util::Spec& spec) -> std::shared_ptr<const Game> {
            const auto variant = v.get_string("variant") == "connect6" ? GomokuGame::Variant::kConnect6
                                                                       : GomokuGame::Variant::kGomoku;
            return std::make_shared<GomokuGame>(spec, v.get_int("size"), variant);
          }};
}

}  // namespace pz::games
