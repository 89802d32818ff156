/* covariance (PolyBench datamining/covariance). */
#include <stdio.h>
#define M 26
#define N 32
static double data[N][M], cov[M][M], mean[M];
int main(void) {
  int i, j, k;
  double float_n = (double)N;
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) data[i][j] = ((double)i * j) / M;
#pragma scop
  for (j = 0; j < M; j++) {
    mean[j] = 0.0;
    for (i = 0; i < N; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] -= mean[j];
  for (i = 0; i < M; i++)
    for (j = i; j < M; j++) {
      cov[i][j] = 0.0;
      for (k = 0; k < N; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= (float_n - 1.0);
      cov[j][i] = cov[i][j];
    }
#pragma endscop
  for (i = 0; i < M; i++) for (j = 0; j < M; j++) printf("%.17g\n", cov[i][j]);
  return 0;
}
