// PolyBench's doitgen as a test program: its kernel over globals, the arrays' extents
// #defines (NR x NQ x NP) and the loop bounds the kernel's arguments. Each row A[r][q] is
// multiplied by C4 through `sum` and written back. `rest` (helpers and `main`) is the
// test's own.
#pragma once

#include <string>

namespace pz::poly::test_support {

inline std::string doitgen_source(int nr, int nq, int np, const std::string& rest) {
  return "#include <stdio.h>\n#define NR " + std::to_string(nr) + "\n#define NQ " + std::to_string(nq) + "\n#define NP " +
         std::to_string(np) + "\n" + R"(static double A[NR][NQ][NP], C4[NP][NP], sum[NP];
static void kernel(int nr, int nq, int np) {
  int r, q, p, s;
#pragma scop
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}
)" + rest;
}

}  // namespace pz::poly::test_support
