#include "games/havannah.h"

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

GameInfo make_info(int base, bool swap) {
  const int side = 2 * base - 1;
  const int cells = 3 * base * base - 3 * base + 1;
  GameInfo info;
  info.name = "havannah";
  info.long_name = "Havannah";
  info.family = Family::kBoard;
  info.num_players = 2;
  info.num_distinct_actions = side * side + 1;  // array cells, then swap
  info.observation_shape = {HavannahGame::kObservationPlanes, side, side};
  info.policy_shape = {2, side, side};
  // Every move but the swap adds a stone; the game ends at the latest when the board is full.
  info.max_game_length = cells + (swap ? 1 : 0);
  return info;
}

const char* colour_name(int seat) { return seat == 0 ? "Black (X)" : "White (O)"; }

std::string kinds_text(int kinds) {
  std::vector<std::string> parts;
  if (kinds & HavannahGame::kRing) parts.push_back("a ring");
  if (kinds & HavannahGame::kBridge) parts.push_back("a bridge");
  if (kinds & HavannahGame::kFork) parts.push_back("a fork");
  return util::join(parts, " and ");
}

}  // namespace

HavannahGame::HavannahGame(util::Spec spec, int base, bool swap)
    : Game(make_info(base, swap), std::move(spec),
           {Symmetry::kIdentity, Symmetry::kRotate180, Symmetry::kTranspose, Symmetry::kAntiTranspose}),
      base_(base),
      side_(2 * base - 1),
      num_cells_(3 * base * base - 3 * base + 1),
      swap_{swap, (2 * base - 1) * (2 * base - 1)},
      zobrist_(2 * kMaxCells + 2, 0x4A7A77A4ULL * 1000003ULL + static_cast<std::uint64_t>(base)) {
  assert(base >= kMinBase && base <= kMaxBase);
  const int s = side_, b1 = base - 1;
  auto on_board = [&](int y, int x) { return y >= 0 && y < s && x >= 0 && x < s && x + y >= b1 && x + y <= 3 * b1; };
  const int dy[6] = {-1, -1, 0, 1, 1, 0}, dx[6] = {0, 1, 1, 0, -1, -1};
  cells_.resize(static_cast<size_t>(s * s));
  for (int y = 0; y < s; ++y) {
    for (int x = 0; x < s; ++x) {
      CellInfo& c = cells_[static_cast<size_t>(y * s + x)];
      c.on_board = on_board(y, x);
      c.rim = false;
      c.mask = 0;
      for (int d = 0; d < 6; ++d) {
        const int ny = y + dy[d], nx = x + dx[d];
        const bool in = c.on_board && on_board(ny, nx);
        c.neighbours[d] = static_cast<std::int16_t>(in ? ny * s + nx : -1);
        if (c.on_board && !in) c.rim = true;
      }
      if (!c.on_board) continue;
      // The six sides, clockwise from the top: y = 0, x = S-1, x+y = 3(b-1), y = S-1, x = 0,
      // x+y = b-1. A cell on two of them is a corner, on one an edge cell.
      const bool line[6] = {y == 0, x == s - 1, x + y == 3 * b1, y == s - 1, x == 0, x + y == b1};
      int count = 0, first = -1;
      for (int k = 0; k < 6; ++k) {
        if (line[k]) {
          if (first < 0) first = k;
          ++count;
        }
      }
      if (count == 1) c.mask = static_cast<std::uint16_t>(1u << (6 + first));
      if (count == 2) {
        // Corner k sits between side k and side k+1 (clockwise): top-right is corner 0.
        const int corner = line[0] && line[5] ? 5 : first;
        c.mask = static_cast<std::uint16_t>(1u << corner);
      }
    }
  }
}

std::unique_ptr<State> HavannahGame::new_initial_state() const { return std::make_unique<HavannahState>(this); }

Action HavannahGame::transform_action(Symmetry symmetry, Action action) const {
  if (action == swap_action()) return action;
  return Game::transform_action(symmetry, action);
}

std::unique_ptr<State> HavannahGame::deserialize(std::string_view text) const {
  auto state = std::make_unique<HavannahState>(this);
  replay_move_record(*state, text);
  return state;
}

HavannahState::HavannahState(const HavannahGame* game) : State(game) {
  std::memset(stamp_, 0, sizeof(stamp_));
  std::memset(mask_, 0, sizeof(mask_));
  std::fill(std::begin(parent_), std::end(parent_), static_cast<std::int16_t>(-1));
  std::fill(std::begin(empty_), std::end(empty_), std::uint64_t{0});
  for (int c = 0; c < game->num_array_cells(); ++c) {
    if (game->cell(c).on_board) empty_[c >> 6] |= std::uint64_t{1} << (c & 63);
  }
  hash_ = game->zobrist()[2 * HavannahGame::kMaxCells];  // Black to move; swap not yet available
}

Player HavannahState::current_player() const { return over() ? kTerminalPlayer : (moves_ & 1); }

bool HavannahState::swap_available() const { return havannah().swap_rule().available(moves_, over()); }

void HavannahState::legal_actions(std::vector<Action>& out) const {
  out.clear();
  if (over()) return;
  const int n = havannah().num_array_cells();
  out.resize(static_cast<size_t>(n + 1));
  Action* p = out.data();
  int k = write_set_bits(empty_, n, p);
  if (swap_available()) p[k++] = n;
  out.resize(static_cast<size_t>(k));
}

int HavannahState::root(int c) const { return union_root(parent_, c); }

int HavannahState::find(int c) { return union_find(parent_, c); }

void HavannahState::unite(int a, int b) {
  const auto [kept, absorbed] = union_unite(parent_, a, b);
  if (kept != absorbed) mask_[kept] = static_cast<std::uint16_t>(mask_[kept] | mask_[absorbed]);
}

int HavannahState::win_kinds_of(int p, int c) const {
  const HavannahGame& g = havannah();
  const auto& info = g.cell(c);
  // p's neighbours in circular order, and their groups before the move.
  bool own[6];
  int roots[6];
  int own_count = 0;
  std::uint16_t m = info.mask;  // the corners and edges of c's group once the stone is on c
  for (int d = 0; d < 6; ++d) {
    const int nb = info.neighbours[d];
    own[d] = nb >= 0 && owner(nb) == p;
    roots[d] = own[d] ? root(nb) : -1;
    if (own[d]) m = static_cast<std::uint16_t>(m | mask_[roots[d]]);
    own_count += own[d];
  }
  int kinds = 0;
  if (std::popcount(static_cast<unsigned>(m & 0x3F)) >= 2) kinds |= HavannahGame::kBridge;
  if (std::popcount(static_cast<unsigned>(m >> 6)) >= 3) kinds |= HavannahGame::kFork;
  // Arcs of consecutive own neighbours; does a group appear in two different arcs?
  bool closes_loop = false;
  {
    int arc_roots[3];
    int arcs = 0;
    for (int d = 0; d < 6; ++d) {
      if (!own[d] || own[(d + 5) % 6]) continue;  // not the start of an arc
      // The groups in this arc are all one group (consecutive neighbours touch).
      const int r = roots[d];
      for (int a = 0; a < arcs; ++a) closes_loop |= arc_roots[a] == r;
      arc_roots[arcs++] = r;
    }
  }
  if (closes_loop) kinds |= HavannahGame::kRing;  // see the header comment for why
  if (!(kinds & HavannahGame::kRing) && own_count >= 3) {
    // Filled rings: one of c's own neighbours now surrounded by six own stones (it shares
    // two neighbours with c, which must be own too: hence own_count >= 3). c counts as own.
    auto surrounded = [&](int cell) {
      for (int nb : g.cell(cell).neighbours) {
        if (nb < 0 || (nb != c && owner(nb) != p)) return false;
      }
      return true;
    };
    bool filled = false;
    for (int d = 0; d < 6 && !filled; ++d) {
      if (own[d]) filled = surrounded(info.neighbours[d]);
    }
    if (filled) kinds |= HavannahGame::kRing;
  }
  return kinds;
}

int HavannahState::place(int p, int c, int stamp) {
  const HavannahGame& g = havannah();
  const auto& info = g.cell(c);
  const int kinds = win_kinds_of(p, c);
  stamp_[c] = static_cast<std::int16_t>(stamp);
  empty_[c >> 6] &= ~(std::uint64_t{1} << (c & 63));
  parent_[c] = -1;
  mask_[c] = info.mask;
  ++stones_;
  hash_ ^= g.zobrist()[p * HavannahGame::kMaxCells + c];
  for (int d = 0; d < 6; ++d) {
    const int nb = info.neighbours[d];
    if (nb >= 0 && owner(nb) == p) unite(c, nb);
  }
  return kinds;
}

bool HavannahState::may_end_game(Action action) const {
  if (action >= havannah().num_array_cells()) return false;  // the swap
  return stones_ + 1 == havannah().num_cells() || win_kinds_of(moves_ & 1, action) != 0;
}

void HavannahState::apply_action(Action action) {
  const HavannahGame& g = havannah();
  const int n = g.num_array_cells();
  const int player = moves_ & 1;
  assert(!over());
  if (action == n) {
    assert(swap_available());
    // The only stone on the board is Black's first one (stamp 1): it becomes White's.
    int black = 0;
    while (stamp_[black] != 1) ++black;
    stamp_[black] = 2;
    hash_ ^= g.zobrist()[black] ^ g.zobrist()[HavannahGame::kMaxCells + black];
    swapped_ = true;
  } else {
    assert(action >= 0 && action < n && g.cell(action).on_board && stamp_[action] == 0);
    const int kinds = place(player, action, moves_ + 1);
    if (kinds != 0) {
      winner_ = static_cast<std::int8_t>(player);
      win_kinds_ = static_cast<std::int8_t>(kinds);
    }
  }
  hash_ ^= g.zobrist()[2 * HavannahGame::kMaxCells];  // the key is in while Black is to move
  if (g.swap_rule().key_changes(moves_)) hash_ ^= g.zobrist()[2 * HavannahGame::kMaxCells + 1];
  ++moves_;
}

std::string HavannahState::explain_illegal(Action action) const {
  const HavannahGame& g = havannah();
  if (winner_ >= 0) {
    return std::string("the game already ended (") + colour_name(winner_) + " completed " + kinds_text(win_kinds_) + ")";
  }
  if (over()) return "the game already ended in a draw (the board is full)";
  if (action == g.swap_action()) return g.swap_rule().why_unavailable();
  if (action >= 0 && action < g.num_array_cells()) {
    if (!g.cell(action).on_board) return action_to_string(0, action) + " is not a cell of the hexagonal board";
    if (stamp_[action] != 0) return "cell " + action_to_string(0, action) + " is already occupied";
  }
  return State::explain_illegal(action);
}

std::vector<double> HavannahState::returns() const {
  if (winner_ < 0) return {0.0, 0.0};
  return winner_ == 0 ? std::vector<double>{1.0, -1.0} : std::vector<double>{-1.0, 1.0};
}

void HavannahState::observation(Player player, float* out) const {
  const HavannahGame& g = havannah();
  const int n = g.num_array_cells();
  const float black = player == 0 ? 1.0f : 0.0f;
  const float swap = swap_available() && player == current_player() ? 1.0f : 0.0f;
  for (int c = 0; c < n; ++c) {
    const int o = owner(c);
    out[c] = o == player ? 1.0f : 0.0f;
    out[n + c] = o >= 0 && o != player ? 1.0f : 0.0f;
    out[2 * n + c] = g.cell(c).on_board ? 1.0f : 0.0f;
    out[3 * n + c] = black;
    out[4 * n + c] = swap;
  }
}

std::string HavannahState::action_to_string(Player, Action action) const {
  const HavannahGame& g = havannah();
  if (action == g.swap_action()) return std::string(SwapRule::kName);
  const int s = g.side();
  return cell_name(action % s, s - action / s);
}

std::optional<Action> HavannahState::parse_action(std::string_view text, std::string* error) const {
  const HavannahGame& g = havannah();
  const std::string t = util::to_lower(util::trim(text));
  if (auto swap = g.swap_rule().parse(t)) return swap;
  const int s = g.side(), b = g.base();
  auto cell = parse_cell_name(t, s, s, false, error);
  if (!cell) {
    if (error) *error += " on the hexagon, or 'swap'";
    return std::nullopt;
  }
  const Action a = g.action_of(cell->column, cell->row);
  if (!g.cell(a).on_board) {
    if (error) {
      const int x = cell->column;
      const int lo = x < b ? 1 : x - b + 2, hi = x < b ? b + x : s;
      *error = "'" + t + "' is off the hexagonal board: column " + column_letter(x) + " has cells " +
               cell_name(x, lo) + " to " + cell_name(x, hi);
    }
    return std::nullopt;
  }
  return a;
}

std::string HavannahState::to_string() const {
  const HavannahGame& g = havannah();
  const int s = g.side(), b1 = g.base() - 1;
  std::string out;
  // Cell (y, x) is drawn at text column 2x + y - (b-1) after the 3-character row label.
  for (int y = 0; y < s; ++y) {
    const int lo = std::max(0, b1 - y), hi = std::min(s - 1, 3 * b1 - y);
    const std::string label = std::to_string(s - y);
    out += (label.size() < 2 ? " " : "") + label + " ";
    out += std::string(static_cast<size_t>(2 * lo + y - b1), ' ');
    for (int x = lo; x <= hi; ++x) {
      const int o = owner(y * s + x);
      out += o == 0 ? 'X' : o == 1 ? 'O' : '.';
      if (x < hi) out += ' ';
    }
    // Columns beyond the b-th end on the lower right side: name them there.
    if (y > b1) out += " " + column_letter(hi + 1);
    out += '\n';
  }
  out += "   " + std::string(static_cast<size_t>(s - b1), ' ');
  for (int x = 0; x <= b1; ++x) out += column_letter(x) + (x < b1 ? " " : "\n");
  if (winner_ >= 0) {
    out += std::string(colour_name(winner_)) + " has won with " + kinds_text(win_kinds_) + ".";
  } else if (over()) {
    out += "Draw: the board is full.";
  } else {
    out += std::string(colour_name(moves_ & 1)) + " to move" + (swap_available() ? " (may swap)." : ".");
  }
  out += " Rings, bridges (2 corners) and forks (3 edges) win.\n";
  return out;
}

std::string HavannahState::serialize() const {
  // After a swap Black's first stone is the White one stamped 2, on the same cell.
  return stamped_move_record(
      stamp_, havannah().num_array_cells(), moves_, swapped_, [](int cell) { return cell; },
      [this](int player, int cell) { return action_to_string(player, cell); });
}

GameEntry havannah_entry() {
  util::OptionSchema options;
  options.add_int("base", 8, "cells per side of the hexagon", HavannahGame::kMinBase, HavannahGame::kMaxBase)
      .add_bool("swap", true,
                "swap rule: as the game's second move, the second player may play 'swap': the first "
                "player's stone, where it stands, becomes the second player's, and the first player moves again");
  return {"havannah", "Havannah", Family::kBoard, "make a ring, a bridge (2 corners) or a fork (3 edges)",
          std::move(options),
          [](const util::OptionSchema::Values& v, const util::Spec& spec) -> std::shared_ptr<const Game> {
            return std::make_shared<HavannahGame>(spec, v.get_int("base"), v.get_bool("swap"));
          }};
}

}  // namespace pz::games
