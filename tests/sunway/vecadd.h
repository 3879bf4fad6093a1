/* Parameters shared by vecadd_host.c (MPE) and vecadd_slave.c (CPE). */
#define VA_CHUNK 256 /* floats per DMA: 3 buffers x 1 KiB in LDM */
typedef struct {
  const float *a, *b;
  float *c;
  long n;
  double partial[64]; /* one sum of c per CPE, reduced on the MPE */
} vecadd_args;
