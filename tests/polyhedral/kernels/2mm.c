/* 2mm: D = alpha*A*B*C + beta*D (PolyBench linear-algebra/kernels/2mm). */
#include <stdio.h>
#define NI 23
#define NJ 27
#define NK 19
#define NL 31
static double tmp[NI][NJ], A[NI][NK], B[NK][NJ], C[NJ][NL], D[NI][NL];
int main(void) {
  double alpha = 1.5, beta = 1.2;
  int i, j, k;
  for (i = 0; i < NI; i++) for (j = 0; j < NK; j++) A[i][j] = (double)((i * j + 1) % NI) / NI;
  for (i = 0; i < NK; i++) for (j = 0; j < NJ; j++) B[i][j] = (double)(i * (j + 1) % NJ) / NJ;
  for (i = 0; i < NJ; i++) for (j = 0; j < NL; j++) C[i][j] = (double)((i * (j + 3) + 1) % NL) / NL;
  for (i = 0; i < NI; i++) for (j = 0; j < NL; j++) D[i][j] = (double)(i * (j + 2) % NK) / NK;
#pragma scop
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++) {
      tmp[i][j] = 0.0;
      for (k = 0; k < NK; ++k)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (i = 0; i < NI; i++)
    for (j = 0; j < NL; j++) {
      D[i][j] *= beta;
      for (k = 0; k < NJ; ++k)
        D[i][j] += tmp[i][k] * C[k][j];
    }
#pragma endscop
  for (i = 0; i < NI; i++) for (j = 0; j < NL; j++) printf("%.17g\n", D[i][j]);
  return 0;
}
