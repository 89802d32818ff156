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

#include "polyhedral/scop.h"

namespace pz::poly {

struct Reduction {
  std::string array;
  char op = '+';  // '+' (also for -) or '*'
};

std::optional<Reduction> statement_reduction(const Statement& statement);

// The OpenMP clause ("reduction(+:y[0:4200]) reduction(+:sum)") under which the loop of
// `band`'s first member is parallel, or nullopt when reductions do not make it so.
std::optional<std::string> reduction_clause(const isl::schedule_node& band, const Scop& scop);

}  // namespace pz::poly
