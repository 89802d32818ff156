#include "games/snake.h"

#include <algorithm>
#include <cassert>
#include <cctype>

#include "games/board_notation.h"
#include "games/grid_directions.h"
#include "util/error.h"

namespace pz::games {
namespace {

using Status = SnakeGame::Status;

constexpr const char* kStatusNames[SnakeGame::kNumStatuses] = {"playing", "wall", "self", "starved", "full"};

GameInfo make_info(int rows, int columns, int hunger) {
  const int cells = rows * columns;
  GameInfo info;
  info.name = "snake";
  info.long_name = "Snake";
  info.family = Family::kAction;
  info.num_players = 1;
  info.num_distinct_actions = 4;
  info.max_chance_outcomes = cells;
  info.observation_shape = {6, rows, columns};
  info.policy_shape = {4, 1, 1};
  info.zero_sum = false;
  info.min_return = 3;
  info.max_return = cells;
  info.max_game_length = (cells - 2) * (hunger + 2) - 1;
  return info;
}

std::vector<Symmetry> snake_symmetries(int rows) {
  if (rows % 2 == 1) return {Symmetry::kIdentity, Symmetry::kFlip};
  return {Symmetry::kIdentity};
}

}  // namespace

SnakeGame::SnakeGame(util::Spec spec, int rows, int columns, int hunger)
    : Game(make_info(rows, columns, hunger > 0 ? hunger : rows * columns), std::move(spec), snake_symmetries(rows)),
      rows_(rows),
      columns_(columns),
      hunger_(hunger > 0 ? hunger : rows * columns),
      zobrist_(7 * kMaxCells + kNumStatuses + 1, 0x5A4E4B3ULL * 1000 + static_cast<std::uint64_t>(rows * 32 + columns)) {
  assert(rows >= kMinSide && rows <= kMaxSide && columns >= kMinSide && columns <= kMaxSide);
}

std::unique_ptr<State> SnakeGame::new_initial_state() const { return std::make_unique<SnakeState>(this); }

Action SnakeGame::transform_action(Symmetry symmetry, Action action) const { return transform_direction(symmetry, action); }

Action SnakeGame::transform_chance_outcome(Symmetry symmetry, Action outcome) const {
  const Cell c = transform_cell(symmetry, rows_, columns_, {outcome / columns_, outcome % columns_});
  return c.y * columns_ + c.x;
}

SnakeState::SnakeState(const SnakeGame* game) : State(game) {
  const int y = game->rows() / 2, x = game->columns() / 2;
  length_ = 3;
  head_ = 0;
  for (int i = 0; i < 3; ++i) {
    body_[i] = static_cast<std::uint16_t>(y * game->columns() + x - i);
    set_occupied(body_[i], true);
  }
  recompute_hash();
}

void SnakeState::set_occupied(int cell, bool on) {
  const std::uint64_t bit = std::uint64_t{1} << (cell & 63);
  if (on) occupied_[cell >> 6] |= bit;
  else occupied_[cell >> 6] &= ~bit;
}

int SnakeState::direction_between(int from, int to) const {
  const int columns = g().columns();
  if (to == from - columns) return 0;
  if (to == from + 1) return 1;
  if (to == from + columns) return 2;
  assert(to == from - 1);
  return 3;
}

void SnakeState::recompute_hash() {
  const SnakeGame& game = g();
  hash_ = game.status_key(status_) ^ game.head_key(segment(0)) ^ game.tail_key(segment(length_ - 1));
  for (int i = 0; i + 1 < length_; ++i) hash_ ^= game.segment_key(segment(i), direction_between(segment(i), segment(i + 1)));
  if (food_ >= 0) hash_ ^= game.food_key(food_);
  if (status_ == Status::kPlaying && food_ < 0) hash_ ^= game.pending_food_key();
}

std::uint64_t SnakeState::hash() const {
  std::uint64_t z = static_cast<std::uint64_t>(since_food_) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return hash_ ^ z ^ (z >> 31);
}

void SnakeState::set_status(Status status) {
  hash_ ^= g().status_key(status_) ^ g().status_key(status);
  status_ = status;
}

Player SnakeState::current_player() const {
  if (status_ != Status::kPlaying) return kTerminalPlayer;
  return food_ < 0 ? kChancePlayer : 0;
}

int SnakeState::move_number() const { return moves_ + (length_ - 3) + (food_ >= 0 ? 1 : 0); }

void SnakeState::legal_actions(std::vector<Action>& out) const {
  out.clear();
  const Player p = current_player();
  if (p == kTerminalPlayer) return;
  if (p == kChancePlayer) {
    for (int c = 0; c < g().num_cells(); ++c) {
      if (!occupied(c)) out.push_back(c);
    }
    return;
  }
  for (int d = 0; d < 4; ++d) {
    if (d != (heading_ + 2) % 4) out.push_back(d);
  }
}

std::string SnakeState::explain_illegal(Action action) const {
  switch (status_) {
    case Status::kWall: return "the game is over: the snake hit the wall";
    case Status::kSelf: return "the game is over: the snake ran into itself";
    case Status::kStarved: return "the game is over: the snake starved (" + std::to_string(g().hunger()) + " moves without food)";
    case Status::kFull: return "the game is over: the snake fills the board";
    case Status::kPlaying: break;
  }
  if (food_ < 0) return "food must appear first (chance)";
  if (action >= 0 && action < 4 && action == (heading_ + 2) % 4) {
    return std::string("the snake cannot turn back into its neck (it is heading ") + kDirectionNames[heading_] + ")";
  }
  return State::explain_illegal(action);
}

std::vector<std::pair<Action, double>> SnakeState::chance_outcomes() const {
  std::vector<std::pair<Action, double>> out;
  if (current_player() != kChancePlayer) return out;
  const int empty = g().num_cells() - length_;
  for (int c = 0; c < g().num_cells(); ++c) {
    if (!occupied(c)) out.emplace_back(c, 1.0 / empty);
  }
  return out;
}

void SnakeState::apply_action(Action action) {
  const SnakeGame& game = g();
  if (food_ < 0) {
    assert(action >= 0 && action < game.num_cells() && !occupied(action));
    food_ = static_cast<std::int16_t>(action);
    hash_ ^= game.pending_food_key() ^ game.food_key(food_);
    return;
  }
  assert(action >= 0 && action < 4 && action != (heading_ + 2) % 4);
  ++moves_;
  const int columns = game.columns();
  const int head = segment(0);
  const int y = head / columns + kDirectionDy[action], x = head % columns + kDirectionDx[action];
  if (y < 0 || y >= game.rows() || x < 0 || x >= columns) {
    set_status(Status::kWall);
    return;
  }
  const int target = y * columns + x;
  const bool eats = target == food_;
  if (!eats) {
    // The tail leaves its cell in the same step, so the head may take it.
    const int tail = segment(length_ - 1), before_tail = segment(length_ - 2);
    if (target != tail && occupied(target)) {
      set_status(Status::kSelf);
      return;
    }
    set_occupied(tail, false);
    hash_ ^= game.tail_key(tail) ^ game.segment_key(before_tail, direction_between(before_tail, tail)) ^
             game.tail_key(before_tail);
    --length_;
  }
  // Push the new head.
  hash_ ^= game.head_key(head) ^ game.head_key(target) ^ game.segment_key(target, direction_between(target, head));
  head_ = static_cast<std::int16_t>((head_ - 1) & kRingMask);
  body_[head_] = static_cast<std::uint16_t>(target);
  set_occupied(target, true);
  ++length_;
  heading_ = static_cast<std::int8_t>(action);
  if (eats) {
    hash_ ^= game.food_key(food_);
    food_ = -1;
    since_food_ = 0;
    if (length_ == game.num_cells()) set_status(Status::kFull);
    else hash_ ^= game.pending_food_key();
  } else if (++since_food_ >= game.hunger()) {
    set_status(Status::kStarved);
  }
}

void SnakeState::observation(Player, float* out) const {
  const SnakeGame& game = g();
  const int n = game.num_cells();
  std::fill(out, out + 6 * n, 0.0f);
  const float cells = static_cast<float>(n);
  out[segment(0)] = 1.0f;
  for (int i = 0; i < length_; ++i) {
    const int c = segment(i);
    out[n + c] = 1.0f;
    out[2 * n + c] = static_cast<float>(length_ - i) / cells;
  }
  if (food_ >= 0) out[3 * n + food_] = 1.0f;
  const float hunger = static_cast<float>(since_food_) / static_cast<float>(game.hunger());
  std::fill(out + 4 * n, out + 5 * n, hunger);
  std::fill(out + 5 * n, out + 6 * n, 1.0f);
}

std::string SnakeState::action_to_string(Player player, Action action) const {
  if (player == kChancePlayer) {
    const int columns = g().columns();
    return "food@" + cell_name(action % columns, action / columns + 1);
  }
  if (action >= 0 && action < 4) return kDirectionNames[action];
  return "?" + std::to_string(action);
}

std::optional<Action> SnakeState::parse_action(std::string_view text, std::string* error) const {
  std::string t = util::to_lower(util::trim(text));
  const SnakeGame& game = g();
  if (current_player() == kChancePlayer) {
    if (t.rfind("food@", 0) == 0) t.erase(0, 5);
    auto cell = parse_cell_name(t, game.columns(), game.rows(), false, error);
    if (!cell) {
      if (error) *error = "'" + util::trim(text) + "' is not a food cell: " + *error;
      return std::nullopt;
    }
    return (cell->row - 1) * game.columns() + cell->column;
  }
  return parse_direction(text, error);
}

std::string SnakeState::to_string() const {
  const SnakeGame& game = g();
  const int rows = game.rows(), columns = game.columns();
  std::string grid(static_cast<size_t>(rows * columns), '.');
  for (int i = 1; i < length_; ++i) grid[static_cast<size_t>(segment(i))] = 'o';
  grid[static_cast<size_t>(segment(0))] = 'H';
  if (food_ >= 0) grid[static_cast<size_t>(food_)] = '*';
  std::string out = "   ";
  for (int x = 0; x < columns; ++x) out += column_letter(x) + (x + 1 < columns ? " " : "\n");
  for (int y = 0; y < rows; ++y) {
    const std::string label = std::to_string(y + 1);
    out += (label.size() < 2 ? " " : "") + label + " ";
    for (int x = 0; x < columns; ++x) {
      out += grid[static_cast<size_t>(y * columns + x)];
      out += x + 1 < columns ? " " : "\n";
    }
  }
  out += "Length " + std::to_string(length_) + ", " + std::to_string(moves_) + " moves, " + std::to_string(since_food_) +
         " since food (starves at " + std::to_string(game.hunger()) + ")";
  switch (status_) {
    case Status::kPlaying:
      out += food_ < 0 ? ", food appears next.\n" : std::string(", heading ") + kDirectionNames[heading_] + ".\n";
      break;
    case Status::kWall: out += ". Game over: hit the wall.\n"; break;
    case Status::kSelf: out += ". Game over: ran into itself.\n"; break;
    case Status::kStarved: out += ". Game over: starved.\n"; break;
    case Status::kFull: out += ". Game over: the snake fills the board.\n"; break;
  }
  return out;
}

std::string SnakeState::serialize() const {
  const int columns = g().columns();
  auto name = [&](int cell) { return cell_name(cell % columns, cell / columns + 1); };
  std::string out = "moves=" + std::to_string(moves_) + " since_food=" + std::to_string(since_food_) +
                    " status=" + kStatusNames[static_cast<int>(status_)] + " food=" + (food_ >= 0 ? name(food_) : "none") +
                    " snake=";
  for (int i = 0; i < length_; ++i) {
    if (i) out += ',';
    out += name(segment(i));
  }
  return out;
}

std::unique_ptr<State> SnakeGame::deserialize(std::string_view text) const {
  const std::string record(text);
  auto fail = [&](const std::string& why) {
    throw util::UsageError("snake position '" + record + "': " + why +
                           " (expected e.g. 'moves=0 since_food=0 status=playing food=c3 snake=f6,e6,d6')");
  };
  std::optional<long long> moves, since_food;
  std::optional<std::string> status_text, food_text, snake_text;
  size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos == text.size()) break;
    size_t end = pos;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    const std::string token(text.substr(pos, end - pos));
    pos = end;
    const size_t eq = token.find('=');
    if (eq == std::string::npos) fail("'" + token + "' is not key=value");
    const std::string key = util::to_lower(token.substr(0, eq)), value = util::to_lower(token.substr(eq + 1));
    if (key == "moves" || key == "since_food") {
      auto number = util::parse_int(value);
      if (!number || *number < 0) fail("'" + token + "' needs a non-negative integer");
      (key == "moves" ? moves : since_food) = number;
    } else if (key == "status") {
      status_text = value;
    } else if (key == "food") {
      food_text = value;
    } else if (key == "snake") {
      snake_text = value;
    } else {
      fail("unknown key '" + key + "' (keys: moves, since_food, status, food, snake)");
    }
  }
  if (!moves || !since_food || !status_text || !food_text || !snake_text) {
    fail("moves, since_food, status, food and snake are all required");
  }
  int status = -1;
  for (int s = 0; s < kNumStatuses; ++s) {
    if (*status_text == kStatusNames[s]) status = s;
  }
  if (status < 0) fail("status '" + *status_text + "' is not one of playing, wall, self, starved, full");
  auto parse_cell = [&](const std::string& t) {
    std::string error;
    auto cell = parse_cell_name(t, columns_, rows_, false, &error);
    if (!cell) fail(error);
    return (cell->row - 1) * columns_ + cell->column;
  };
  auto state = std::make_unique<SnakeState>(this);
  std::fill(std::begin(state->occupied_), std::end(state->occupied_), 0);
  state->head_ = 0;
  state->length_ = 0;
  size_t i = 0;
  while (i <= snake_text->size()) {
    size_t j = snake_text->find(',', i);
    if (j == std::string::npos) j = snake_text->size();
    const int cell = parse_cell(snake_text->substr(i, j - i));
    if (state->length_ >= num_cells()) fail("the snake is longer than the board");
    if (state->occupied(cell)) fail("the snake crosses itself at " + snake_text->substr(i, j - i));
    if (state->length_ > 0) {
      const int prev = state->body_[state->length_ - 1];
      const int dy = cell / columns_ - prev / columns_, dx = cell % columns_ - prev % columns_;
      if (std::abs(dy) + std::abs(dx) != 1) fail("snake cells " + std::to_string(state->length_) + " and " +
                                                 std::to_string(state->length_ + 1) + " are not neighbours");
    }
    state->body_[state->length_++] = static_cast<std::uint16_t>(cell);
    state->set_occupied(cell, true);
    i = j + 1;
  }
  if (state->length_ < 3) fail("the snake is shorter than 3");
  state->status_ = static_cast<Status>(status);
  state->heading_ = static_cast<std::int8_t>(state->direction_between(state->segment(1), state->segment(0)));
  if (*food_text != "none") {
    state->food_ = static_cast<std::int16_t>(parse_cell(*food_text));
    if (state->occupied(state->food_)) fail("food on the snake");
  }
  if (state->status_ != Status::kPlaying && state->status_ != Status::kFull && state->food_ < 0) {
    fail("a game that ended by " + *status_text + " still has its food on the board");
  }
  const bool full = state->length_ == num_cells();
  if ((state->status_ == Status::kFull) != full) fail("status full goes with (only) a snake that fills the board");
  if (full && state->food_ >= 0) fail("food on a full board");
  if (*since_food > hunger_ || (state->status_ == Status::kStarved) != (*since_food == hunger_)) {
    fail("since_food must be below hunger=" + std::to_string(hunger_) + ", and equal to it exactly when starved");
  }
  if (*moves < (state->length_ - 3) + *since_food) fail("too few moves for this length and since_food");
  state->moves_ = static_cast<int>(*moves);
  state->since_food_ = static_cast<int>(*since_food);
  state->recompute_hash();
  return state;
}

GameEntry snake_entry() {
  util::OptionSchema options;
  options.add_int("rows", 10, "board height", SnakeGame::kMinSide, SnakeGame::kMaxSide)
      .add_int("columns", 10, "board width", SnakeGame::kMinSide, SnakeGame::kMaxSide)
      .add_int("hunger", 0, "moves without food before the snake starves (0: rows*columns)", 0, 100000);
  return {"snake", "Snake", Family::kAction, "steer a growing snake to food; score = length (one player, random food)",
          std::move(options),
          [](const util::OptionSchema::Values& v, const util::Spec& spec) -> std::shared_ptr<const Game> {
            return std::make_shared<SnakeGame>(spec, v.get_int("rows"), v.get_int("columns"), v.get_int("hunger"));
          }};
}

}  // namespace pz::games
