#include "games/go.h"

#include <cassert>
#include <cctype>
#include <cstring>
#include <utility>

#include "games/board_notation.h"
#include "util/error.h"

namespace pz::games {
namespace {

// History entries: [63..18] high bits of the position key, [17..9] action, [8..0] stones.
constexpr int kMoveShift = 9;
constexpr std::uint64_t kStonesMask = 0x1FF;
constexpr std::uint64_t kActionMask = 0x1FF;
constexpr std::uint64_t kNoAction = 0x1FF;
constexpr std::uint64_t kKeyMask = ~((std::uint64_t{1} << 18) - 1);

std::uint64_t history_entry(std::uint64_t position_hash, std::uint64_t action, int stones) {
  return (position_hash & kKeyMask) | (action << kMoveShift) | static_cast<std::uint64_t>(stones);
}

// Earlier positions (key bits and stone count of each history entry) in an open-addressing
// table: a capturing move can repeat a position with any smaller stone count, so instead of
// scanning the history once per such candidate, legal move generation builds this once.
class PositionSet {
 public:
  static std::uint64_t key(std::uint64_t position_hash, std::uint64_t stones) {
    return (position_hash & kKeyMask) | stones | kPresent;
  }
  void build(std::span<const std::uint64_t> history) {
    size_t capacity = 64;
    while (capacity < 2 * history.size()) capacity <<= 1;
    slots_.assign(capacity, 0);
    mask_ = capacity - 1;
    for (std::uint64_t e : history) {
      const std::uint64_t k = key(e, e & kStonesMask);
      size_t i = (k >> 18) & mask_;
      while (slots_[i] != 0 && slots_[i] != k) i = (i + 1) & mask_;
      slots_[i] = k;
    }
  }
  bool contains(std::uint64_t k) const {
    for (size_t i = (k >> 18) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i] == k) return true;
      if (slots_[i] == 0) return false;
    }
  }

 private:
  static constexpr std::uint64_t kPresent = std::uint64_t{1} << kMoveShift;  // never 0
  std::vector<std::uint64_t> slots_;
  size_t mask_ = 0;
};

GameInfo make_info(int size, int max_moves) {
  GameInfo info;
  info.name = "go";
  info.long_name = "Go";
  info.family = Family::kBoard;
  info.num_players = 2;
  info.num_distinct_actions = size * size + 1;
  info.observation_shape = {GoGame::kNumPlanes, size, size};
  info.policy_shape = {2, size, size};
  info.max_game_length = max_moves;
  info.board_ownership = true;
  return info;
}

}  // namespace

// --- Game --------------------------------------------------------------------------------

GoGame::GoGame(util::Spec spec, int size, double komi, int max_moves, KoRule ko)
    : Game(make_info(size, max_moves), std::move(spec),
           {Symmetry::kIdentity, Symmetry::kRotate90, Symmetry::kRotate180, Symmetry::kRotate270, Symmetry::kMirror,
            Symmetry::kFlip, Symmetry::kTranspose, Symmetry::kAntiTranspose}),
      size_(size),
      komi_(komi),
      max_moves_(max_moves),
      ko_(ko),
      zobrist_(2 * kMaxPoints + 3, 0x60BA5EBA11ULL) {}

util::Spec GoGame::network_spec() const {
  util::Spec s = spec();
  s.options.erase("ko");
  s.options.erase("max_moves");
  return s;
}

std::unique_ptr<State> GoGame::new_initial_state() const { return std::make_unique<GoState>(this); }

Action GoGame::transform_action(Symmetry symmetry, Action action) const {
  if (action == pass_action()) return action;
  return Game::transform_action(symmetry, action);
}

std::unique_ptr<State> GoGame::deserialize(std::string_view text) const {
  auto state = std::make_unique<GoState>(this);
  size_t i = 0;
  int index = 0;
  while (true) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i == text.size()) break;
    size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    const std::string token(text.substr(i, end - i));
    i = end;
    ++index;
    const std::string where = "Go record, move " + std::to_string(index) + " '" + token + "': ";
    std::string error;
    auto action = state->parse_action(token, &error);
    if (!action) throw util::UsageError(where + error);
    if (state->is_terminal()) {
      throw util::UsageError(where + "the game had already ended after move " + std::to_string(index - 1));
    }
    const std::string reason = state->illegal_reason(*action);
    if (!reason.empty()) throw util::UsageError(where + reason);
    state->apply_action(*action);
  }
  return state;
}

// --- State: construction and copying -----------------------------------------------------

GoState::GoState(const GoGame* game) : State(game) {
  const int n = game->num_points(), stride = game->stride(), size = game->size();
  std::memset(color_, kBorder, static_cast<size_t>(n));
  std::memset(head_, 0, sizeof(head_[0]) * static_cast<size_t>(n));
  std::memset(next_, 0, sizeof(next_[0]) * static_cast<size_t>(n));
  std::memset(chains_, 0, sizeof(chains_[0]) * static_cast<size_t>(n));
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) color_[(y + 1) * stride + x + 1] = kEmpty;
  }
  history_.reserve(64);
  history_.push_back(history_entry(0, kNoAction, 0));
}

GoState::GoState(const GoState& other) : State(other), history_(other.history_) { copy_from(other); }

GoState& GoState::operator=(const GoState& other) {
  if (this != &other) {
    State::operator=(other);
    history_ = other.history_;
    copy_from(other);
  }
  return *this;
}

// Copies only the points this board size uses: a 9×9 state is a quarter of the arrays.
void GoState::copy_from(const GoState& other) {
  const size_t n = static_cast<size_t>(other.go().num_points());
  std::memcpy(color_, other.color_, n);
  std::memcpy(head_, other.head_, n * sizeof(head_[0]));
  std::memcpy(next_, other.next_, n * sizeof(next_[0]));
  std::memcpy(chains_, other.chains_, n * sizeof(chains_[0]));
  position_hash_ = other.position_hash_;
  stones_ = other.stones_;
  passes_ = other.passes_;
  captures_[0] = other.captures_[0];
  captures_[1] = other.captures_[1];
}

// --- Rules -------------------------------------------------------------------------------

Player GoState::current_player() const {
  if (game_over()) return kTerminalPlayer;
  return move_number() & 1;
}

bool GoState::try_point(int p, int colour, std::uint64_t* new_hash, int* new_stones) const {
  const GoGame& g = go();
  const int stride = g.stride(), opp = 3 - colour;
  const int nb[4] = {p - stride, p - 1, p + 1, p + stride};
  bool breathes = false;
  int captured_heads[4];
  int num_captured = 0;
  for (int q : nb) {
    const int c = color_[q];
    if (c == kEmpty) {
      breathes = true;
    } else if (c == colour) {
      if (!in_atari(chains_[head_[q]])) breathes = true;  // the chain keeps another liberty
    } else if (c == opp) {
      const int h = head_[q];
      if (in_atari(chains_[h])) {  // its only liberty is p: captured
        bool dup = false;
        for (int k = 0; k < num_captured; ++k) dup |= captured_heads[k] == h;
        if (!dup) captured_heads[num_captured++] = h;
      }
    }
  }
  if (!breathes && num_captured == 0) return false;
  std::uint64_t h = position_hash_ ^ g.stone_key(colour, p);
  int stones = stones_ + 1;
  for (int k = 0; k < num_captured; ++k) {
    const int head = captured_heads[k];
    int s = head;
    do {
      h ^= g.stone_key(opp, s);
      s = next_[s];
    } while (s != head);
    stones -= chains_[head].stones;
  }
  *new_hash = h;
  *new_stones = stones;
  return true;
}

std::span<const std::uint64_t> GoState::earlier_positions() const {
  if (go().ko_rule() == GoGame::KoRule::kPositional) return history_;
  // Simple ko: only the position before the opponent's previous move.
  if (history_.size() < 2) return {};
  return std::span<const std::uint64_t>(history_).subspan(history_.size() - 2, 1);
}

bool GoState::seen_before(std::uint64_t position_hash, int stones) const {
  const std::uint64_t key = position_hash & kKeyMask;
  for (std::uint64_t e : earlier_positions()) {
    if ((e & kStonesMask) == static_cast<std::uint64_t>(stones) && (e & kKeyMask) == key) return true;
  }
  return false;
}

template <class F>
void GoState::for_each_legal_point(F&& f) const {
  const GoGame& g = go();
  const int size = g.size(), stride = g.stride(), colour = to_move_colour(), opp = 3 - colour;
  // A move that captures nothing leaves one stone more than now, one that captures a single
  // stone as many as now: only earlier positions with those stone counts can be repeated
  // by such moves. Gather their keys in one pass (list 0: stones_ + 1, list 1: stones_).
  constexpr int kNear = 64;
  std::uint64_t near[2][kNear];
  int num_near[2] = {0, 0};
  bool overflow[2] = {false, false};
  const std::span<const std::uint64_t> earlier_entries = earlier_positions();
  for (std::uint64_t e : earlier_entries) {
    const int list = stones_ + 1 - static_cast<int>(e & kStonesMask);
    if (list != 0 && list != 1) continue;
    if (num_near[list] == kNear) {
      overflow[list] = true;
    } else {
      near[list][num_near[list]++] = e & kKeyMask;
    }
  }
  // Every earlier position, built at the first candidate the lists do not cover.
  thread_local PositionSet earlier;
  bool built = false;
  auto repeats = [&](std::uint64_t h, int stones) {
    const int list = stones_ + 1 - stones;  // stones captured
    if (list <= 1 && !overflow[list]) {
      const std::uint64_t key = h & kKeyMask;
      bool found = false;
      for (int k = 0; k < num_near[list]; ++k) found |= near[list][k] == key;
      return found;
    }
    if (!built) {
      earlier.build(earlier_entries);
      built = true;
    }
    return earlier.contains(PositionSet::key(h, static_cast<std::uint64_t>(stones)));
  };
  const bool may_repeat_plain = num_near[0] > 0 || overflow[0];
  for (int y = 0; y < size; ++y) {
    int p = (y + 1) * stride + 1;
    for (int x = 0; x < size; ++x, ++p) {
      if (color_[p] != kEmpty) continue;
      // Fast path, the usual case: an empty neighbour and no adjacent opponent chain in
      // atari, so the move is no suicide and captures nothing.
      const int up = p - stride, left = p - 1, right = p + 1, down = p + stride;
      if (color_[up] == kEmpty || color_[left] == kEmpty || color_[right] == kEmpty || color_[down] == kEmpty) {
        auto threatened = [&](int q) { return color_[q] == opp && in_atari(chains_[head_[q]]); };
        if (!threatened(up) && !threatened(left) && !threatened(right) && !threatened(down)) {
          if (!may_repeat_plain || !repeats(position_hash_ ^ g.stone_key(colour, p), stones_ + 1)) f(y * size + x);
          continue;
        }
      }
      std::uint64_t h;
      int stones;
      if (!try_point(p, colour, &h, &stones)) continue;  // suicide
      if (!repeats(h, stones)) f(y * size + x);
    }
  }
}

void GoState::legal_actions(std::vector<Action>& out) const {
  out.clear();
  if (game_over()) return;
  for_each_legal_point([&](Action a) { out.push_back(a); });
  out.push_back(go().pass_action());
}

std::string GoState::illegal_reason(Action action) const {
  const GoGame& g = go();
  if (game_over()) return "the game is over";
  if (action < 0 || action > g.pass_action()) {
    return "action " + std::to_string(action) + " is out of range 0.." + std::to_string(g.pass_action());
  }
  if (action == g.pass_action()) return "";
  const int p = g.point_of(action);
  auto name = [&] { return action_to_string(current_player(), action); };
  if (color_[p] != kEmpty) return "point " + name() + " is occupied";
  std::uint64_t h;
  int stones;
  if (!try_point(p, to_move_colour(), &h, &stones)) return name() + " is suicide (the stones would have no liberty)";
  if (seen_before(h, stones)) {
    return go().ko_rule() == GoGame::KoRule::kPositional
               ? name() + " repeats an earlier position (positional superko)"
               : name() + " retakes the ko at once (simple ko)";
  }
  return "";
}

void GoState::merge(int a, int b) {
  if (chains_[a].stones < chains_[b].stones) std::swap(a, b);
  int s = b;
  do {
    head_[s] = static_cast<std::uint16_t>(a);
    s = next_[s];
  } while (s != b);
  std::swap(next_[a], next_[b]);
  Chain& ca = chains_[a];
  const Chain& cb = chains_[b];
  ca.plibs = static_cast<std::uint16_t>(ca.plibs + cb.plibs);
  ca.stones = static_cast<std::uint16_t>(ca.stones + cb.stones);
  ca.lib_sum += cb.lib_sum;
  ca.lib_sumsq += cb.lib_sumsq;
}

void GoState::capture(int head, int capturer) {
  const GoGame& g = go();
  const int stride = g.stride(), victim = 3 - capturer;
  int s = head, count = 0;
  do {
    const int nb[4] = {s - stride, s - 1, s + 1, s + stride};
    for (int q : nb) {
      if (color_[q] == capturer) add_lib(chains_[head_[q]], s);
    }
    color_[s] = kEmpty;
    position_hash_ ^= g.stone_key(victim, s);
    ++count;
    s = next_[s];
  } while (s != head);
  stones_ -= count;
  captures_[capturer - 1] += count;
}

void GoState::push_history(Action action) {
  history_.push_back(history_entry(position_hash_, static_cast<std::uint64_t>(action), stones_));
}

void GoState::apply_action(Action action) {
  const GoGame& g = go();
  assert(!game_over());
  if (action == g.pass_action()) {
    ++passes_;
    push_history(action);
    return;
  }
  const int colour = to_move_colour(), opp = 3 - colour, stride = g.stride();
  const int p = g.point_of(action);
  assert(color_[p] == kEmpty);
  passes_ = 0;
  color_[p] = static_cast<std::uint8_t>(colour);
  head_[p] = static_cast<std::uint16_t>(p);
  next_[p] = static_cast<std::uint16_t>(p);
  chains_[p] = Chain{0, 1, 0, 0};
  position_hash_ ^= g.stone_key(colour, p);
  ++stones_;
  const int nb[4] = {p - stride, p - 1, p + 1, p + stride};
  for (int q : nb) {
    const int c = color_[q];
    if (c == kEmpty) {
      add_lib(chains_[p], q);
    } else if (c != kBorder) {
      remove_lib(chains_[head_[q]], p);
    }
  }
  for (int q : nb) {
    if (color_[q] == colour && head_[q] != head_[p]) merge(head_[p], head_[q]);
  }
  for (int q : nb) {
    if (color_[q] == opp && chains_[head_[q]].plibs == 0) capture(head_[q], colour);
  }
  assert(chains_[head_[p]].plibs > 0 && "suicide");
  push_history(action);
}

void GoState::area_owners(std::uint8_t* owner) const {
  const GoGame& g = go();
  const int size = g.size(), stride = g.stride();
  std::uint8_t visited[GoGame::kMaxPoints] = {};
  std::uint16_t stack[GoGame::kMaxPoints];
  std::uint16_t region_points[GoGame::kMaxPoints];
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const int p = (y + 1) * stride + x + 1;
      if (color_[p] != kEmpty) {
        owner[y * size + x] = color_[p];
        continue;
      }
      if (visited[p]) continue;
      // Flood the empty region, noting which colours it touches.
      int top = 0, region = 0, touches = 0;
      stack[top++] = static_cast<std::uint16_t>(p);
      visited[p] = 1;
      while (top > 0) {
        const int s = stack[--top];
        region_points[region++] = static_cast<std::uint16_t>(s);
        const int nb[4] = {s - stride, s - 1, s + 1, s + stride};
        for (int q : nb) {
          const int c = color_[q];
          if (c == kEmpty) {
            if (!visited[q]) {
              visited[q] = 1;
              stack[top++] = static_cast<std::uint16_t>(q);
            }
          } else if (c != kBorder) {
            touches |= c;  // bit 1: Black, bit 2: White
          }
        }
      }
      const std::uint8_t colour = touches == kBlack || touches == kWhite ? static_cast<std::uint8_t>(touches) : kEmpty;
      for (int k = 0; k < region; ++k) owner[g.action_of(region_points[k])] = colour;
    }
  }
}

double GoState::score() const {
  std::uint8_t owner[GoGame::kMaxSize * GoGame::kMaxSize];
  area_owners(owner);
  const int points = go().size() * go().size();
  int area[3] = {0, 0, 0};
  for (int a = 0; a < points; ++a) ++area[owner[a]];
  return area[kBlack] - area[kWhite] - go().komi();
}

bool GoState::final_ownership(Player player, float* out) const {
  if (!game_over()) return false;
  std::uint8_t owner[GoGame::kMaxSize * GoGame::kMaxSize];
  area_owners(owner);
  const std::uint8_t mine = player == 0 ? kBlack : kWhite;
  const int points = go().size() * go().size();
  for (int a = 0; a < points; ++a) out[a] = owner[a] == kEmpty ? 0.0f : owner[a] == mine ? 1.0f : -1.0f;
  return true;
}

bool GoState::final_score(Player player, double* out) const {
  if (!game_over()) return false;
  *out = player == 0 ? score() : -score();
  return true;
}

std::vector<double> GoState::returns() const {
  if (!game_over()) return {0.0, 0.0};
  const double s = score();
  if (s > 0) return {1.0, -1.0};
  if (s < 0) return {-1.0, 1.0};
  return {0.0, 0.0};
}

std::uint64_t GoState::hash() const {
  std::uint64_t h = position_hash_;
  if (move_number() & 1) h ^= go().white_to_move_key();
  if (passes_ > 0) h ^= go().passes_key(passes_);
  return h;
}

// --- Queries -----------------------------------------------------------------------------

int GoState::owner(Action action) const {
  if (action < 0 || action >= go().pass_action()) return -1;
  const int c = color_[go().point_of(action)];
  return c == kBlack ? 0 : c == kWhite ? 1 : -1;
}

int GoState::liberties(Action action) const {
  const GoGame& g = go();
  if (action < 0 || action >= g.pass_action()) return 0;
  const int p = g.point_of(action), stride = g.stride();
  if (color_[p] != kBlack && color_[p] != kWhite) return 0;
  std::uint8_t seen[GoGame::kMaxPoints] = {};
  int libs = 0, s = p;
  do {
    const int nb[4] = {s - stride, s - 1, s + 1, s + stride};
    for (int q : nb) {
      if (color_[q] == kEmpty && !seen[q]) {
        seen[q] = 1;
        ++libs;
      }
    }
    s = next_[s];
  } while (s != p);
  return libs;
}

std::vector<Action> GoState::moves() const {
  std::vector<Action> out;
  out.reserve(history_.size() - 1);
  for (size_t i = 1; i < history_.size(); ++i) out.push_back(static_cast<Action>(history_[i] >> kMoveShift & kActionMask));
  return out;
}

// --- Views -------------------------------------------------------------------------------

void GoState::observation(Player player, float* out) const {
  const GoGame& g = go();
  const int size = g.size(), stride = g.stride(), hw = size * size;
  std::memset(out, 0, sizeof(float) * static_cast<size_t>(GoGame::kNumPlanes * hw));
  const int own = player + 1;
  // Real liberties of every chain, stored at its head.
  std::uint16_t libs[GoGame::kMaxPoints];
  std::uint16_t stamp[GoGame::kMaxPoints] = {};
  std::uint16_t chain_id = 0;
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const int p = (y + 1) * stride + x + 1;
      if (color_[p] == kEmpty || head_[p] != p) continue;
      ++chain_id;
      int count = 0, s = p;
      do {
        const int nb[4] = {s - stride, s - 1, s + 1, s + stride};
        for (int q : nb) {
          if (color_[q] == kEmpty && stamp[q] != chain_id) {
            stamp[q] = chain_id;
            ++count;
          }
        }
        s = next_[s];
      } while (s != p);
      libs[p] = static_cast<std::uint16_t>(count);
    }
  }
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const int p = (y + 1) * stride + x + 1, i = y * size + x, c = color_[p];
      if (c == kEmpty) continue;
      const int l = libs[head_[p]];
      const int base = c == own ? 3 : 6;
      out[(c == own ? 0 : 1) * hw + i] = 1.0f;
      out[(base + (l >= 3 ? 2 : l - 1)) * hw + i] = 1.0f;
    }
  }
  if (player == current_player()) {
    bool legal[GoGame::kMaxSize * GoGame::kMaxSize] = {};  // indexed by action
    for_each_legal_point([&](Action a) { legal[a] = true; });
    for (int a = 0; a < hw; ++a) {
      if (color_[g.point_of(a)] == kEmpty && !legal[a]) out[2 * hw + a] = 1.0f;
    }
  }
  const float black = player == 0 ? 1.0f : 0.0f;
  const float komi = static_cast<float>((player == 0 ? -g.komi() : g.komi()) / 15.0);
  const float passed = passes_ > 0 ? 1.0f : 0.0f;
  for (int i = 0; i < hw; ++i) {
    out[9 * hw + i] = black;
    out[10 * hw + i] = komi;
    out[11 * hw + i] = passed;
  }
}

std::string GoState::action_to_string(Player, Action action) const {
  const int size = go().size();
  if (action == go().pass_action()) return "pass";
  return cell_name(action % size, size - action / size, /*skip_i=*/true);
}

std::optional<Action> GoState::parse_action(std::string_view text, std::string* error) const {
  const int size = go().size();
  const std::string t = util::to_lower(util::trim(text));
  if (t == "pass") return go().pass_action();
  auto cell = parse_cell_name(t, size, size, /*skip_i=*/true, error);
  if (!cell) {
    if (error) *error += ", or pass";
    return std::nullopt;
  }
  return (size - cell->row) * size + cell->column;
}

std::string GoState::to_string() const {
  const GoGame& g = go();
  const int size = g.size();
  std::string letters = "   ";
  for (int x = 0; x < size; ++x) {
    letters += static_cast<char>(std::toupper(static_cast<unsigned char>(column_letter(x, true)[0])));
    letters += x + 1 < size ? " " : "\n";
  }
  std::string out = letters;
  for (int y = 0; y < size; ++y) {
    const std::string row = std::to_string(size - y);
    out += (row.size() < 2 ? " " : "") + row + " ";
    for (int x = 0; x < size; ++x) {
      const int c = color_[g.point_of(y * size + x)];
      out += c == kBlack ? 'X' : c == kWhite ? 'O' : '.';
      out += ' ';
    }
    out += row + "\n";
  }
  out += letters;
  if (game_over()) {
    const double s = score();
    out += "Game over: ";
    out += s > 0 ? "B+" + util::format_double(s) : s < 0 ? "W+" + util::format_double(-s) : std::string("draw");
  } else {
    out += move_number() & 1 ? "White (O) to move" : "Black (X) to move";
    if (passes_ > 0) out += " after a pass";
  }
  out += ". Captures: Black " + std::to_string(captures_[0]) + ", White " + std::to_string(captures_[1]) +
         ". Komi " + util::format_double(g.komi()) + ".\n";
  return out;
}

std::string GoState::serialize() const {
  std::string out;
  for (size_t i = 1; i < history_.size(); ++i) {
    if (i > 1) out += ' ';
    out += action_to_string(kTerminalPlayer, static_cast<Action>(history_[i] >> kMoveShift & kActionMask));
  }
  return out;
}

GameEntry go_entry() {
  util::OptionSchema options;
  options.add_int("size", 9, "board side", GoGame::kMinSize, GoGame::kMaxSize)
      .add_double("komi", 7.5, "points added to White's score", -400.0, 400.0)
      .add_int("max_moves", 0,
               "the game is scored as it stands after this many moves (passes included); 0 = 4*size*size", 0,
               10000)
      .add_string("ko", "positional",
                  "repetition rule: positional (superko) or simple (no immediate ko recapture, as GNU Go)",
                  {"positional", "simple"});
  return {"go", "Go", Family::kBoard, "surround territory; area scoring, positional superko or simple ko",
          std::move(options),
          [](const util::OptionSchema::Values& v, const util::Spec& spec) -> std::shared_ptr<const Game> {
            const int size = v.get_int("size");
            int max_moves = v.get_int("max_moves");
            if (max_moves == 0) max_moves = 4 * size * size;
            const auto ko = v.get_string("ko") == "simple" ? GoGame::KoRule::kSimple : GoGame::KoRule::kPositional;
            return std::make_shared<GoGame>(spec, size, v.get_double("komi"), max_moves, ko);
          }};
}

std::string GoState::explain_illegal(Action action) const {
  const std::string reason = illegal_reason(action);
  return reason.empty() ? State::explain_illegal(action) : reason;
}

}  // namespace pz::games
