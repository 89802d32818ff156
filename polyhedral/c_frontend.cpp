#include "polyhedral/c_frontend.h"

#include <algorithm>
#include <charconv>
#include <set>
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

bool is_type_keyword(const std::string& word) {
  return word == "float" || word == "double" || word == "int" || word == "long" || word == "char" || word == "short" ||
         word == "unsigned";
}

// The element type of every declared name and the value of every integer #define, from the
// tokens scanned so far (latest wins). One pass over the file: each region continues where
// the previous one stopped.
class DeclarationScan {
  static long long define_value(const Token& t, const std::string& digits) {
    long long value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error != std::errc() || end != digits.data() + digits.size()) {
      const std::string shown = digits.size() > 24 ? digits.substr(0, 24) + "…" : digits;
      throw FrontendError(t.loc, "integer constant " + shown + " does not fit in 64 bits");
    }
    return value;
  }

  // The text inside each `[...]` following a declared name ("double A[N][N + 1]" gives
  // {"N", "N + 1"}); empty when one is empty (`double x[]`) or none follows.
  static std::vector<std::string> bracketed_extents(const std::vector<Token>& tokens, size_t at) {
    std::vector<std::string> extents;
    while (at < tokens.size() && tokens[at].text == "[") {
      std::string text;
      int depth = 1;
      for (++at; at < tokens.size() && depth > 0; ++at) {
        if (tokens[at].text == "[") ++depth;
        if (tokens[at].text == "]" && --depth == 0) break;
        if (tokens[at].kind == Token::Kind::kEnd) return {};
        text += (text.empty() ? "" : " ") + tokens[at].text;
      }
      if (text.empty()) return {};
      extents.push_back(text);
      ++at;
    }
    return extents;
  }

 public:
  void scan_to(const std::vector<Token>& tokens, size_t end) {
    static const std::regex define(R"(^#\s*define\s+([A-Za-z_]\w*)\s+\(?\s*(-?\d+)\s*\)?\s*$)");
    for (; next_ < end; ++next_) {
      const Token& t = tokens[next_];
      if (t.kind == Token::Kind::kDirective) {
        std::smatch m;
        if (std::regex_match(t.text, m, define)) defines_[m[1]] = define_value(t, m[2].str());
        continue;
      }
      if (t.kind == Token::Kind::kPunct && (t.text == ";" || t.text == "{" || t.text == "}")) {
        type_.clear();
        continue;
      }
      if (t.kind != Token::Kind::kIdent) continue;
      if (is_type_keyword(t.text)) {
        type_ = t.text;
        continue;
      }
      if (!type_.empty() && next_ + 1 < tokens.size()) {
        const std::string& n = tokens[next_ + 1].text;
        if (n == "[" || n == "," || n == ";" || n == "=" || n == ")") {
          types_[t.text] = type_;
          // A declarator follows a type, a qualifier, `*` or `,`; `double x = A[i]` declares no A.
          const Token& before = tokens[next_ - 1];
          if (before.kind == Token::Kind::kIdent || before.text == "*" || before.text == ",")
            extents_[t.text] = bracketed_extents(tokens, next_ + 1);
        }
      }
    }
  }

  // The entries for the names tokens [begin, end) use: a region needs no more, and a copy
  // of everything per region would grow with regions x declarations.
  void fill(const std::vector<Token>& tokens, size_t begin, size_t end, LowerOptions& options) const {
    for (size_t i = begin; i < end; ++i) {
      if (tokens[i].kind != Token::Kind::kIdent) continue;
      const std::string& name = tokens[i].text;
      if (auto it = types_.find(name); it != types_.end()) options.element_types.insert(*it);
      if (auto it = extents_.find(name); it != extents_.end() && !it->second.empty()) {
        options.declared_extents.insert(*it);
        for (const std::string& extent : it->second) add_defines_in(extent, options.extent_constants);
      }
      if (auto it = defines_.find(name); it != defines_.end()) options.param_values.insert(*it);
    }
  }

 private:
  void add_defines_in(const std::string& text, std::map<std::string, long long>& out) const {
    static const std::regex identifier(R"([A-Za-z_]\w*)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), identifier); it != std::sregex_iterator(); ++it)
      if (auto d = defines_.find(it->str()); d != defines_.end()) out.insert(*d);
  }

  size_t next_ = 0;
  std::string type_;
  std::map<std::string, std::string> types_;
  std::map<std::string, long long> defines_;
  std::map<std::string, std::vector<std::string>> extents_;
};

// The scalars declared in the function around tokens (open, close) (not static, in a block
// still open at the region) that the function mentions nowhere but in their declaration
// and the region: their values after it are dead, whatever the region leaves in them (also
// when the region runs in a loop: no code before it reads what the last run left).
std::set<std::string> dead_after_region(const std::vector<Token>& tokens, size_t open, size_t close) {
  std::vector<std::pair<std::string, int>> declared;  // name, brace depth of its block
  std::set<std::string> used_before;                   // mentioned since its declaration
  int depth = 0;
  bool in_declaration = false, is_static = false;
  for (size_t i = 0; i < open; ++i) {
    const Token& t = tokens[i];
    if (t.kind == Token::Kind::kPunct && (t.text == "{" || t.text == "}" || t.text == ";")) {
      if (t.text == "{") ++depth;
      if (t.text == "}") {
        declared.erase(std::remove_if(declared.begin(), declared.end(), [&](const auto& d) { return d.second >= depth; }),
                       declared.end());
        --depth;
      }
      in_declaration = is_static = false;
      continue;
    }
    if (t.kind != Token::Kind::kIdent) continue;
    if (t.text == "static" || t.text == "extern") is_static = true;
    if (is_type_keyword(t.text)) {
      in_declaration = true;
      continue;
    }
    const std::string next = i + 1 < tokens.size() ? tokens[i + 1].text : "";
    if (in_declaration && !is_static && depth > 0 && (next == "," || next == ";" || next == "=")) {
      declared.emplace_back(t.text, depth);
      used_before.erase(t.text);
    } else {
      used_before.insert(t.text);
    }
  }
  std::set<std::string> dead;
  for (const auto& d : declared)
    if (!used_before.count(d.first)) dead.insert(d.first);
  for (size_t i = close + 1, level = static_cast<size_t>(std::max(depth, 0)); i < tokens.size() && level > 0; ++i) {
    if (tokens[i].text == "{") ++level;
    if (tokens[i].text == "}") --level;
    if (tokens[i].kind == Token::Kind::kIdent) dead.erase(tokens[i].text);
  }
  return dead;
}

}  // namespace

namespace {

// Each region's byte ranges and line, with the token indices of its two pragma lines.
struct RegionSpan {
  ScopRegion region;
  size_t open = 0, close = 0;
};

size_t line_start(const std::string& source, size_t at) {
  const size_t newline = at == 0 ? std::string::npos : source.rfind('\n', at - 1);
  return newline == std::string::npos ? 0 : newline + 1;
}

std::vector<RegionSpan> region_spans(const std::string& source, const std::vector<Token>& tokens) {
  std::vector<RegionSpan> spans;
  size_t declaration = 0;  // where the top-level declaration around tokens[i] begins
  bool boundary = true;    // the next token outside braces begins a declaration
  int depth = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind == Token::Kind::kDirective) {
      if (depth == 0) boundary = true;
    } else if (t.kind != Token::Kind::kEnd) {
      if (depth == 0 && boundary) declaration = line_start(source, t.begin);
      boundary = false;
      if (t.kind == Token::Kind::kPunct && t.text == "{") ++depth;
      if (t.kind == Token::Kind::kPunct && t.text == "}" && depth > 0 && --depth == 0) boundary = true;
      if (t.kind == Token::Kind::kPunct && t.text == ";" && depth == 0) boundary = true;
    }
    if (is_pragma(tokens[i], "endscop")) throw FrontendError(tokens[i].loc, "'#pragma endscop' without '#pragma scop'");
    if (!is_pragma(tokens[i], "scop")) continue;
    size_t j = i + 1;
    while (j < tokens.size() && !is_pragma(tokens[j], "endscop")) {
      if (is_pragma(tokens[j], "scop")) throw FrontendError(tokens[j].loc, "nested '#pragma scop'");
      if (tokens[j].kind == Token::Kind::kEnd)
        throw FrontendError(tokens[i].loc, "'#pragma scop' without a matching '#pragma endscop'");
      ++j;
    }
    RegionSpan span;
    ScopRegion& r = span.region;
    r.line = tokens[i].loc.line;
    r.begin = line_start(source, tokens[i].begin);
    r.indent = source.substr(r.begin, tokens[i].begin - r.begin);
    r.declaration_begin = depth > 0 ? declaration : r.begin;
    r.body_begin = tokens[i].end;
    if (r.body_begin < source.size() && source[r.body_begin] == '\n') ++r.body_begin;
    const size_t end_line = source.rfind('\n', tokens[j].begin);
    r.body_end = end_line == std::string::npos || end_line < r.body_begin ? r.body_begin : end_line + 1;
    r.end = tokens[j].end;
    if (r.end < source.size() && source[r.end] == '\n') ++r.end;
    span.open = i;
    span.close = j;
    spans.push_back(std::move(span));
    i = j;
  }
  if (spans.empty()) throw FrontendError({}, "no '#pragma scop' ... '#pragma endscop' region in the input");
  return spans;
}

void check_size(const std::string& source) {
  if (source.size() > kMaxSourceBytes)
    throw FrontendError({}, "the input has " + std::to_string(source.size() >> 20) + " MiB; polyc reads at most " +
                                std::to_string(kMaxSourceBytes >> 20) + " MiB");
}

}  // namespace

std::vector<ScopRegion> parse_c_regions(const std::string& source) {
  check_size(source);
  std::vector<Token> tokens = tokenize(source);
  std::vector<ScopRegion> regions;
  DeclarationScan declarations;
  for (auto& span : region_spans(source, tokens)) {
    ScopRegion r = std::move(span.region);
    r.tree = parse_statements(tokens, span.open + 1, span.close);
    declarations.scan_to(tokens, span.open);
    declarations.fill(tokens, span.open + 1, span.close, r.options);
    r.options.dead_scalars = dead_after_region(tokens, span.open, span.close);
    regions.push_back(std::move(r));
  }
  return regions;
}

std::vector<ScopRegion> find_c_regions(const std::string& source) {
  check_size(source);
  std::vector<ScopRegion> regions;
  for (auto& span : region_spans(source, tokenize(source))) regions.push_back(std::move(span.region));
  return regions;
}

}  // namespace pz::poly
