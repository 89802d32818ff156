#include "games/hex.h"

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

GameInfo make_info(int size, bool swap) {
  const int n = size * size;
  GameInfo info;
  info.name = "hex";
  info.long_name = "Hex";
  info.family = Family::kBoard;
  info.num_players = 2;
  info.num_distinct_actions = n + 1;  // cells, then swap
  info.observation_shape = {HexGame::kObservationPlanes, size, size};
  info.policy_shape = {2, size, size};
  // Every move but the swap adds a stone, and a full board has a winner.
  info.max_game_length = n + (swap ? 1 : 0);
  return info;
}

}  // namespace

HexGame::HexGame(util::Spec spec, int size, bool swap)
    : Game(make_info(size, swap), std::move(spec), {Symmetry::kIdentity, Symmetry::kRotate180}),
      size_(size),
      num_cells_(size * size),
      swap_{swap, size * size},
      zobrist_(2 * size * size + 2, 0x4E78AB5EED0011ULL + static_cast<std::uint64_t>(size)) {
  assert(size >= kMinSize && size <= kMaxSize);
  adjacency_.resize(static_cast<size_t>(num_cells_));
  const int dy[6] = {-1, -1, 0, 0, 1, 1}, dx[6] = {0, 1, -1, 1, -1, 0};
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      Adjacency& a = adjacency_[static_cast<size_t>(y * size + x)];
      a.num_cells = 0;
      for (int d = 0; d < 6; ++d) {
        const int ny = y + dy[d], nx = x + dx[d];
        if (ny < 0 || ny >= size || nx < 0 || nx >= size) continue;
        a.cells[a.num_cells++] = static_cast<std::int16_t>(ny * size + nx);
      }
      for (int d = a.num_cells; d < 6; ++d) a.cells[d] = -1;
      a.edge[0][0] = static_cast<std::int16_t>(y == 0 ? kTop : -1);
      a.edge[0][1] = static_cast<std::int16_t>(y == size - 1 ? kBottom : -1);
      a.edge[1][0] = static_cast<std::int16_t>(x == 0 ? kLeft : -1);
      a.edge[1][1] = static_cast<std::int16_t>(x == size - 1 ? kRight : -1);
    }
  }
}

std::unique_ptr<State> HexGame::new_initial_state() const { return std::make_unique<HexState>(this); }

Action HexGame::transform_action(Symmetry symmetry, Action action) const {
  if (action == swap_action()) return action;
  return Game::transform_action(symmetry, action);
}

std::unique_ptr<State> HexGame::deserialize(std::string_view text) const {
  auto state = std::make_unique<HexState>(this);
  replay_move_record(*state, text);
  return state;
}

HexState::HexState(const HexGame* game) : State(game) {
  std::memset(stamp_, 0, sizeof(stamp_));
  const int n = game->num_cells();
  for (int w = 0; w < kWords; ++w) {
    const int bits = std::clamp(n - 64 * w, 0, 64);
    empty_[w] = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  }
  std::fill(std::begin(parent_), std::end(parent_), static_cast<std::int16_t>(-1));
  hash_ = game->zobrist()[2 * game->num_cells()];  // Black to move, empty board, no swap yet
}

Player HexState::current_player() const { return winner_ >= 0 ? kTerminalPlayer : (moves_ & 1); }

bool HexState::swap_available() const { return hex().swap_rule().available(moves_, winner_ >= 0); }

void HexState::legal_actions(std::vector<Action>& out) const {
  out.clear();
  if (winner_ >= 0) return;
  const int n = hex().num_cells();
  // Walk the set bits of the empty-cell mask: ascending, and only the empty cells.
  out.resize(static_cast<size_t>(n + 1));
  Action* p = out.data();
  int k = write_set_bits(empty_, n, p);
  if (swap_available()) p[k++] = n;
  out.resize(static_cast<size_t>(k));
}

int HexState::root(int node) const { return union_root(parent_, node); }

int HexState::find(int node) { return union_find(parent_, node); }

void HexState::unite(int a, int b) { union_unite(parent_, a, b); }

void HexState::place(int player, int cell, int stamp) {
  const HexGame& g = hex();
  stamp_[cell] = static_cast<std::int16_t>(stamp);
  empty_[cell >> 6] &= ~(std::uint64_t{1} << (cell & 63));
  parent_[cell] = -1;
  hash_ ^= g.zobrist()[player * g.num_cells() + cell];
  const HexGame::Adjacency& adj = g.adjacency(cell);
  for (int k = 0; k < adj.num_cells; ++k) {
    const int nb = adj.cells[k];
    const int s = stamp_[nb];
    if (s != 0 && ((s - 1) & 1) == player) unite(cell, nb);
  }
  for (int k = 0; k < 2; ++k) {
    if (adj.edge[player][k] >= 0) unite(cell, adj.edge[player][k]);
  }
  const bool won = player == 0 ? find(HexGame::kTop) == find(HexGame::kBottom)
                               : find(HexGame::kLeft) == find(HexGame::kRight);
  if (won) winner_ = static_cast<std::int8_t>(player);
}

void HexState::apply_action(Action action) {
  const HexGame& g = hex();
  const int n = g.num_cells();
  const int player = moves_ & 1;
  assert(winner_ < 0);
  if (action == n) {
    assert(swap_available());
    // The only stone on the board is Black's first one (stamp 1).
    int black = 0;
    while (stamp_[black] != 1) ++black;
    stamp_[black] = 0;
    empty_[black >> 6] |= std::uint64_t{1} << (black & 63);
    hash_ ^= g.zobrist()[black];
    // The union-find held one stone: reset the edges it may have joined.
    for (int e = HexGame::kTop; e <= HexGame::kRight; ++e) parent_[e] = -1;
    parent_[black] = -1;
    const int size = g.size();
    const int mirrored = (black % size) * size + black / size;
    place(1, mirrored, 2);
    swapped_ = true;
  } else {
    assert(action >= 0 && action < n && stamp_[action] == 0);
    place(player, action, moves_ + 1);
  }
  hash_ ^= g.zobrist()[2 * n];  // the key is in while Black is to move
  if (g.swap_rule().key_changes(moves_)) hash_ ^= g.zobrist()[2 * n + 1];
  ++moves_;
}

bool HexState::may_end_game(Action action) const {
  const HexGame& g = hex();
  if (action >= g.num_cells()) return false;  // the swap
  const int player = moves_ & 1;
  const int first = root(player == 0 ? HexGame::kTop : HexGame::kLeft);
  const int second = root(player == 0 ? HexGame::kBottom : HexGame::kRight);
  bool joins_first = false, joins_second = false;
  const auto join = [&](int node) {
    const int r = root(node);
    joins_first |= r == first;
    joins_second |= r == second;
  };
  const HexGame::Adjacency& adj = g.adjacency(action);
  for (int k = 0; k < adj.num_cells; ++k) {
    const int s = stamp_[adj.cells[k]];
    if (s != 0 && ((s - 1) & 1) == player) join(adj.cells[k]);
  }
  for (int k = 0; k < 2; ++k) {
    if (adj.edge[player][k] >= 0) join(adj.edge[player][k]);
  }
  return joins_first && joins_second;
}

std::string HexState::explain_illegal(Action action) const {
  const HexGame& g = hex();
  if (winner_ >= 0) {
    return std::string("the game already ended (") + (winner_ == 0 ? "Black" : "White") + " has connected)";
  }
  if (action == g.swap_action()) return g.swap_rule().why_unavailable();
  if (action >= 0 && action < g.num_cells() && stamp_[action] != 0) {
    return "cell " + action_to_string(0, action) + " is already occupied";
  }
  return State::explain_illegal(action);
}

std::vector<double> HexState::returns() const {
  if (winner_ < 0) return {0.0, 0.0};
  return winner_ == 0 ? std::vector<double>{1.0, -1.0} : std::vector<double>{-1.0, 1.0};
}

void HexState::observation(Player player, float* out) const {
  const HexGame& g = hex();
  const int n = g.num_cells();
  const int edges[2][2] = {{root(HexGame::kTop), root(HexGame::kBottom)},
                           {root(HexGame::kLeft), root(HexGame::kRight)}};
  const float black = player == 0 ? 1.0f : 0.0f;
  const float swap = swap_available() && player == current_player() ? 1.0f : 0.0f;
  for (int c = 0; c < n; ++c) {
    const int o = owner(c);
    float own = 0, opp = 0, own_edge = 0, opp_edge = 0;
    if (o >= 0) {
      const int r = root(c);
      const float joined = r == edges[o][0] || r == edges[o][1] ? 1.0f : 0.0f;
      if (o == player) {
        own = 1;
        own_edge = joined;
      } else {
        opp = 1;
        opp_edge = joined;
      }
    }
    out[c] = own;
    out[n + c] = opp;
    out[2 * n + c] = black;
    out[3 * n + c] = swap;
    out[4 * n + c] = own_edge;
    out[5 * n + c] = opp_edge;
  }
}

std::string HexState::action_to_string(Player, Action action) const {
  const int size = hex().size();
  if (action == hex().swap_action()) return std::string(SwapRule::kName);
  return cell_name(action % size, action / size + 1);
}

std::optional<Action> HexState::parse_action(std::string_view text, std::string* error) const {
  const std::string t = util::to_lower(util::trim(text));
  if (auto swap = hex().swap_rule().parse(t)) return swap;
  const int size = hex().size();
  auto cell = parse_cell_name(t, size, size, false, error);
  if (!cell) {
    if (error) *error += ", or 'swap'";
    return std::nullopt;
  }
  return (cell->row - 1) * size + cell->column;
}

std::string HexState::to_string() const {
  const int size = hex().size();
  std::string out = "   ";
  for (int x = 0; x < size; ++x) out += column_letter(x) + (x + 1 < size ? " " : "\n");
  for (int y = 0; y < size; ++y) {
    out += std::string(static_cast<size_t>(y), ' ');
    const std::string label = std::to_string(y + 1);
    out += (label.size() < 2 ? " " : "") + label + " ";
    for (int x = 0; x < size; ++x) {
      const int o = owner(y * size + x);
      out += o == 0 ? 'X' : o == 1 ? 'O' : '.';
      out += x + 1 < size ? " " : "\n";
    }
  }
  if (winner_ >= 0) {
    out += winner_ == 0 ? "Black (X) has won." : "White (O) has won.";
  } else {
    out += (moves_ & 1) == 0 ? "Black (X) to move" : "White (O) to move";
    out += swap_available() ? " (may swap)." : ".";
  }
  out += " Black joins top and bottom (rows 1-" + std::to_string(size) + "), White joins left and right (columns a-" +
         column_letter(size - 1) + ").\n";
  return out;
}

std::string HexState::serialize() const {
  const HexGame& g = hex();
  const int size = g.size();
  // After a swap White's stone (stamp 2) is Black's first one mirrored.
  return stamped_move_record(
      stamp_, g.num_cells(), moves_, swapped_, [size](int cell) { return (cell % size) * size + cell / size; },
      [this](int player, int cell) { return action_to_string(player, cell); });
}

GameEntry hex_entry() {
  util::OptionSchema options;
  options.add_int("size", 11, "board side (cells per edge)", HexGame::kMinSize, HexGame::kMaxSize)
      .add_bool("swap", true,
                "swap rule: as the game's second move, the second player may play 'swap': the first player's "
                "stone is removed, one of the second player's goes on its mirror cell (row and column "
                "exchanged), and the first player moves again");
  return {"hex", "Hex", Family::kBoard, "connect your two sides of a rhombus; no draws", std::move(options),
          [](const util::OptionSchema::Values& v, const util::Spec& spec) -> std::shared_ptr<const Game> {
            return std::make_shared<HexGame>(spec, v.get_int("size"), v.get_bool("swap"));
          }};
}

}  // namespace pz::games
