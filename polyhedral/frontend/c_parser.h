// Parser for the statements of a scop region (the C subset of c_frontend.h) into a loop
// tree, and for standalone expressions (the builder API uses the same grammar). Everything
// outside the subset throws FrontendError with the line, the column and the construct.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "polyhedral/frontend/c_lexer.h"
#include "polyhedral/ir/loop_tree.h"

namespace pz::poly {

// Parses tokens [begin, end) as a sequence of statements into a block node.
std::unique_ptr<LoopNode> parse_statements(const std::vector<Token>& tokens, size_t begin, size_t end);

ExprPtr parse_c_expression(std::string_view text);
// An expression as written (an array's declared extent), evaluated with `names`: integers,
// names, + - * / % and parentheses; nullopt for anything else, an unknown name, a division
// by zero or text that does not parse.
std::optional<long long> evaluate(const Expr& e, const std::map<std::string, long long>& names);
std::optional<long long> evaluate_text(const std::string& text, const std::map<std::string, long long>& names = {});
// One assignment ("C[i][j] += A[i][k] * B[k][j]"; a trailing ';' is optional).
std::unique_ptr<LoopNode> parse_c_assignment(std::string_view text);

bool is_type_keyword(const std::string& word);

}  // namespace pz::poly
