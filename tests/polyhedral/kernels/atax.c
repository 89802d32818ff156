/* atax: y = A^T (A x) (PolyBench linear-algebra/kernels/atax). */
#include <stdio.h>
#define M 38
#define N 42
static double A[M][N], x[N], y[N], tmp[M];
int main(void) {
  int i, j;
  for (i = 0; i < N; i++) x[i] = 1 + (i / (double)N);
  for (i = 0; i < M; i++) for (j = 0; j < N; j++) A[i][j] = (double)((i + j) % N) / (5 * M);
#pragma scop
  for (i = 0; i < N; i++)
    y[i] = 0;
  for (i = 0; i < M; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < N; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < N; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
#pragma endscop
  for (i = 0; i < N; i++) printf("%.17g\n", y[i]);
  return 0;
}
