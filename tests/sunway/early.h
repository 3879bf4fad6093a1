#ifndef EARLY_H
#define EARLY_H
#define EARLY_CHUNK 32
typedef struct {
  const float *in; /* 64 chunks of EARLY_CHUNK floats */
  float sum[64];
  int early_ok[64]; /* the sum read before waiting matched */
} early_args;
#endif
