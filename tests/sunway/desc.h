/* Parameters shared by desc_host.c (MPE) and desc_slave.c (CPE). */
#define DESC_ROWS 64
#define DESC_COLS 40
typedef struct {
  const float *in; /* DESC_ROWS x DESC_COLS, row-major */
  float *out;      /* 2 * in */
  float colsum[64]; /* CPE k: the sum of column k % DESC_COLS */
} desc_args;
