#ifndef RACE_H
#define RACE_H
#define RACE_ROW 16
typedef struct {
  int *out;    /* 64 rows of RACE_ROW ints */
  int overlap; /* 1: each CPE's first put runs one element into the next row */
} race_args;
#endif
