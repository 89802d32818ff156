/* trmm: B = alpha*A^T*B with A unit lower triangular (PolyBench linear-algebra/blas/trmm). */
#include <stdio.h>
#define M 23
#define N 31
static double A[M][M], B[M][N];
int main(void) {
  double alpha = 1.5;
  int i, j, k;
  for (i = 0; i < M; i++) {
    for (j = 0; j < i; j++) A[i][j] = (double)((i + j) % M) / M;
    A[i][i] = 1.0;
    for (j = 0; j < N; j++) B[i][j] = (double)((N + (i - j)) % N) / N;
  }
#pragma scop
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      for (k = i + 1; k < M; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
#pragma endscop
  for (i = 0; i < M; i++) for (j = 0; j < N; j++) printf("%.17g\n", B[i][j]);
  return 0;
}
