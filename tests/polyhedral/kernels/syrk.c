/* syrk: C = alpha*A*A^T + beta*C, lower triangle (PolyBench linear-algebra/blas/syrk). */
#include <stdio.h>
#define N 33
#define M 21
static double A[N][M], C[N][N];
int main(void) {
  double alpha = 1.5, beta = 1.2;
  int i, j, k;
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) A[i][j] = (double)((i * j + 1) % N) / N;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) C[i][j] = (double)((i * j + 2) % M) / M;
#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < M; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g\n", C[i][j]);
  return 0;
}
