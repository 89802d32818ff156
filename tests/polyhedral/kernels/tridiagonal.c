/* Tridiagonal solves (the Thomas algorithm) along every column, then along every row, of
   a grid: each sweep is a recurrence along one index and independent along the other, as
   in an alternating-direction implicit step. 70 columns: one full strip of 64 chains and a
   partial one. */
#include <stdio.h>
#define T 3
#define N 70
static double U[N][N], V[N][N], C[N][N], D[N][N];
int main(void) {
  int t, i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) U[i][j] = ((double)(i * 7 + j * 3) + 1) / N;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < N - 1; i++) {
      C[i][0] = 0.0;
      D[i][0] = 1.0;
      for (j = 1; j < N - 1; j++) {
        C[i][j] = 0.25 / (2.0 - 0.5 * C[i][j - 1]);
        D[i][j] = (U[j][i] + 0.5 * D[i][j - 1]) / (2.0 - 0.5 * C[i][j - 1]);
      }
      V[N - 1][i] = 1.0;
      for (j = N - 2; j >= 1; j--)
        V[j][i] = C[i][j] * V[j + 1][i] + D[i][j];
    }
    for (i = 1; i < N - 1; i++) {
      U[i][N - 1] = 1.0;
      for (j = N - 2; j >= 1; j--)
        U[i][j] = 0.5 * U[i][j + 1] + V[i][j] - 0.25 * V[i - 1][j];
    }
  }
#pragma endscop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) printf("%.17g\n", U[i][j]);
  return 0;
}
