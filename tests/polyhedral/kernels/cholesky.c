/* cholesky (PolyBench linear-algebra/solvers/cholesky), on a diagonally dominant matrix. */
#include <math.h>
#include <stdio.h>
#define N 35
static double A[N][N];
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) A[i][j] = (i == j) ? 2.0 * N : 1.0 / (1 + i + j);
#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    for (k = 0; k < i; k++)
      A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = sqrt(A[i][i]);
  }
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j <= i; j++) printf("%.17g\n", A[i][j]);
  return 0;
}
