/* jacobi-1d (PolyBench stencils/jacobi-1d). */
#include <stdio.h>
#define TSTEPS 13
#define N 61
static double A[N], B[N];
int main(void) {
  int t, i;
  for (i = 0; i < N; i++) { A[i] = ((double)i + 2) / N; B[i] = ((double)i + 3) / N; }
#pragma scop
  for (t = 0; t < TSTEPS; t++) {
    for (i = 1; i < N - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < N - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
#pragma endscop
  for (i = 0; i < N; i++) printf("%.17g %.17g\n", A[i], B[i]);
  return 0;
}
