/* gemver (PolyBench linear-algebra/blas/gemver). */
#include <stdio.h>
#define N 47
static double A[N][N], u1[N], v1[N], u2[N], v2[N], w[N], x[N], y[N], z[N];
int main(void) {
  double alpha = 1.5, beta = 1.2;
  int i, j;
  double fn = (double)N;
  for (i = 0; i < N; i++) {
    u1[i] = i; u2[i] = ((i + 1) / fn) / 2.0; v1[i] = ((i + 1) / fn) / 4.0; v2[i] = ((i + 1) / fn) / 6.0;
    y[i] = ((i + 1) / fn) / 8.0; z[i] = ((i + 1) / fn) / 9.0; x[i] = 0.0; w[i] = 0.0;
    for (j = 0; j < N; j++) A[i][j] = (double)(i * j % N) / N;
  }
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];
  for (i = 0; i < N; i++)
    x[i] = x[i] + z[i];
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
#pragma endscop
  for (i = 0; i < N; i++) printf("%.17g\n", w[i]);
  return 0;
}
