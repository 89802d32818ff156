// Helpers for tests of rewrites that must keep a program's results bit for bit (scalar
// forwarding, scalar expansion): polyc's options without reassociation, its pass log, and
// the comparison of a program's output with polyc's version of it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "polyhedral/polyc.h"
#include "tests/polyhedral/compile_run.h"

namespace pz::poly::test_support {

inline PolycOptions exact_polyc() {
  PolycOptions o;
  o.parallel = o.vectorize = true;
  o.reassociate = false;  // every sum in the source's order: outputs compare bit for bit
  o.data_movement = false;
  return o;
}

// Every scop's pass log, one line each.
inline std::string passes_of(const PolycResult& r) {
  std::string out;
  for (const auto& s : r.scops)
    for (const auto& p : s.passes) out += p + "\n";
  return out;
}

// `source` and polyc's `r.output` of it, compiled (warnings are errors) and run on two
// threads, print the same; `name` names the work directory and binaries.
inline void expect_same_output(const std::string& name, const std::string& source, const PolycResult& r) {
  Workdir dir("exact_" + name);
  const std::string flags = "-O2 -march=native -ffp-contract=off -fopenmp -Wall -Wextra -Werror -Wno-unknown-pragmas";
  auto original = compile_and_run(dir.path(), name + "_orig", source, flags);
  auto transformed = compile_and_run(dir.path(), name + "_out", r.output, flags);
  ASSERT_TRUE(original.ok) << original.error;
  ASSERT_TRUE(transformed.ok) << transformed.error << "\n" << r.output;
  EXPECT_EQ(original.output, transformed.output) << r.output;
}

}  // namespace pz::poly::test_support
