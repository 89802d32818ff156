// Cell names of the form "c3": a column letter and a row number, as Hex, Go, Othello,
// tic-tac-toe and Breakthrough write them. Which way rows count (from the top in Hex and
// Othello, from the bottom in Go and Breakthrough) is each game's business; this only maps
// text to a column index and a 1-based row number.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pz::games {

struct CellName {
  int column;  // 0-based, left to right
  int row;     // 1-based, as written
};

// Column letters: a, b, c, ... (25 and more columns are not supported). With `skip_i`
// (Go's convention, from GTP) the letter i is not used: a..h, j, k, ...
std::string column_letter(int column, bool skip_i = false);
std::string cell_name(int column, int row, bool skip_i = false);

// Case-insensitive. Returns nullopt with a reason in `error` for text that is not a cell
// of a board with `columns` columns and `rows` rows.
std::optional<CellName> parse_cell_name(std::string_view text, int columns, int rows, bool skip_i,
                                        std::string* error);

}  // namespace pz::games
