/* 3mm: G = (A*B)*(C*D) (PolyBench linear-algebra/kernels/3mm). */
#include <stdio.h>
#define NI 18
#define NJ 22
#define NK 20
#define NL 24
#define NM 26
static double E[NI][NJ], A[NI][NK], B[NK][NJ], F[NJ][NL], C[NJ][NM], D[NM][NL], G[NI][NL];
int main(void) {
  for (int i = 0; i < NI; i++) for (int j = 0; j < NK; j++) A[i][j] = (double)((i * j + 1) % NI) / (5 * NI);
  for (int i = 0; i < NK; i++) for (int j = 0; j < NJ; j++) B[i][j] = (double)((i * (j + 1) + 2) % NJ) / (5 * NJ);
  for (int i = 0; i < NJ; i++) for (int j = 0; j < NM; j++) C[i][j] = (double)(i * (j + 3) % NL) / (5 * NL);
  for (int i = 0; i < NM; i++) for (int j = 0; j < NL; j++) D[i][j] = (double)((i * (j + 2) + 2) % NK) / (5 * NK);
#pragma scop
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      E[i][j] = 0.0;
      for (int k = 0; k < NK; ++k) E[i][j] += A[i][k] * B[k][j];
    }
  for (int i = 0; i < NJ; i++)
    for (int j = 0; j < NL; j++) {
      F[i][j] = 0.0;
      for (int k = 0; k < NM; ++k) F[i][j] += C[i][k] * D[k][j];
    }
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NL; j++) {
      G[i][j] = 0.0;
      for (int k = 0; k < NJ; ++k) G[i][j] += E[i][k] * F[k][j];
    }
#pragma endscop
  for (int i = 0; i < NI; i++) for (int j = 0; j < NL; j++) printf("%.17g\n", G[i][j]);
  return 0;
}
