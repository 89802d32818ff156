/* mvt (PolyBench linear-algebra/kernels/mvt). */
#include <stdio.h>
#define N 51
static double x1[N], x2[N], y_1[N], y_2[N], A[N][N];
int main(void) {
  int i, j;
  for (i = 0; i < N; i++) {
    x1[i] = (double)(i % N) / N; x2[i] = (double)((i + 1) % N) / N;
    y_1[i] = (double)((i + 3) % N) / N; y_2[i] = (double)((i + 4) % N) / N;
    for (j = 0; j < N; j++) A[i][j] = (double)(i * j % N) / N;
  }
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      x1[i] = x1[i] + A[i][j] * y_1[j];
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      x2[i] = x2[i] + A[j][i] * y_2[j];
#pragma endscop
  for (i = 0; i < N; i++) printf("%.17g %.17g\n", x1[i], x2[i]);
  return 0;
}
