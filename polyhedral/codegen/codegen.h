// Code generation: isl's AST builder turns the schedule into loops; our emitter prints them
// as C (valid C++ too) with the statements' bodies re-instantiated at the new iterators and
// the OpenMP marks as pragmas. No macros and no helpers: min, max and floor division are
// printed inline, so the output drops into the original file as it is.
#pragma once

#include <isl/cpp.h>

#include <string>

#include "polyhedral/ir/scop.h"
#include "polyhedral/transform/register_blocking.h"

namespace pz::poly {

struct CodegenOptions {
  std::string indent;              // prefix of every line
  std::string iterator_type = "int";
  bool openmp = true;              // print the marks as pragmas
  // Below kRegisterBlockMark, this block of one array lives in a local array (pz_rb) that
  // the statements read and update instead of memory (register_blocking.h).
  const RegisterBlock* register_block = nullptr;
};

// A block `{ ... }` executing `scop` in the order of `schedule`.
std::string generate_c(const Scop& scop, const isl::schedule& schedule, const CodegenOptions& options);

}  // namespace pz::poly
