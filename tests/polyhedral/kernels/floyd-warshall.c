/* floyd-warshall on integers (PolyBench medley/floyd-warshall): exact comparison. */
#include <stdio.h>
#define N 41
static int path[N][N];
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      path[i][j] = i * j % 7 + 1;
      if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0) path[i][j] = 999;
    }
#pragma scop
  for (k = 0; k < N; k++)
    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%d\n", path[i][j]);
  return 0;
}
