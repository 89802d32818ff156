#include "polyhedral/frontend/c_parser.h"

#include <set>

#include "polyhedral/frontend/frontend_error.h"

namespace pz::poly {

bool is_type_keyword(const std::string& w) {
  static const std::set<std::string> kTypes = {"float", "double", "int",    "long",     "short", "char",
                                               "unsigned", "signed", "const", "_Bool", "size_t", "static",
                                               "register", "volatile", "int64_t", "int32_t", "uint64_t", "uint32_t"};
  return kTypes.count(w) > 0;
}

namespace {

using K = Token::Kind;

// Nesting the parser and the passes after it accept: deeper statements or expressions are a
// located error rather than a stack overflow (they recurse once per level).
constexpr int kMaxNesting = 256;

class Parser {
 public:
  Parser(const std::vector<Token>& t, size_t begin, size_t end) : t_(t), pos_(begin), end_(end) {}

  std::unique_ptr<LoopNode> statements() {
    auto block = std::make_unique<LoopNode>();
    block->kind = LoopNode::Kind::kBlock;
    block->loc = peek().loc;
    while (!at_end()) add(*block, statement());
    return block;
  }

  ExprPtr whole_expression() {
    ExprPtr e = expression();
    if (!at_end()) unexpected("end of expression");
    return e;
  }

  std::unique_ptr<LoopNode> whole_assignment() {
    auto s = assignment();
    if (!at_end() && peek().text == ";") ++pos_;
    if (!at_end()) unexpected("end of statement");
    return s;
  }

 private:
  const Token& peek(size_t ahead = 0) const {
    size_t p = pos_ + ahead;
    return p < end_ ? t_[p] : end_token();
  }
  const Token& end_token() const {
    static Token e{K::kEnd, "", {}, 0, 0};
    if (end_ < t_.size()) return t_[end_];
    return t_.empty() ? e : t_.back();
  }
  bool at_end() const { return pos_ >= end_ || t_[pos_].kind == K::kEnd; }
  bool is(const char* text) const { return !at_end() && peek().kind != K::kString && peek().text == text; }
  const Token& next() {
    if (at_end()) throw FrontendError(end_token().loc, "unexpected end of the scop region");
    return t_[pos_++];
  }
  void expect(const char* text, const char* what) {
    if (!is(text)) unexpected(std::string("'") + text + "' " + what);
    ++pos_;
  }
  [[noreturn]] void unexpected(const std::string& wanted) const {
    if (at_end()) throw FrontendError(end_token().loc, "expected " + wanted + " before the end of the scop region");
    throw FrontendError(peek().loc, "expected " + wanted + ", found '" + peek().text + "'");
  }
  [[noreturn]] static void unsupported(const Token& at, const std::string& construct) {
    throw FrontendError(at.loc, "unsupported construct: " + construct);
  }

  static void add(LoopNode& block, std::unique_ptr<LoopNode> child) {
    if (child) block.children.push_back(std::move(child));
  }

  // Counts one level of recursion for as long as it lives.
  struct Level {
    int& depth;
    Level(int& d, const Token& at, const char* what) : depth(d) {
      if (++depth > kMaxNesting) {
        --depth;
        throw FrontendError(at.loc, std::string(what) + " nested more than " + std::to_string(kMaxNesting) + " levels deep");
      }
    }
    ~Level() { --depth; }
  };

  static ExprPtr checked(ExprPtr e) {
    if (e->height > kMaxNesting) {
      throw FrontendError(e->loc, "expression nested more than " + std::to_string(kMaxNesting) + " levels deep");
    }
    return e;
  }

  std::unique_ptr<LoopNode> statement() {
    const Token& t = peek();
    const Level level(depth_, t, "statements");
    if (t.kind == K::kDirective) unsupported(t, "preprocessor directive '" + t.text + "' inside the scop");
    if (t.kind == K::kPunct && t.text == ";") {
      ++pos_;
      return nullptr;
    }
    if (t.kind == K::kPunct && t.text == "{") {
      ++pos_;
      auto block = std::make_unique<LoopNode>();
      block->kind = LoopNode::Kind::kBlock;
      block->loc = t.loc;
      while (!is("}")) {
        if (at_end()) throw FrontendError(t.loc, "unterminated block '{' in the scop");
        add(*block, statement());
      }
      ++pos_;
      return block;
    }
    if (t.kind == K::kIdent) {
      if (t.text == "for") return for_loop();
      if (t.text == "if") return if_statement();
      if (t.text == "while") unsupported(t, "'while' loop (only 'for' loops with affine bounds)");
      if (t.text == "do") unsupported(t, "'do' loop (only 'for' loops with affine bounds)");
      if (t.text == "switch") unsupported(t, "'switch' statement");
      if (t.text == "goto") unsupported(t, "'goto' statement");
      if (t.text == "break" || t.text == "continue") unsupported(t, "'" + t.text + "' statement");
      if (t.text == "return") unsupported(t, "'return' statement");
      if (t.text == "else") throw FrontendError(t.loc, "'else' without 'if'");
      if (is_type_keyword(t.text) || t.text == "struct" || t.text == "typedef")
        unsupported(t, "declaration inside the scop (declare variables before '#pragma scop')");
    }
    auto s = assignment();
    if (!is(";")) unexpected("';' after the statement");
    ++pos_;
    return s;
  }

  std::unique_ptr<LoopNode> for_loop() {
    const Token& kw = next();
    auto node = std::make_unique<LoopNode>();
    node->kind = LoopNode::Kind::kFor;
    node->loc = kw.loc;
    expect("(", "after 'for'");
    if (!at_end() && peek().kind == K::kIdent && is_type_keyword(peek().text)) {
      while (!at_end() && peek().kind == K::kIdent && is_type_keyword(peek().text)) ++pos_;
      node->declares_iterator = true;
    }
    if (at_end() || peek().kind != K::kIdent || peek(1).text != "=")
      unsupported(at_end() ? end_token() : peek(), "for-loop initialisation (expected 'iterator = expression')");
    node->iterator = next().text;
    ++pos_;  // '='
    node->init = expression();
    if (is(",")) unsupported(peek(), "comma operator in a for-loop header");
    expect(";", "after the for-loop initialisation");
    if (is(";")) unsupported(peek(), "for loop without a condition");
    node->cond = expression();
    expect(";", "after the for-loop condition");
    const Token& step_at = peek();
    node->step = increment(node->iterator);
    check_step_ends(*node, step_at);
    expect(")", "closing the for-loop header");
    node->children.push_back(body_statement());
    return node;
  }

  // +1 when `cond` bounds `it` from above (it < e, it <= e, e > it, …: the loop ends by
  // counting up), -1 from below, 0 when it says neither (or both, in a conjunction).
  static int bound_direction(const Expr& cond, const std::string& it) {
    if (cond.kind != Expr::Kind::kBinary || cond.args.size() != 2) return 0;
    if (cond.text == "&&") {
      const int a = bound_direction(*cond.args[0], it), b = bound_direction(*cond.args[1], it);
      return a == 0 ? b : b == 0 || a == b ? a : 0;
    }
    const bool upper = cond.text == "<" || cond.text == "<=";
    if (!upper && cond.text != ">" && cond.text != ">=") return 0;
    const auto is_it = [&](const Expr& e) { return e.kind == Expr::Kind::kName && e.text == it; };
    if (is_it(*cond.args[0])) return upper ? 1 : -1;
    if (is_it(*cond.args[1])) return upper ? -1 : 1;
    return 0;
  }

  // A loop whose step is 0, or moves its iterator away from the bound its condition sets,
  // never ends (or ends by overflow): refused, naming the line.
  static void check_step_ends(const LoopNode& loop, const Token& at) {
    if (loop.step == 0) unsupported(at, "loop step 0 ('" + loop.iterator + "' never changes, so the loop never ends)");
    const int direction = bound_direction(*loop.cond, loop.iterator);
    if (direction != 0 && (direction > 0) != (loop.step > 0)) {
      unsupported(at, "loop step " + std::to_string(loop.step) + ": the condition bounds '" + loop.iterator + "' from " +
                          (direction > 0 ? "above" : "below") + " and the step moves it away, so the loop never ends");
    }
  }

  // i++, ++i, i--, --i, i += c, i -= c, i = i + c, i = i - c (c an integer literal).
  long long increment(const std::string& it) {
    const Token& start = peek();
    auto literal = [&]() -> long long {
      if (at_end() || peek().kind != K::kInt) unsupported(start, "loop increment (the step must be an integer constant)");
      return std::stoll(next().text, nullptr, 0);
    };
    auto want_iterator = [&]() {
      if (at_end() || peek().text != it)
        unsupported(start, "loop increment that does not update the iterator '" + it + "'");
      ++pos_;
    };
    if (is("++") || is("--")) {
      bool up = next().text == "++";
      want_iterator();
      return up ? 1 : -1;
    }
    want_iterator();
    if (is("++") || is("--")) return next().text == "++" ? 1 : -1;
    if (is("+=") || is("-=")) {
      bool up = next().text == "+=";
      long long c = literal();
      return up ? c : -c;
    }
    if (is("=")) {
      ++pos_;
      want_iterator();
      if (is("+") || is("-")) {
        bool up = next().text == "+";
        long long c = literal();
        return up ? c : -c;
      }
    }
    unsupported(start, "loop increment (expected i++, i--, i += c or i -= c)");
  }

  std::unique_ptr<LoopNode> body_statement() {
    auto body = statement();
    if (!body) {
      body = std::make_unique<LoopNode>();
      body->kind = LoopNode::Kind::kBlock;
    }
    return body;
  }

  std::unique_ptr<LoopNode> if_statement() {
    const Token& kw = next();
    auto node = std::make_unique<LoopNode>();
    node->kind = LoopNode::Kind::kIf;
    node->loc = kw.loc;
    expect("(", "after 'if'");
    node->cond = expression();
    expect(")", "closing the if condition");
    node->children.push_back(body_statement());
    if (is("else")) {
      ++pos_;
      node->else_children.push_back(body_statement());
    }
    return node;
  }

  std::unique_ptr<LoopNode> assignment() {
    const Token& start = peek();
    auto node = std::make_unique<LoopNode>();
    node->kind = LoopNode::Kind::kStmt;
    node->loc = start.loc;
    if (is("++") || is("--")) {
      std::string op = next().text == "++" ? "+=" : "-=";
      node->lhs = lvalue();
      node->op = op;
      node->rhs = Expr::make(Expr::Kind::kInt, "1", {}, start.loc);
      return node;
    }
    ExprPtr target = unary();
    if (target->kind == Expr::Kind::kCall)
      unsupported(start, "function call statement '" + target->text + "(...)' (calls are allowed inside expressions only)");
    if (target->kind != Expr::Kind::kName && target->kind != Expr::Kind::kAccess)
      unsupported(start, "expression statement (expected an assignment to a variable or an array element)");
    node->lhs = target;
    if (is("++") || is("--")) {
      node->op = next().text == "++" ? "+=" : "-=";
      node->rhs = Expr::make(Expr::Kind::kInt, "1", {}, start.loc);
      return node;
    }
    static const std::set<std::string> kOps = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    if (at_end() || peek().kind != K::kPunct || !kOps.count(peek().text)) unexpected("an assignment operator");
    node->op = next().text;
    if (node->op != "=") {
      node->rhs = expression();
      return node;
    }
    // `a = b = e` is `b = e; a = b;`: a receives b's value after its conversion to b's type,
    // as C defines the value of an assignment. Only plain `=` chains.
    std::vector<ExprPtr> targets = {target};
    ExprPtr value = ternary();
    while (is("=") && (value->kind == Expr::Kind::kName || value->kind == Expr::Kind::kAccess)) {
      ++pos_;
      targets.push_back(value);
      value = ternary();
    }
    if (is(",")) unsupported(peek(), "comma operator");
    if (is("++") || is("--")) unsupported(peek(), "'" + peek().text + "' inside an expression");
    if (!at_end() && peek().kind == K::kPunct && peek().text != ";" && peek().text != ")" &&
        peek().text.size() >= 2 && peek().text.back() == '=' && binary_precedence(peek()) < 0 && peek().text != "==" &&
        peek().text != "!=")
      unsupported(peek(), "compound assignment inside a chained assignment");
    if (is("=")) unsupported(peek(), "assignment to something that is not a variable or an array element");
    if (targets.size() == 1) {
      node->rhs = value;
      return node;
    }
    auto block = std::make_unique<LoopNode>();
    block->kind = LoopNode::Kind::kBlock;
    block->loc = start.loc;
    for (size_t k = targets.size(); k-- > 0;) {
      auto s = std::make_unique<LoopNode>();
      s->kind = LoopNode::Kind::kStmt;
      s->loc = start.loc;
      s->lhs = targets[k];
      s->op = "=";
      s->rhs = k + 1 == targets.size() ? value : targets[k + 1];
      block->children.push_back(std::move(s));
    }
    return block;
  }

  ExprPtr lvalue() {
    const Token& start = peek();
    ExprPtr e = unary();
    if (e->kind != Expr::Kind::kName && e->kind != Expr::Kind::kAccess)
      unsupported(start, "increment of something that is not a variable or an array element");
    return e;
  }

  // Precedence climbing over C's binary operators.
  static int binary_precedence(const Token& t) {
    if (t.kind != K::kPunct) return -1;
    const std::string& op = t.text;
    if (op == "||") return 4;
    if (op == "&&") return 5;
    if (op == "|") return 6;
    if (op == "^") return 7;
    if (op == "&") return 8;
    if (op == "==" || op == "!=") return 9;
    if (op == "<" || op == "<=" || op == ">" || op == ">=") return 10;
    if (op == "<<" || op == ">>") return 11;
    if (op == "+" || op == "-") return 12;
    if (op == "*" || op == "/" || op == "%") return 13;
    return -1;
  }

  ExprPtr expression() {
    ExprPtr e = ternary();
    if (is(",")) unsupported(peek(), "comma operator");
    if (is("++") || is("--")) unsupported(peek(), "'" + peek().text + "' inside an expression");
    if (!at_end() && peek().kind == K::kPunct &&
        (peek().text == "=" || (peek().text.size() >= 2 && peek().text.back() == '=' && binary_precedence(peek()) < 0 &&
                                peek().text != "==" && peek().text != "!=")))
      unsupported(peek(), "assignment inside an expression");
    return e;
  }

  ExprPtr ternary() {
    ExprPtr c = binary(4);
    if (!is("?")) return c;
    const Token& q = next();
    ExprPtr a = expression();
    expect(":", "in a conditional expression");
    ExprPtr b = ternary();
    return Expr::make(Expr::Kind::kTernary, "?:", {c, a, b}, q.loc);
  }

  ExprPtr binary(int min_prec) {
    ExprPtr lhs = unary();
    while (true) {
      const Token& op = peek();
      int p = at_end() ? -1 : binary_precedence(op);
      if (p < min_prec) return lhs;
      ++pos_;
      ExprPtr rhs = binary(p + 1);
      // Errors about a binary expression point at its first character.
      SourceLoc start = lhs->loc;
      lhs = checked(Expr::make(Expr::Kind::kBinary, op.text, {lhs, rhs}, start));
    }
  }

  ExprPtr unary() {
    const Token& t = peek();
    if (at_end()) unexpected("an expression");
    const Level level(depth_, t, "expression");
    if (t.kind == K::kPunct) {
      if (t.text == "-" || t.text == "+" || t.text == "!" || t.text == "~") {
        ++pos_;
        return Expr::make(Expr::Kind::kUnary, t.text, {unary()}, t.loc);
      }
      if (t.text == "++" || t.text == "--") unsupported(t, "'" + t.text + "' inside an expression");
      if (t.text == "&") unsupported(t, "address-of operator '&'");
      if (t.text == "*") unsupported(t, "pointer dereference '*'");
      if (t.text == "(" && peek(1).kind == K::kIdent && is_type_keyword(peek(1).text)) {
        ++pos_;
        std::string type;
        while (!at_end() && peek().kind == K::kIdent && is_type_keyword(peek().text))
          type += (type.empty() ? "" : " ") + next().text;
        if (is("*")) unsupported(peek(), "pointer cast");
        expect(")", "closing the cast");
        return Expr::make(Expr::Kind::kCast, type, {unary()}, t.loc);
      }
      // `(NAME) operand` with a name and then a name or a number can only be a cast to a type
      // this frontend cannot resolve (a typedef, PolyBench's DATA_TYPE): `(n) m` is no
      // expression. `(NAME)(x)` and `(NAME) -x` stay parenthesised names (a call, a difference).
      if (t.text == "(" && peek(1).kind == K::kIdent && peek(2).kind == K::kPunct && peek(2).text == ")" &&
          (peek(3).kind == K::kIdent || peek(3).kind == K::kInt || peek(3).kind == K::kFloat) &&
          peek(3).text != "sizeof") {
        const std::string type = peek(1).text;
        pos_ += 3;
        return Expr::make(Expr::Kind::kCast, type, {unary()}, t.loc);
      }
    }
    return postfix();
  }

  ExprPtr postfix() {
    const Token& t = peek();
    ExprPtr e;
    if (t.kind == K::kIdent) {
      if (t.text == "sizeof") unsupported(t, "'sizeof'");
      static const std::set<std::string> kKeywords = {"while", "for", "if", "else", "do", "return", "break",
                                                      "continue", "switch", "case", "goto", "struct", "typedef"};
      if (kKeywords.count(t.text)) throw FrontendError(t.loc, "expected an expression, found keyword '" + t.text + "'");
      ++pos_;
      if (is("(")) {
        ++pos_;
        std::vector<ExprPtr> args;
        if (!is(")")) {
          args.push_back(ternary());
          while (is(",")) {
            ++pos_;
            args.push_back(ternary());
          }
        }
        expect(")", "closing the call");
        e = Expr::make(Expr::Kind::kCall, t.text, std::move(args), t.loc);
      } else if (is("[")) {
        std::vector<ExprPtr> subs;
        while (is("[")) {
          ++pos_;
          subs.push_back(expression());
          expect("]", "closing the subscript");
        }
        e = Expr::make(Expr::Kind::kAccess, t.text, std::move(subs), t.loc);
      } else {
        e = Expr::make(Expr::Kind::kName, t.text, {}, t.loc);
      }
    } else if (t.kind == K::kInt) {
      ++pos_;
      e = Expr::make(Expr::Kind::kInt, t.text, {}, t.loc);
    } else if (t.kind == K::kFloat) {
      ++pos_;
      e = Expr::make(Expr::Kind::kFloat, t.text, {}, t.loc);
    } else if (t.kind == K::kString) {
      unsupported(t, "string literal");
    } else if (t.kind == K::kChar) {
      ++pos_;
      e = Expr::make(Expr::Kind::kInt, t.text, {}, t.loc);
    } else if (t.kind == K::kPunct && t.text == "(") {
      ++pos_;
      e = expression();
      expect(")", "closing the parenthesis");
    } else {
      unexpected("an expression");
    }
    if (is("[")) unsupported(peek(), "subscript of something that is not an array name");
    if (is(".") || is("->")) unsupported(peek(), "member access '" + peek().text + "'");
    if (is("++") || is("--")) {
      // Only a statement of its own may increment (handled by assignment()).
      return e;
    }
    return e;
  }

  const std::vector<Token>& t_;
  size_t pos_, end_;
  int depth_ = 0;  // statements and expressions being parsed, one inside the other
};

}  // namespace

std::unique_ptr<LoopNode> parse_statements(const std::vector<Token>& tokens, size_t begin, size_t end) {
  return Parser(tokens, begin, end).statements();
}

ExprPtr parse_c_expression(std::string_view text) {
  auto tokens = tokenize(text);
  return Parser(tokens, 0, tokens.size() - 1).whole_expression();
}

std::unique_ptr<LoopNode> parse_c_assignment(std::string_view text) {
  auto tokens = tokenize(text);
  return Parser(tokens, 0, tokens.size() - 1).whole_assignment();
}

std::optional<long long> evaluate(const Expr& e, const std::map<std::string, long long>& names) {
  switch (e.kind) {
    case Expr::Kind::kInt:
      try {
        return std::stoll(e.text, nullptr, 0);
      } catch (const std::exception&) {
        return std::nullopt;
      }
    case Expr::Kind::kName:
      if (auto it = names.find(e.text); it != names.end()) return it->second;
      return std::nullopt;
    case Expr::Kind::kUnary: {
      auto v = evaluate(*e.args[0], names);
      if (!v || (e.text != "-" && e.text != "+")) return std::nullopt;
      return e.text == "-" ? -*v : *v;
    }
    case Expr::Kind::kBinary: {
      auto a = evaluate(*e.args[0], names), b = evaluate(*e.args[1], names);
      if (!a || !b) return std::nullopt;
      if (e.text == "+") return *a + *b;
      if (e.text == "-") return *a - *b;
      if (e.text == "*") return *a * *b;
      if ((e.text == "/" || e.text == "%") && *b != 0) return e.text == "/" ? *a / *b : *a % *b;
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

std::optional<long long> evaluate_text(const std::string& text, const std::map<std::string, long long>& names) {
  try {
    return evaluate(*parse_c_expression(text), names);
  } catch (const FrontendError&) {
    return std::nullopt;
  }
}

}  // namespace pz::poly
