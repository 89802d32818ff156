// Reductions: loops that carry a dependence only through an associative update
// (`s[j] += r[i] * A[i][j]`, bicg's i loop) run in parallel with OpenMP's reduction clause,
// each thread summing into a private copy that is combined at the end.
//
// A statement is a reduction on X when it is `X op= e` or `X = X op e` (`X = e op X` for
// + and *) with op one of + - *, and e does not touch X. A loop may be parallelised with
// reductions on a set of such X when, below it, every access to each X is one of these
// updates with the same operator, and the loop carries no dependence once those accesses
// are left out (each thread's private copy stands in for them). Floating-point sums are
// then added in another order: results agree within rounding, not bit for bit.
//
// The clause names scalars directly and one-dimensional arrays by the section the loop
// touches (`y[0:4200]`); that section must have constant bounds (concrete sizes) and at
// most 256 KiB (each thread's private copy lives on its stack), and arrays of higher rank
// are not handled.
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <string>
#include <vector>

#include "polyhedral/ir/scop.h"

namespace pz::poly {

struct Reduction {
  std::string array;
  char op = '+';  // '+' (also for -) or '*'
};

// `X op= e`, `X = X op e` or `X = e op X` (+ and * only): the operator and e.
struct Update {
  char op = '+';
  const Expr* operand = nullptr;
};
std::optional<Update> update_form(const Statement& statement);

// An update whose e does not touch X at all.
std::optional<Reduction> statement_reduction(const Statement& statement);

// Whether `statement`'s update may be summed in another order: its element's type is a
// floating one (reordering changes rounding only), or no part of e may be floating (integer
// sums). An integer element updated by a floating value (`I[i] += F[i][k]`) is converted back
// at every step, truncating toward zero, so no reordering keeps its value: refused. An
// element whose type is unknown (typeof_element) is reordered only where every part of e is
// an integer or of the type name its own declaration spells (Array::type_name): `DATA_TYPE`
// by `DATA_TYPE` is one type, whatever it is; `acc_t` by `real_t`, a call or a floating
// constant may be an int updated by a float.
bool update_may_be_reordered(const Statement& statement, const Scop& scop);

// Scalar replacement of an innermost loop (cholesky's and lu's dot products,
// `A[i][j] -= A[i][k] * A[j][k]` along k). The statements below `band` that may sum into a
// scalar along member `pos`: updates of one element that stays the same along the loop,
// which no iteration of one run of the loop reads otherwise. A loop of such a statement
// alone may then keep the element in a scalar, vectorised as `omp simd reduction` (the sum
// in another order: equal within rounding), and store it once.
std::vector<std::string> accumulating_statements(const isl::schedule_node& band, int pos, const Scop& scop);

// The OpenMP clause ("reduction(+:y[0:4200]) reduction(+:sum)") under which the loop of
// `band`'s first member is parallel, or nullopt when reductions do not make it so.
std::optional<std::string> reduction_clause(const isl::schedule_node& band, const Scop& scop);

}  // namespace pz::poly
