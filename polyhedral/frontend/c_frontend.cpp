#include "polyhedral/frontend/c_frontend.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <map>
#include <optional>
#include <regex>

#include "polyhedral/frontend/c_lexer.h"
#include "polyhedral/frontend/c_parser.h"
#include "polyhedral/frontend/frontend_error.h"

namespace pz::poly {

namespace {

bool is_pragma(const Token& t, const char* word) {
  static const std::regex scop(R"(^#\s*pragma\s+scop\s*$)"), endscop(R"(^#\s*pragma\s+endscop\s*$)");
  if (t.kind != Token::Kind::kDirective) return false;
  return std::regex_match(t.text, std::string(word) == "scop" ? scop : endscop);
}

bool is_type_keyword(const std::string& word) {
  return word == "float" || word == "double" || word == "int" || word == "long" || word == "char" || word == "short" ||
         word == "unsigned" || word == "signed" || word == "_Bool";
}

// Words of a declaration's specifiers that leave the type its elements are read as
// unchanged (C11 6.7.1 storage classes, 6.7.3 qualifiers, 6.7.4 function specifiers).
bool is_qualifier(const std::string& word) {
  static const std::set<std::string> kWords = {"static",   "extern",     "register",    "auto",     "const",
                                               "volatile", "restrict",   "__restrict",  "__restrict__", "inline",
                                               "__inline", "__inline__", "_Thread_local", "__thread"};
  return kWords.count(word) > 0;
}

// Keywords that begin statements or expressions: never a type's name.
bool is_statement_keyword(const std::string& word) {
  static const std::set<std::string> kWords = {"return", "goto", "case",  "default", "else",  "do",      "if",
                                               "while",  "for",  "switch", "break",  "sizeof", "continue"};
  return kWords.count(word) > 0;
}

// The element type of every declared name and the value of every integer #define, from the
// tokens scanned so far (latest wins). One pass over the file: each region continues where
// the previous one stopped.
//
// A name gets a type only from a declaration whose specifiers are all C's arithmetic type
// keywords (C11 6.7.2: "unsigned long", "long double"), qualifiers and storage classes
// dropped. A declaration whose type is a name polyc cannot resolve (a typedef, a macro such
// as PolyBench's DATA_TYPE, a struct) gives each name it declares the empty type, "not
// known": lowering spells it `__typeof__(A[0][0])` (builder.h), never a guess. Names inside
// a macro's arguments there (`DATA_TYPE POLYBENCH_2D(C, N, N, n, n)`) count as declared.
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
        end_declaration();
        continue;
      }
      if (t.kind == Token::Kind::kPunct) {
        punctuation(t.text);
        continue;
      }
      if (t.kind == Token::Kind::kIdent && !in_initializer_) identifier(tokens, next_);
    }
  }

  // The entries for the names tokens [begin, end) use: a region needs no more, and a copy
  // of everything per region would grow with regions x declarations.
  void fill(const std::vector<Token>& tokens, size_t begin, size_t end, LowerOptions& options) const {
    for (size_t i = begin; i < end; ++i) {
      if (tokens[i].kind != Token::Kind::kIdent) continue;
      const std::string& name = tokens[i].text;
      const auto type = types_.find(name);
      options.element_types.emplace(name, type != types_.end() ? type->second : "");  // "": not known
      if (auto spelled = type_names_.find(name); spelled != type_names_.end()) options.type_names.emplace(*spelled);
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

  void end_declaration() {
    specifiers_.reset();
    declaration_.reset();
    in_initializer_ = false;
    initializer_braces_ = 0;
  }

  void punctuation(const std::string& p) {
    if (p == "(") ++parens_;
    if (p == ")") parens_ = std::max(0, parens_ - 1);
    if (p == "{") ++braces_;
    if (p == "}") braces_ = std::max(0, braces_ - 1);
    if (in_initializer_ && (p == "{" || p == "}")) {
      initializer_braces_ += p == "{" ? 1 : -1;
      if (initializer_braces_ >= 0) return;
    }
    if (p == ";" || p == "{" || p == "}") return end_declaration();
    // A `(` or `*` may stand between the specifiers and the name: `double (*A)[N]`.
    if (specifiers_ && p != "(" && p != "*") specifiers_.reset();
    if (!declaration_) return;
    if (parens_ < declaration_->parens) return end_declaration();  // a parameter's `)`
    const bool own_level = parens_ == declaration_->parens && initializer_braces_ == 0;
    if (p == "=" && own_level) in_initializer_ = true;
    if (p == "," && own_level) in_initializer_ = false;
  }

  // Where a typedef's name may begin a declaration: a statement's start, or a parameter's
  // (`(` or `,` outside function bodies).
  static bool declaration_may_begin_after(const Token& before, int braces) {
    if (before.kind == Token::Kind::kDirective) return true;
    if (before.kind != Token::Kind::kPunct) return false;
    const std::string& p = before.text;
    return p == ";" || p == "{" || p == "}" || (braces == 0 && (p == "(" || p == ","));
  }

  void identifier(const std::vector<Token>& tokens, size_t at) {
    const std::string& word = tokens[at].text;
    const Token* after = at + 1 < tokens.size() ? &tokens[at + 1] : nullptr;
    const std::string next = after ? after->text : "";
    const bool keyword = is_type_keyword(word);
    if (keyword || is_qualifier(word) || word == "typedef" || word == "struct" || word == "union" || word == "enum") {
      add_specifier(word, keyword || is_qualifier(word));
      return;
    }
    const bool declarator = next == "[" || next == "," || next == ";" || next == "=" || next == ")";
    if (!declarator) {
      // A type's name: `DATA_TYPE alpha`, `const real x`, `my_t *p`.
      const bool names_type = after && (after->kind == Token::Kind::kIdent || next == "*") && !is_statement_keyword(word);
      if (names_type && (specifiers_ || at == 0 || declaration_may_begin_after(tokens[at - 1], braces_)))
        add_specifier(word, false);
      return;
    }
    if (specifiers_) {
      declaration_ = Declaration{specifiers_->known ? specifiers_->type : "", specifiers_->known ? "" : specifiers_->name,
                                 specifiers_->parens};
      specifiers_.reset();
      declare(word, tokens, at);
    } else if (declaration_ && parens_ == declaration_->parens && after_comma(tokens, at)) {
      declare(word, tokens, at);  // `double a, *b`
    } else if (declaration_ && declaration_->type.empty() && parens_ > declaration_->parens) {
      types_[word] = "";  // an argument of the macro that declares it
      set_type_name(word);
    }
  }

  void set_type_name(const std::string& name) {
    if (declaration_->name.empty()) type_names_.erase(name);
    else type_names_[name] = declaration_->name;
  }

  // Whether a `,` comes before the declarator name at `at`, past its `*`s and qualifiers.
  static bool after_comma(const std::vector<Token>& tokens, size_t at) {
    while (at > 0 && (tokens[at - 1].text == "*" || is_qualifier(tokens[at - 1].text))) --at;
    return at > 0 && tokens[at - 1].text == ",";
  }

  // A specifier inside parentheses the pending ones stand outside of begins a parameter's.
  void add_specifier(const std::string& word, bool known) {
    if (!specifiers_ || specifiers_->parens != parens_) specifiers_ = Specifiers{"", "", true, parens_};
    specifiers_->known = specifiers_->known && known;
    if (is_type_keyword(word)) specifiers_->type += (specifiers_->type.empty() ? "" : " ") + word;
    if (!is_qualifier(word)) specifiers_->name += (specifiers_->name.empty() ? "" : " ") + word;
  }

  void declare(const std::string& name, const std::vector<Token>& tokens, size_t at) {
    types_[name] = declaration_->type;
    set_type_name(name);
    if (parens_ == declaration_->parens) extents_[name] = bracketed_extents(tokens, at + 1);
  }

  // The specifiers of a declaration being read: their type keywords in order, every word
  // but the qualifiers in order (`name`: "DATA_TYPE", "struct cell"), and whether all of
  // them are keywords (`known`). `parens` is the nesting they stand at.
  struct Specifiers {
    std::string type;
    std::string name;
    bool known = true;
    int parens = 0;
  };
  // The declaration whose names are being read: their type ("" = not known), and the name
  // of an unknown one as spelled.
  struct Declaration {
    std::string type;
    std::string name;
    int parens = 0;
  };

  size_t next_ = 0;
  int parens_ = 0, braces_ = 0;
  std::optional<Specifiers> specifiers_;
  std::optional<Declaration> declaration_;
  bool in_initializer_ = false;
  int initializer_braces_ = 0;
  std::map<std::string, std::string> types_;
  std::map<std::string, std::string> type_names_;  // where types_ is "": the type's name as spelled
  std::map<std::string, long long> defines_;
  std::map<std::string, std::vector<std::string>> extents_;
};

// Whether tokens[at] is a typedef's name beginning a declaration in a function body: at a
// statement's start and followed by the declared name (`real t;`). Two names in a row
// are never an expression statement.
bool begins_typedef_declaration(const std::vector<Token>& tokens, size_t at) {
  if (at == 0 || at + 1 >= tokens.size() || tokens[at + 1].kind != Token::Kind::kIdent) return false;
  if (is_statement_keyword(tokens[at].text) || is_qualifier(tokens[at].text)) return false;
  const std::string& before = tokens[at - 1].text;
  return before == ";" || before == "{" || before == "}";
}

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
    if (is_type_keyword(t.text) || begins_typedef_declaration(tokens, i)) {
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
