/* Frontend coverage: decreasing and strided loops, min/max/floord bounds, affine ifs with
   else, / and % in subscripts, scalars, int arithmetic, casts and math calls. */
#include <math.h>
#include <stdio.h>
#define N 40
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
static double A[N][N], x[N];
static int hist[N];
int main(void) {
  int i, j;
  double acc = 0.0;
  for (i = 0; i < N; i++) { x[i] = (double)i / N; hist[i] = i % 3; for (j = 0; j < N; j++) A[i][j] = (double)(i + 2 * j) / N; }
#pragma scop
  for (i = N - 1; i >= 0; i--)
    for (j = max(0, i - 5); j <= min(N - 1, i + 5); j += 2) {
      if (i + j < N && (i >= 3 || j > 10))
        A[i][j] = A[i][j] * 0.5 + sqrt(x[j]) + (float)i;
      else
        A[i][j] -= fabs(x[i] - 0.25);
    }
  for (i = 0; i < N / 2; i++) {
    x[2 * i] += A[i][i % 7] * 0.125;
    hist[i / 2] += (i * 3) % 5 + hist[N - 1 - i];
  }
  for (i = 0; i <= floord(N - 1, 3); i++)
    acc += x[3 * i];
  x[0] = acc;
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g\n", A[i][j]);
  for (i = 0; i < N; i++) printf("%.17g %d\n", x[i], hist[i]);
  return 0;
}
