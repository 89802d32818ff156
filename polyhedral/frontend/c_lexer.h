// Tokens of C for the scop frontend. Comments are skipped; preprocessor lines become one
// kDirective token each (the frontend finds `#pragma scop` with them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "polyhedral/ir/expr.h"

namespace pz::poly {

struct Token {
  enum class Kind { kIdent, kInt, kFloat, kString, kChar, kPunct, kDirective, kEnd };
  Kind kind;
  std::string text;
  SourceLoc loc;
  size_t begin = 0, end = 0;  // byte offsets in the source
};

// `first_line` numbers the first line of `source` (for regions cut out of a file).
std::vector<Token> tokenize(std::string_view source, int first_line = 1);

}  // namespace pz::poly
