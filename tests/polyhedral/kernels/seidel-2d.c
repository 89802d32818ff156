/* seidel-2d (PolyBench stencils/seidel-2d). */
#include <stdio.h>
#define TSTEPS 5
#define N 29
static double A[N][N];
int main(void) {
  int t, i, j;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) A[i][j] = ((double)i * (j + 2) + 2) / N;
#pragma scop
  for (t = 0; t <= TSTEPS - 1; t++)
    for (i = 1; i <= N - 2; i++)
      for (j = 1; j <= N - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                   + A[i][j - 1] + A[i][j] + A[i][j + 1]
                   + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g\n", A[i][j]);
  return 0;
}
