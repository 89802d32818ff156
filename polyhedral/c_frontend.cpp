#include "polyhedral/c_frontend.h"

#include <map>
#include <regex>

#include "polyhedral/c_lexer.h"
#include "polyhedral/c_parser.h"
#include "polyhedral/frontend_error.h"

namespace pz::poly {

namespace {

bool is_pragma(const Token& t, const char* word) {
  static const std::regex scop(R"(^#\s*pragma\s+scop\s*$)"), endscop(R"(^#\s*pragma\s+endscop\s*$)");
  if (t.kind != Token::Kind::kDirective) return false;
  return std::regex_match(t.text, std::string(word) == "scop" ? scop : endscop);
}

// The element type of every declared name, from declarations seen so far (latest wins).
void scan_declarations(const std::vector<Token>& tokens, size_t end, std::map<std::string, std::string>& types,
                       std::map<std::string, long long>& defines) {
  static const std::regex define(R"(^#\s*define\s+([A-Za-z_]\w*)\s+\(?\s*(-?\d+)\s*\)?\s*$)");
  std::string type;
  for (size_t i = 0; i < end; ++i) {
    const Token& t = tokens[i];
    if (t.kind == Token::Kind::kDirective) {
      std::smatch m;
      if (std::regex_match(t.text, m, define)) defines[m[1]] = std::stoll(m[2]);
      continue;
    }
    if (t.kind == Token::Kind::kPunct && (t.text == ";" || t.text == "{" || t.text == "}")) {
      type.clear();
      continue;
    }
    if (t.kind != Token::Kind::kIdent) continue;
    if (t.text == "float" || t.text == "double" || t.text == "int" || t.text == "long" || t.text == "char" ||
        t.text == "short" || t.text == "unsigned") {
      type = t.text;
      continue;
    }
    if (!type.empty() && i + 1 < tokens.size()) {
      const std::string& n = tokens[i + 1].text;
      if (n == "[" || n == "," || n == ";" || n == "=" || n == ")") types[t.text] = type;
    }
  }
}

}  // namespace

std::vector<ScopRegion> parse_c_regions(const std::string& source) {
  std::vector<Token> tokens = tokenize(source);
  std::vector<ScopRegion> regions;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (is_pragma(tokens[i], "endscop")) throw FrontendError(tokens[i].loc, "'#pragma endscop' without '#pragma scop'");
    if (!is_pragma(tokens[i], "scop")) continue;
    size_t j = i + 1;
    while (j < tokens.size() && !is_pragma(tokens[j], "endscop")) {
      if (is_pragma(tokens[j], "scop")) throw FrontendError(tokens[j].loc, "nested '#pragma scop'");
      if (tokens[j].kind == Token::Kind::kEnd)
        throw FrontendError(tokens[i].loc, "'#pragma scop' without a matching '#pragma endscop'");
      ++j;
    }
    ScopRegion r;
    r.line = tokens[i].loc.line;
    size_t line_start = source.rfind('\n', tokens[i].begin);
    line_start = line_start == std::string::npos ? 0 : line_start + 1;
    r.begin = line_start;
    r.indent = source.substr(line_start, tokens[i].begin - line_start);
    r.end = tokens[j].end;
    if (r.end < source.size() && source[r.end] == '\n') ++r.end;
    r.tree = parse_statements(tokens, i + 1, j);
    scan_declarations(tokens, i, r.options.element_types, r.options.param_values);
    regions.push_back(std::move(r));
    i = j;
  }
  if (regions.empty()) throw FrontendError({}, "no '#pragma scop' ... '#pragma endscop' region in the input");
  return regions;
}

}  // namespace pz::poly
