#include "polyhedral/ir/expr.h"

#include <cctype>

namespace pz::poly {

ExprPtr Expr::make(Kind kind, std::string text, std::vector<ExprPtr> args, SourceLoc loc) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->text = std::move(text);
  e->args = std::move(args);
  e->loc = loc;
  for (const auto& a : e->args) e->height = std::max(e->height, a->height + 1);
  return e;
}

namespace {

// C precedence, higher binds tighter; used to print the fewest parentheses that keep the
// tree's meaning.
int precedence(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kTernary: return 3;
    case Expr::Kind::kBinary: {
      const std::string& op = e.text;
      if (op == "||") return 4;
      if (op == "&&") return 5;
      if (op == "|") return 6;
      if (op == "^") return 7;
      if (op == "&") return 8;
      if (op == "==" || op == "!=") return 9;
      if (op == "<" || op == "<=" || op == ">" || op == ">=") return 10;
      if (op == "<<" || op == ">>") return 11;
      if (op == "+" || op == "-") return 12;
      return 13;  // * / %
    }
    case Expr::Kind::kUnary:
    case Expr::Kind::kCast: return 14;
    default: return 16;
  }
}

bool is_simple(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string print(const Expr& e, const NameMap& rename);

std::string wrap(const Expr& child, int min_prec, const NameMap& rename) {
  std::string s = print(child, rename);
  if (precedence(child) >= min_prec) return s;
  std::string p = "(";
  p += s;
  p += ')';
  return p;
}

std::string print(const Expr& e, const NameMap& rename) {
  switch (e.kind) {
    case Expr::Kind::kInt:
    case Expr::Kind::kFloat: return e.text;
    case Expr::Kind::kName: {
      if (rename) {
        if (auto r = rename(e.text)) {
          if (is_simple(*r)) return *r;
          std::string p = "(";
          p += *r;
          p += ')';
          return p;
        }
      }
      return e.text;
    }
    case Expr::Kind::kAccess: {
      std::string s = e.text;
      for (const auto& a : e.args) {
        s += '[';
        s += print(*a, rename);
        s += ']';
      }
      return s;
    }
    case Expr::Kind::kCall: {
      std::string s = e.text;
      s += '(';
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i) s += ", ";
        s += print(*e.args[i], rename);
      }
      s += ')';
      return s;
    }
    case Expr::Kind::kUnary: {
      std::string inner = wrap(*e.args[0], 14, rename);
      // "- -x" must not print as "--x".
      if (!inner.empty() && (inner[0] == e.text[0]) && (e.text == "-" || e.text == "+")) inner = "(" + inner + ")";
      return e.text + inner;
    }
    case Expr::Kind::kCast: return "(" + e.text + ")" + wrap(*e.args[0], 14, rename);
    case Expr::Kind::kBinary: {
      int p = precedence(e);
      // Left-associative: the right operand needs parentheses at equal precedence.
      return wrap(*e.args[0], p, rename) + " " + e.text + " " + wrap(*e.args[1], p + 1, rename);
    }
    case Expr::Kind::kTernary:
      return wrap(*e.args[0], 4, rename) + " ? " + wrap(*e.args[1], 3, rename) + " : " +
             wrap(*e.args[2], 3, rename);
  }
  return "";
}

}  // namespace

std::string to_c(const Expr& e, const NameMap& rename) { return print(e, rename); }

void visit(const ExprPtr& e, const std::function<void(const ExprPtr&)>& fn) {
  fn(e);
  for (const auto& a : e->args) visit(a, fn);
}

std::string describe(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kInt: return "integer literal";
    case Expr::Kind::kFloat: return "floating-point literal '" + e.text + "'";
    case Expr::Kind::kName: return "variable '" + e.text + "'";
    case Expr::Kind::kAccess: return "array access '" + e.text + "[...]'";
    case Expr::Kind::kCall: return "call to '" + e.text + "'";
    case Expr::Kind::kUnary: return "operator '" + e.text + "'";
    case Expr::Kind::kBinary: return "operator '" + e.text + "'";
    case Expr::Kind::kTernary: return "conditional operator '?:'";
    case Expr::Kind::kCast: return "cast to '" + e.text + "'";
  }
  return "expression";
}

size_t find_token(const std::string& text, const std::string& token, size_t from) {
  if (token.empty()) return std::string::npos;
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(token, from); at != std::string::npos; at = text.find(token, at + 1)) {
    const bool before = at > 0 && ident(text[at - 1]) && ident(token.front());
    const bool after = at + token.size() < text.size() && ident(text[at + token.size()]) && ident(token.back());
    if (!before && !after) return at;
  }
  return std::string::npos;
}

bool mentions(const std::string& text, const std::string& name) { return find_token(text, name) != std::string::npos; }

}  // namespace pz::poly
