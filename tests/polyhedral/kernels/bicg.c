/* bicg (PolyBench linear-algebra/kernels/bicg). */
#include <stdio.h>
#define M 39
#define N 43
static double A[N][M], s[M], q[N], p[M], r[N];
int main(void) {
  int i, j;
  for (i = 0; i < M; i++) p[i] = (double)(i % M) / M;
  for (i = 0; i < N; i++) {
    r[i] = (double)(i % N) / N;
    for (j = 0; j < M; j++) A[i][j] = (double)(i * (j + 1) % N) / N;
  }
#pragma scop
  for (i = 0; i < M; i++)
    s[i] = 0;
  for (i = 0; i < N; i++) {
    q[i] = 0.0;
    for (j = 0; j < M; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
#pragma endscop
  for (i = 0; i < M; i++) printf("%.17g\n", s[i]);
  for (i = 0; i < N; i++) printf("%.17g\n", q[i]);
  return 0;
}
