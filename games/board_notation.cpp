#include "games/board_notation.h"

#include <cctype>

#include "util/spec.h"

namespace pz::games {

std::string column_letter(int column, bool skip_i) {
  char c = static_cast<char>('a' + column);
  if (skip_i && c >= 'i') ++c;
  return std::string(1, c);
}

std::string cell_name(int column, int row, bool skip_i) { return column_letter(column, skip_i) + std::to_string(row); }

std::optional<CellName> parse_cell_name(std::string_view text, int columns, int rows, bool skip_i, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<CellName> {
    if (error) *error = why;
    return std::nullopt;
  };
  std::string t = util::to_lower(util::trim(text));
  const std::string first = column_letter(0, skip_i), last = column_letter(columns - 1, skip_i);
  const std::string expected = "expected a cell from " + first + "1 to " + last + std::to_string(rows);
  if (t.size() < 2 || !std::isalpha(static_cast<unsigned char>(t[0]))) return fail("'" + t + "' is not a cell: " + expected);
  char letter = t[0];
  if (skip_i && letter == 'i') return fail("there is no column i (Go coordinates skip it): " + expected);
  int column = letter - 'a';
  if (skip_i && letter > 'i') --column;
  auto row = util::parse_int(std::string_view(t).substr(1));
  if (!row || !std::isdigit(static_cast<unsigned char>(t[1]))) return fail("'" + t + "' is not a cell: " + expected);
  if (column < 0 || column >= columns || *row < 1 || *row > rows) return fail("'" + t + "' is off the board: " + expected);
  return CellName{column, static_cast<int>(*row)};
}

}  // namespace pz::games
