#include "server/board_view.h"

#include <algorithm>

#include "games/board_notation.h"
#include "games/connect4.h"
#include "games/game2048.h"
#include "games/go.h"
#include "games/gomoku.h"
#include "games/hex.h"
#include "games/othello.h"
#include "games/snake.h"
#include "games/tictactoe.h"
#include "games/tron.h"

namespace pz::server {
namespace {

using nlohmann::json;

struct Grid {
  const char* kind;
  int rows, cols;
  bool rows_from_bottom;  // how row labels count
  bool skip_i;            // Go's column letters
};

// The grid of a square-cell or hex game and the owner of each cell; nullopt otherwise.
template <typename Owner>
json grid_view(const Grid& grid, const games::State& state, std::optional<games::Action> last,
               const std::vector<std::string>& legal, Owner owner) {
  json cells = json::array(), moves = json::array(), col_labels = json::array(), row_labels = json::array();
  const int cell_count = grid.rows * grid.cols;
  std::vector<std::string> names;
  for (int i = 0; i < cell_count; ++i) {
    cells.push_back(owner(i));
    names.push_back(state.action_to_string(0, i));
    moves.push_back(names.back());
  }
  for (int c = 0; c < grid.cols; ++c) col_labels.push_back(games::column_letter(c, grid.skip_i));
  for (int r = 0; r < grid.rows; ++r) row_labels.push_back(std::to_string(grid.rows_from_bottom ? grid.rows - r : r + 1));
  json other = json::array();
  for (const auto& move : legal) {
    if (std::find(names.begin(), names.end(), move) == names.end()) other.push_back(move);
  }
  const int last_cell = last && *last >= 0 && *last < cell_count ? *last : -1;
  return {{"kind", grid.kind}, {"rows", grid.rows}, {"cols", grid.cols}, {"cells", cells}, {"cell_moves", moves},
          {"column_moves", json::array()}, {"col_labels", col_labels}, {"row_labels", row_labels},
          {"last_cell", last_cell}, {"other_moves", other}};
}

json connect4_view(const games::Connect4State& s, std::optional<games::Action> last) {
  const auto& game = static_cast<const games::Connect4Game&>(s.game());
  const int w = game.width(), h = game.height();
  json cells = json::array(), columns = json::array(), col_labels = json::array(), row_labels = json::array();
  for (int y = 0; y < h; ++y) {  // from the top
    for (int x = 0; x < w; ++x) cells.push_back(s.owner(x, h - 1 - y));
    row_labels.push_back(std::to_string(h - y));
  }
  for (int x = 0; x < w; ++x) {
    columns.push_back(s.action_to_string(0, x));
    col_labels.push_back(std::to_string(x + 1));
  }
  int last_cell = -1;
  if (last && *last >= 0 && *last < w) {  // the highest disc of that column fell last
    for (int y = 0; y < h && last_cell < 0; ++y) {
      if (s.owner(*last, h - 1 - y) >= 0) last_cell = y * w + *last;
    }
  }
  return {{"kind", "columns"}, {"rows", h}, {"cols", w}, {"cells", cells}, {"cell_moves", json::array()},
          {"column_moves", columns}, {"col_labels", col_labels}, {"row_labels", row_labels},
          {"last_cell", last_cell}, {"other_moves", json::array()}};
}

// The frame of the direction-move boards: no clickable cells, the legal directions as
// other_moves.
json direction_view(const char* kind, int rows, int cols, json cells, const std::vector<std::string>& legal) {
  return {{"kind", kind},           {"rows", rows},          {"cols", cols},
          {"cells", std::move(cells)}, {"cell_moves", json::array()}, {"column_moves", json::array()},
          {"col_labels", json::array()}, {"row_labels", json::array()}, {"last_cell", -1},
          {"other_moves", legal}};
}

json tiles_view(const games::Game2048State& s, const std::vector<std::string>& legal) {
  const int n = static_cast<const games::Game2048&>(s.game()).size();
  json cells = json::array();
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) cells.push_back(s.tile(y, x));
  }
  return direction_view("tiles", n, n, cells, legal);
}

json snake_view(const games::SnakeState& s, const std::vector<std::string>& legal) {
  const auto& game = static_cast<const games::SnakeGame&>(s.game());
  json cells = json::array();
  for (int i = 0; i < game.num_cells(); ++i) cells.push_back(-1);
  for (int k = 0; k < s.length(); ++k) cells[static_cast<std::size_t>(s.segment(k))] = 0;
  json view = direction_view("snake", game.rows(), game.columns(), cells, legal);
  view["heads"] = json::array({s.segment(0)});
  view["food"] = s.food();
  return view;
}

json tron_view(const games::TronState& s, const std::vector<std::string>& legal) {
  const auto& game = static_cast<const games::TronGame&>(s.game());
  json cells = json::array();
  for (int i = 0; i < game.num_cells(); ++i) cells.push_back(s.owner(i));
  json view = direction_view("tron", game.rows(), game.columns(), cells, legal);
  view["heads"] = json::array({s.head(0), s.head(1)});
  view["crashed"] = json::array({s.crashed(0), s.crashed(1)});
  return view;
}

}  // namespace

bool has_board_view(const games::Game& game) {
  const auto& name = game.info().name;
  return name == "connect4" || name == "go" || name == "hex" || name == "tictactoe" || name == "othello" ||
         name == "gomoku" || name == "2048" || name == "snake" || name == "tron";
}

json board_view(const games::State& state, std::optional<games::Action> last, const std::vector<std::string>& legal) {
  if (const auto* s = dynamic_cast<const games::Connect4State*>(&state)) return connect4_view(*s, last);
  if (const auto* s = dynamic_cast<const games::GoState*>(&state)) {
    const int n = static_cast<const games::GoGame&>(state.game()).size();
    return grid_view({"go", n, n, true, true}, state, last, legal, [&](int i) { return s->owner(i); });
  }
  if (const auto* s = dynamic_cast<const games::HexState*>(&state)) {
    const int n = static_cast<const games::HexGame&>(state.game()).size();
    return grid_view({"hex", n, n, false, false}, state, last, legal, [&](int i) { return s->owner(i); });
  }
  if (const auto* s = dynamic_cast<const games::OthelloState*>(&state)) {
    const int n = static_cast<const games::OthelloGame&>(state.game()).size();
    return grid_view({"grid", n, n, false, false}, state, last, legal, [&](int i) { return s->owner(i); });
  }
  if (const auto* s = dynamic_cast<const games::GomokuState*>(&state)) {
    const int n = static_cast<const games::GomokuGame&>(state.game()).size();
    return grid_view({"grid", n, n, true, false}, state, last, legal, [&](int i) { return s->owner(i); });
  }
  if (const auto* s = dynamic_cast<const games::Game2048State*>(&state)) return tiles_view(*s, legal);
  if (const auto* s = dynamic_cast<const games::SnakeState*>(&state)) return snake_view(*s, legal);
  if (const auto* s = dynamic_cast<const games::TronState*>(&state)) return tron_view(*s, legal);
  if (const auto* s = dynamic_cast<const games::TicTacToeState*>(&state)) {
    return grid_view({"grid", 3, 3, false, false}, state, last, legal, [&](int i) { return s->owner(i); });
  }
  return nullptr;
}

}  // namespace pz::server
