/* lu (PolyBench linear-algebra/solvers/lu), on a diagonally dominant matrix. */
#include <stdio.h>
#define N 37
static double A[N][N];
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) A[i][j] = (i == j) ? N + 1.0 : (double)((i * j + 1) % N) / N;
#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
      A[i][j] /= A[j][j];
    }
    for (j = i; j < N; j++)
      for (k = 0; k < i; k++)
        A[i][j] -= A[i][k] * A[k][j];
  }
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g\n", A[i][j]);
  return 0;
}
