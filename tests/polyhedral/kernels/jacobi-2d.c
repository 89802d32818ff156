/* jacobi-2d (PolyBench stencils/jacobi-2d). */
#include <stdio.h>
#define TSTEPS 7
#define N 33
static double A[N][N], B[N][N];
int main(void) {
  int t, i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) { A[i][j] = ((double)i * (j + 2) + 2) / N; B[i][j] = ((double)i * (j + 3) + 3) / N; }
#pragma scop
  for (t = 0; t < TSTEPS; t++) {
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < N - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < N - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
  }
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g\n", A[i][j]);
  return 0;
}
