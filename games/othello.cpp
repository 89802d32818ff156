#include "games/othello.h"

#include <cassert>
#include <cctype>

#include "games/board_notation.h"
#include "games/othello_bitboard.h"
#include "util/error.h"

namespace pz::games {
namespace {

GameInfo make_info(int size) {
  GameInfo info;
  info.name = "othello";
  info.long_name = "Othello";
  info.family = Family::kBoard;
  info.num_players = 2;
  info.num_distinct_actions = size * size + 1;
  info.observation_shape = {4, size, size};
  info.policy_shape = {2, size, size};
  // Every placement adds a disc, and a pass is always followed by a placement (the passer's
  // opponent has a move), so passes never outnumber placements.
  info.max_game_length = 2 * (size * size - 4);
  info.board_ownership = true;
  return info;
}

// ---- 8×8: one uint64_t per colour (games/othello_bitboard.h) -------------------------------

using othello8::flips8;
using othello8::moves8;

// ---- any size: one word up to 64 cells, Bitset256 above -------------------------------------

inline std::uint64_t shift(std::uint64_t b, int s) { return s > 0 ? b << s : b >> -s; }
inline Bitset256 shift(const Bitset256& b, int s) { return s > 0 ? b.shl(s) : b.shr(-s); }
inline bool any(std::uint64_t b) { return b != 0; }
inline bool any(const Bitset256& b) { return b.any(); }

template <class B>
B moves_any(const B& own, const B& opp, const int* shifts, const B* masks, const B& board) {
  const B empty = board & ~(own | opp);
  B moves{};
  for (int d = 0; d < 8; ++d) {
    const int s = shifts[d];
    const B om = opp & masks[d];
    B t = om & shift(own, s);
    if (!any(t)) continue;
    // Extend the runs one disc at a time until they stop growing.
    for (;;) {
      const B next = t | (om & shift(t, s));
      if (next == t) break;
      t = next;
    }
    moves = moves | (empty & shift(t, s));
  }
  return moves;
}

template <class B>
B flips_any(const B& bit, const B& own, const B& opp, const int* shifts, const B* masks) {
  B flipped{};
  for (int d = 0; d < 8; ++d) {
    const int s = shifts[d];
    const B om = opp & masks[d];
    B f{}, x = shift(bit, s);
    while (any(x & om)) {
      f = f | x;
      x = shift(x, s);
    }
    if (any(x & own)) flipped = flipped | f;
  }
  return flipped;
}

char disc_char(int owner) { return owner == 0 ? 'x' : owner == 1 ? 'o' : '.'; }

}  // namespace

OthelloGame::OthelloGame(util::Spec spec, int size)
    : Game(make_info(size), std::move(spec),
           {Symmetry::kIdentity, Symmetry::kRotate180, Symmetry::kTranspose, Symmetry::kAntiTranspose}),
      size_(size) {
  assert(size % 2 == 0 && size >= 4 && size <= 16);
  ZobristTable z(2 * 256 + 1, 0x07E1107E110ULL);
  for (int p = 0; p < 2; ++p) {
    for (int c = 0; c < 256; ++c) disc_key_[p][c] = z[p * 256 + c];
  }
  white_key_ = z[512];

  Bitset256 col_first, col_last;
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) board_.set(y * size + x);
    col_first.set(y * size);
    col_last.set(y * size + size - 1);
  }
  const Bitset256 inner = board_ & ~(col_first | col_last);
  // (dx, dy) → shift dy·size + dx.
  const int dirs[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}, {1, -1}, {-1, 1}};
  for (int d = 0; d < 8; ++d) {
    shift_[d] = dirs[d][1] * size + dirs[d][0];
    inner_mask_[d] = dirs[d][0] == 0 ? board_ : inner;
    inner_mask64_[d] = inner_mask_[d].w[0];
  }
  board64_ = board_.w[0];
}

Bitset256 OthelloGame::moves(const Bitset256& own, const Bitset256& opp) const {
  Bitset256 m;
  if (size_ == 8) {
    m.w[0] = moves8(own.w[0], opp.w[0]);
  } else if (size_ * size_ <= 64) {
    m.w[0] = moves_any(own.w[0], opp.w[0], shift_, inner_mask64_, board64_);
  } else {
    m = moves_any(own, opp, shift_, inner_mask_, board_);
  }
  return m;
}

Bitset256 OthelloGame::flips(int cell, const Bitset256& own, const Bitset256& opp) const {
  Bitset256 f;
  if (size_ == 8) {
    f.w[0] = flips8(cell, own.w[0], opp.w[0]);
  } else if (size_ * size_ <= 64) {
    f.w[0] = flips_any(std::uint64_t{1} << cell, own.w[0], opp.w[0], shift_, inner_mask64_);
  } else {
    Bitset256 bit;
    bit.set(cell);
    f = flips_any(bit, own, opp, shift_, inner_mask_);
  }
  return f;
}

std::unique_ptr<State> OthelloGame::new_initial_state() const { return std::make_unique<OthelloState>(this); }

Action OthelloGame::transform_action(Symmetry symmetry, Action action) const {
  if (action == pass_action()) return action;
  return Game::transform_action(symmetry, action);
}

std::unique_ptr<State> OthelloGame::deserialize(std::string_view text) const {
  const int n = size_, cells = n * n;
  const std::string form = "an othello position is '<board> <side> [<move number>]': " + std::to_string(cells) +
                           " characters x, o or '.' in reading order (a1, b1, ...), then x or o for the side to "
                           "move, then optionally the number of plies played";
  std::vector<std::string> fields;
  {
    std::string cur;
    for (char c : text) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        if (!cur.empty()) fields.push_back(std::move(cur));
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (!cur.empty()) fields.push_back(std::move(cur));
  }
  if (fields.size() < 2 || fields.size() > 3) {
    throw util::UsageError("cannot read othello position '" + std::string(text) + "': " + form);
  }
  const std::string& board = fields[0];
  if (static_cast<int>(board.size()) != cells) {
    throw util::UsageError("othello board '" + board + "' has " + std::to_string(board.size()) + " characters, expected " +
                           std::to_string(cells) + " for size " + std::to_string(n) + "; " + form);
  }
  auto state = std::make_unique<OthelloState>(this);
  state->discs_[0] = state->discs_[1] = Bitset256{};
  state->hash_ = 0;
  for (int c = 0; c < cells; ++c) {
    const char ch = static_cast<char>(std::tolower(static_cast<unsigned char>(board[c])));
    if (ch == '.') continue;
    if (ch != 'x' && ch != 'o') {
      throw util::UsageError(std::string("bad character '") + board[c] + "' at " + cell_name(c % n, c / n + 1) +
                             " in othello board: use x (Black), o (White) or '.' (empty)");
    }
    const int p = ch == 'o';
    state->discs_[p].set(c);
    state->hash_ ^= disc_key(p, c);
  }
  const std::string side = util::to_lower(fields[1]);
  if (side != "x" && side != "o") {
    throw util::UsageError("bad side to move '" + fields[1] + "' in othello position: use x (Black) or o (White)");
  }
  const int to_move = side == "o";
  const int discs = state->discs_[0].count() + state->discs_[1].count();
  const int min_moves = discs > 4 ? discs - 4 : 0;
  int move_number = min_moves + ((min_moves % 2) != to_move);
  if (fields.size() == 3) {
    auto m = util::parse_int(fields[2]);
    if (!m || *m < 0 || *m > info_.max_game_length) {
      throw util::UsageError("bad move number '" + fields[2] + "' in othello position: expected a number from 0 to " +
                             std::to_string(info_.max_game_length));
    }
    if (*m % 2 != to_move) {
      throw util::UsageError("othello move number " + fields[2] + " does not fit side to move " + side +
                             ": Black (x) moves at even move numbers, White (o) at odd ones");
    }
    if (*m < min_moves) {
      throw util::UsageError("othello move number " + fields[2] + " is too small for " + std::to_string(discs) +
                             " discs: each move adds a disc to the initial four, so it must be at least " +
                             std::to_string(min_moves));
    }
    move_number = static_cast<int>(*m);
  }
  state->to_move_ = static_cast<std::int8_t>(to_move);
  state->move_number_ = move_number;
  if (to_move == 1) state->hash_ ^= white_key_;
  state->update_status();
  return state;
}

OthelloState::OthelloState(const OthelloGame* game) : State(game), size8_(game->size() == 8) {
  const int n = game->size(), c = n / 2;
  const int white[2] = {(c - 1) * n + c - 1, c * n + c};
  const int black[2] = {(c - 1) * n + c, c * n + c - 1};
  for (int i = 0; i < 2; ++i) {
    discs_[0].set(black[i]);
    discs_[1].set(white[i]);
    hash_ ^= game->disc_key(0, black[i]) ^ game->disc_key(1, white[i]);
  }
  update_status();
}

void OthelloState::update_status() {
  moves_ = moves_of(to_move_);
  terminal_ = !moves_.any() && !moves_of(1 - to_move_).any();
}

void OthelloState::legal_actions(std::vector<Action>& out) const {
  if (terminal_) {
    out.clear();
    return;
  }
  if (!moves_.any()) {
    out.assign(1, og().pass_action());
    return;
  }
  // Through a local buffer: no per-move capacity checks, and no popcount (a library call
  // unless the build targets a CPU with the instruction).
  Action buffer[256];
  Action* next = buffer;
  if (size8_) {
    for (std::uint64_t b = moves_.w[0]; b; b &= b - 1) *next++ = std::countr_zero(b);
  } else {
    moves_.for_each([&](int cell) { *next++ = cell; });
  }
  out.assign(buffer, next);
}

void OthelloState::apply_action(Action action) {
  const OthelloGame& g = og();
  const int me = to_move_, opp = 1 - me;
  hash_ ^= g.white_to_move_key();
  to_move_ = static_cast<std::int8_t>(opp);
  ++move_number_;
  if (action == g.pass_action()) {
    assert(must_pass());
    moves_ = moves_of(opp);  // nonempty: the passer's opponent can move
    return;
  }
  assert(!terminal_ && action >= 0 && action < g.pass_action() && moves_.test(action));
  hash_ ^= g.disc_key(me, action);
  if (size8_) {
    std::uint64_t mine = discs_[me].w[0], theirs = discs_[opp].w[0];
    const std::uint64_t f = flips8(action, mine, theirs);
    mine |= f | std::uint64_t{1} << action;
    theirs ^= f;
    discs_[me].w[0] = mine;
    discs_[opp].w[0] = theirs;
    for (std::uint64_t b = f; b; b &= b - 1) hash_ ^= g.flip_key(std::countr_zero(b));
    const std::uint64_t next = moves8(theirs, mine);
    moves_.w[0] = next;
    terminal_ = next == 0 && moves8(mine, theirs) == 0;
    return;
  }
  const Bitset256 f = g.flips(action, discs_[me], discs_[opp]);
  discs_[me] = discs_[me] | f;
  discs_[me].set(action);
  discs_[opp] = discs_[opp] ^ f;
  f.for_each([&](int cell) { hash_ ^= g.flip_key(cell); });
  update_status();
}

std::vector<double> OthelloState::returns() const {
  if (!terminal_) return {0.0, 0.0};
  const int b = discs(0), w = discs(1);
  if (b == w) return {0.0, 0.0};
  return b > w ? std::vector<double>{1.0, -1.0} : std::vector<double>{-1.0, 1.0};
}

bool OthelloState::final_ownership(Player player, float* out) const {
  if (!terminal_) return false;
  const int cells = og().size() * og().size();
  for (int c = 0; c < cells; ++c) {
    const int o = owner(c);
    out[c] = o < 0 ? 0.0f : o == player ? 1.0f : -1.0f;
  }
  return true;
}

bool OthelloState::final_score(Player player, double* out) const {
  if (!terminal_) return false;
  *out = discs(player) - discs(1 - player);
  return true;
}

int OthelloState::owner(int cell) const {
  if (discs_[0].test(cell)) return 0;
  if (discs_[1].test(cell)) return 1;
  return -1;
}

void OthelloState::observation(Player player, float* out) const {
  const int cells = og().size() * og().size();
  const bool mover = !terminal_ && player == to_move_;
  const float black = player == 0 ? 1.0f : 0.0f;
  for (int c = 0; c < cells; ++c) {
    out[c] = discs_[player].test(c) ? 1.0f : 0.0f;
    out[cells + c] = discs_[1 - player].test(c) ? 1.0f : 0.0f;
    out[2 * cells + c] = mover && moves_.test(c) ? 1.0f : 0.0f;
    out[3 * cells + c] = black;
  }
}

std::string OthelloState::action_to_string(Player, Action action) const {
  const int n = og().size();
  if (action == og().pass_action()) return "pass";
  return cell_name(action % n, action / n + 1);
}

std::optional<Action> OthelloState::parse_action(std::string_view text, std::string* error) const {
  const int n = og().size();
  if (util::to_lower(util::trim(text)) == "pass") return og().pass_action();
  auto cell = parse_cell_name(text, n, n, false, error);
  if (!cell) {
    if (error) *error += ", or pass";
    return std::nullopt;
  }
  return (cell->row - 1) * n + cell->column;
}

std::string OthelloState::to_string() const {
  const int n = og().size();
  std::string out = "   ";
  for (int x = 0; x < n; ++x) out += " " + column_letter(x);
  out += "\n";
  for (int y = 0; y < n; ++y) {
    const std::string label = std::to_string(y + 1);
    out += std::string(3 - label.size(), ' ') + label;
    for (int x = 0; x < n; ++x) {
      const int o = owner(y * n + x);
      out += ' ';
      out += o == 0 ? 'X' : o == 1 ? 'O' : '.';
    }
    out += "\n";
  }
  const int b = discs(0), w = discs(1);
  out += "Black (X) " + std::to_string(b) + ", White (O) " + std::to_string(w) + "; move " +
         std::to_string(move_number_) + ": ";
  if (terminal_) {
    out += b == w ? "game over, draw\n" : b > w ? "game over, Black wins\n" : "game over, White wins\n";
  } else {
    out += to_move_ == 0 ? "Black" : "White";
    out += must_pass() ? " to move, must pass\n" : " to move\n";
  }
  return out;
}

std::string OthelloState::serialize() const {
  const int cells = og().size() * og().size();
  std::string out;
  out.reserve(static_cast<size_t>(cells) + 8);
  for (int c = 0; c < cells; ++c) out += disc_char(owner(c));
  out += ' ';
  out += to_move_ == 0 ? 'x' : 'o';
  out += ' ';
  out += std::to_string(move_number_);
  return out;
}

GameEntry othello_entry() {
  util::OptionSchema options;
  options.add_int("size", 8, "board side (even)", 6, 16);
  return {"othello", "Othello", Family::kBoard, "flank and flip discs; most discs wins", std::move(options),
          [](const util::OptionSchema::Values& v, const util::Spec& spec) -> std::shared_ptr<const Game> {
            const int size = v.get_int("size");
            if (size % 2 != 0) {
              throw util::UsageError("othello size " + std::to_string(size) +
                                     " is odd: the board needs a centre square of four cells, use an even size "
                                     "from 6 to 16 (e.g. 6, 8, 10)");
            }
            return std::make_shared<OthelloGame>(spec, size);
          }};
}

std::string OthelloState::explain_illegal(Action action) const {
  const int cells = og().size() * og().size();
  if (is_terminal() || action < 0 || action > cells) return State::explain_illegal(action);
  if (action == cells) return "you may pass only when no move flips a disc";
  if (must_pass()) return "no move flips a disc: you must pass";
  if (owner(action) >= 0) return action_to_string(current_player(), action) + " is occupied";
  return action_to_string(current_player(), action) + " flips no disc (a move must flank a line of opponent discs)";
}

}  // namespace pz::games
