/* gemm: C = alpha*A*B + beta*C (PolyBench 4.2 linear-algebra/blas/gemm). */
#include <stdio.h>

#define NI 37
#define NJ 41
#define NK 29

static double A[NI][NK], B[NK][NJ], C[NI][NJ];

static void init(double *alpha, double *beta) {
  *alpha = 1.5;
  *beta = 1.2;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) C[i][j] = (double)((i * j + 1) % NI) / NI;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NK; j++) A[i][j] = (double)(i * (j + 1) % NK) / NK;
  for (int i = 0; i < NK; i++)
    for (int j = 0; j < NJ; j++) B[i][j] = (double)(i * (j + 2) % NJ) / NJ;
}

static void kernel(double alpha, double beta) {
  int i, j, k;
#pragma scop
  for (i = 0; i < NI; i++) {
    for (j = 0; j < NJ; j++)
      C[i][j] *= beta;
    for (k = 0; k < NK; k++)
      for (j = 0; j < NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
}

int main(void) {
  double alpha, beta;
  init(&alpha, &beta);
  kernel(alpha, beta);
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) printf("%.17g\n", C[i][j]);
  return 0;
}
