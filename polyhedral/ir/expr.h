// Expressions of the C subset: statement bodies, loop bounds, conditions and subscripts.
//
// One tree serves both frontends (the C parser and the builder API, which parses its
// strings with the same parser) and code generation, which prints bodies back with the
// original iterators replaced by expressions of the new loops. Nodes are immutable and
// shared.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pz::poly {

struct SourceLoc {
  int line = 0;    // 1-based; 0 = unknown (built programmatically)
  int column = 0;  // 1-based
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  enum class Kind {
    kInt,      // text: the literal as written (123, 0x1f, 10L)
    kFloat,    // text: as written (1.5, 2.0f, 1e-3)
    kName,     // text: identifier
    kAccess,   // text: array name; args: subscripts (outermost first)
    kCall,     // text: function name; args
    kUnary,    // text: "-", "+", "!", "~"
    kBinary,   // text: operator; args: lhs, rhs
    kTernary,  // args: cond, then, else
    kCast,     // text: type; args: operand
  };
  Kind kind;
  std::string text;
  std::vector<ExprPtr> args;
  SourceLoc loc;
  int height = 1;  // 1 + the tallest operand's height (passes over expressions recurse this deep)

  static ExprPtr make(Kind kind, std::string text, std::vector<ExprPtr> args = {}, SourceLoc loc = {});
};

// Prints `e` as C. `rename` may replace a name (an iterator) by text, which is printed in
// parentheses when it is not a plain name or number.
using NameMap = std::function<std::optional<std::string>(const std::string&)>;
std::string to_c(const Expr& e, const NameMap& rename = {});

// Calls `fn` on every node, parents before children.
void visit(const ExprPtr& e, const std::function<void(const ExprPtr&)>& fn);

// A human-readable name for the construct at the root of `e` ("call to 'foo'", "'&&'").
std::string describe(const Expr& e);

// Where `token` (a name or an access such as "C[c0][c1]") occurs in the C text `text` not as
// part of a longer identifier, from `from` on; npos when it does not (or `token` is empty).
size_t find_token(const std::string& text, const std::string& token, size_t from = 0);

// Whether the C text `text` uses the name `name` (a whole identifier).
bool mentions(const std::string& text, const std::string& name);

}  // namespace pz::poly
