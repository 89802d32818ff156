// The SCoP IR: statements with iteration domains, affine reads and writes, the initial
// (source-order) schedule, parameters and, where known, their concrete values.
//
// Every isl object here belongs to the IslContext the Scop was built with, which must
// outlive it. Domains already include the context (parameter values and assumptions), so
// every analysis downstream is specialised to concrete sizes when they are known.
#pragma once

#include <isl/cpp.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "polyhedral/ir/expr.h"

namespace pz::poly {

// The type of `name`'s elements as C spells it in the scope of the region whatever the
// declaration says: `__typeof__(A[0][0])`, one [0] per subscript (`__typeof__(x)` for a
// scalar). GCC and Clang take it in every C mode; the operand is not evaluated.
std::string typeof_element(const std::string& name, int rank);

// `declared` when not empty, else typeof_element: what a temporary of the element is declared as.
std::string spelled_type(const std::string& declared, const std::string& name, int rank);

// Whether `type` names the type itself (`double`, `unsigned long`), not a __typeof__ of
// something in the program: the analyses that need to know the type (vector lanes, packing,
// a harness of its own) work only on these.
bool is_named_type(const std::string& type);

// The bytes of one element of C type `type`: 8 for a type that is not an arithmetic type's
// name (a typedef of the source's: a double, as a rule).
int c_type_bytes(const std::string& type);

struct Array {
  std::string name;
  // As declared in the source, or spelled by typeof_element where the frontend could not
  // name it: the type every temporary of an element is declared with.
  std::string element_type = "double";
  // The type's name as the declaration spells it where the frontend could not resolve it
  // ("DATA_TYPE", "real_t"); empty where element_type names the type or nothing was declared.
  std::string type_name;
  int rank = 0;                         // 0 = scalar
  // The C text of each extent where the frontend found the declaration with `rank` of them
  // ("double A[N][N + 1]": {"N", "N + 1"}); empty when not (a pointer, the builder API).
  std::vector<std::string> declared_extents;
  // Storage the generated code declares on its stack, of the declared extents (an expanded
  // scalar or array: scalar_expansion.h).
  bool local = false;
  int element_bytes() const;
};

struct Access {
  std::string array;
  bool write = false;
  isl::map relation;  // S[iterators] -> Array[subscripts], restricted to the domain
  ExprPtr expr;       // the access as written
};

struct Statement {
  std::string name;                    // S0, S1, ... in textual order
  std::vector<std::string> iterators;  // enclosing loops, outermost first
  isl::set domain;
  ExprPtr lhs;                         // an access or a scalar name
  std::string op;                      // "=", "+=", "-=", "*=", "/=", "%=", ...
  ExprPtr rhs;
  std::vector<Access> accesses;        // the write first, then reads in source order
  SourceLoc loc;

  // The statement as C, with `rename` applied to iterators ("C[i][j] += A[i][k] * B[k][j]").
  std::string to_c(const NameMap& rename = {}) const;
};

struct Scop {
  isl::ctx ctx{nullptr};
  std::vector<std::string> params;
  std::map<std::string, long long> param_values;  // concrete sizes (a subset of params)
  // The integer #defines the arrays' declared extents use ("NI" in "double A[NI][NK]").
  std::map<std::string, long long> extent_constants;
  isl::set context;                               // parameter constraints
  std::vector<Array> arrays;
  std::vector<Statement> statements;
  isl::schedule schedule;                         // the original execution order
  // Iterators of loops whose variable was declared outside the region: after the scop they
  // hold no meaningful value (as in Pluto and PPCG, they are assumed dead).
  std::vector<std::string> outer_iterators;
  // What lowering changed before the passes ("scalar forwarding: w forwarded into A[i][j]").
  std::vector<std::string> notes;
  // Scalars the source writes and the Scop no longer mentions (scalar_forwarding.h,
  // scalar_expansion.h): dead after it, and declared by the source (the output marks them
  // used), with their types.
  std::vector<Array> removed_scalars;
  // A C condition under which the local arrays' extents hold ("" = always): where it fails,
  // the region runs as written.
  std::string local_guard;

  isl::union_set domain() const;
  isl::union_map reads() const;
  isl::union_map writes() const;
  const Array* array(const std::string& name) const;
  const Statement* statement(const std::string& name) const;
  std::string to_string() const;  // statements, domains and accesses, for reports and tests
};

// The extent of each member of `domain` when it is a constant (the member's projection has
// a fixed-size box hull); 0 when not. Members are taken one at a time, so an unbounded
// member (the batch, a size parameter) leaves the others known.
std::vector<long long> constant_extents(const isl::set& domain);

// The scop restricted to `statements` (their source order kept): a piece to compile alone.
Scop restrict_scop(const Scop& scop, const std::vector<std::string>& statements);

}  // namespace pz::poly
