#include "polyhedral/frontend/c_lexer.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstring>

#include "polyhedral/frontend/frontend_error.h"

namespace pz::poly {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Integer constants are computed with as 64-bit signed integers everywhere after the lexer.
void check_integer_width(const Token& t, std::string_view literal) {
  while (!literal.empty() && std::strchr("uUlL", literal.back())) literal.remove_suffix(1);
  int base = 10;
  if (literal.size() > 2 && literal[0] == '0' && (literal[1] == 'x' || literal[1] == 'X')) {
    base = 16;
    literal.remove_prefix(2);
  } else if (literal.size() > 1 && literal[0] == '0') {
    base = 8;
  }
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(literal.data(), literal.data() + literal.size(), value, base);
  if (error == std::errc::result_out_of_range) {
    const std::string shown = literal.size() > 24 ? std::string(literal.substr(0, 24)) + "…" : std::string(literal);
    throw FrontendError(t.loc, "integer constant " + shown + " does not fit in 64 bits");
  }
  (void)end;
}

}  // namespace

std::vector<Token> tokenize(std::string_view src, int first_line) {
  std::vector<Token> out;
  size_t i = 0;
  int line = first_line;
  size_t line_start = 0;
  bool at_line_start = true;
  auto loc_at = [&](size_t pos) { return SourceLoc{line, static_cast<int>(pos - line_start) + 1}; };
  auto newline = [&](size_t pos) {
    ++line;
    line_start = pos + 1;
    at_line_start = true;
  };
  while (i < src.size()) {
    char c = src[i];
    if (c == '\n') {
      newline(i);
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      while (i < src.size() && src[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
      SourceLoc start = loc_at(i);
      i += 2;
      while (i + 1 < src.size() && !(src[i] == '*' && src[i + 1] == '/')) {
        if (src[i] == '\n') newline(i);
        ++i;
      }
      if (i + 1 >= src.size()) throw FrontendError(start, "unterminated comment");
      i += 2;
      continue;
    }
    Token t;
    t.loc = loc_at(i);
    t.begin = i;
    if (c == '#' && at_line_start) {
      // A directive runs to the end of the line, with backslash continuations.
      while (i < src.size() && src[i] != '\n') {
        if (src[i] == '\\' && i + 1 < src.size() && src[i + 1] == '\n') {
          i += 2;
          newline(i - 1);
          at_line_start = false;
          continue;
        }
        ++i;
      }
      t.kind = Token::Kind::kDirective;
      t.end = i;
      t.text = std::string(src.substr(t.begin, t.end - t.begin));
      out.push_back(std::move(t));
      continue;
    }
    at_line_start = false;
    if (ident_start(c)) {
      while (i < src.size() && ident_char(src[i])) ++i;
      t.kind = Token::Kind::kIdent;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < src.size() && std::isdigit(static_cast<unsigned char>(src[i + 1])))) {
      bool is_float = false;
      if (c == '0' && i + 1 < src.size() && (src[i + 1] == 'x' || src[i + 1] == 'X')) {
        i += 2;
        while (i < src.size() && std::isxdigit(static_cast<unsigned char>(src[i]))) ++i;
      } else {
        while (i < src.size()) {
          char d = src[i];
          if (std::isdigit(static_cast<unsigned char>(d))) {
            ++i;
          } else if (d == '.') {
            is_float = true;
            ++i;
          } else if ((d == 'e' || d == 'E')) {
            is_float = true;
            ++i;
            if (i < src.size() && (src[i] == '+' || src[i] == '-')) ++i;
          } else {
            break;
          }
        }
      }
      while (i < src.size() && (src[i] == 'f' || src[i] == 'F' || src[i] == 'l' || src[i] == 'L' ||
                                src[i] == 'u' || src[i] == 'U')) {
        if (src[i] == 'f' || src[i] == 'F') is_float = true;
        ++i;
      }
      t.kind = is_float ? Token::Kind::kFloat : Token::Kind::kInt;
      if (!is_float) check_integer_width(t, src.substr(t.begin, i - t.begin));
    } else if (c == '"' || c == '\'') {
      ++i;
      while (i < src.size() && src[i] != c && src[i] != '\n') i += (src[i] == '\\') ? 2 : 1;
      if (i >= src.size() || src[i] != c) throw FrontendError(t.loc, "unterminated literal");
      ++i;
      t.kind = c == '"' ? Token::Kind::kString : Token::Kind::kChar;
    } else {
      static const char* const kPuncts[] = {"<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
                                            "!=",  "&&",  "||",  "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="};
      t.kind = Token::Kind::kPunct;
      size_t len = 1;
      for (const char* p : kPuncts) {
        std::string_view pv(p);
        if (src.substr(i, pv.size()) == pv) {
          len = pv.size();
          break;
        }
      }
      i += len;
    }
    t.end = i;
    t.text = std::string(src.substr(t.begin, t.end - t.begin));
    out.push_back(std::move(t));
  }
  Token end;
  end.kind = Token::Kind::kEnd;
  end.loc = loc_at(i);
  end.begin = end.end = i;
  out.push_back(end);
  return out;
}

}  // namespace pz::poly
