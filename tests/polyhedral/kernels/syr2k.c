/* syr2k (PolyBench linear-algebra/blas/syr2k). */
#include <stdio.h>
#define N 29
#define M 17
static double A[N][M], B[N][M], C[N][N];
int main(void) {
  double alpha = 1.5, beta = 1.2;
  int i, j, k;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      A[i][j] = (double)((i * j + 1) % N) / N;
      B[i][j] = (double)((i * j + 2) % M) / M;
    }
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) C[i][j] = (double)((i * j + 3) % N) / M;
#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < M; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
  }
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g\n", C[i][j]);
  return 0;
}
