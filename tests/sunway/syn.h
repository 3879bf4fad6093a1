#define SYN_ROUNDS 200
typedef struct {
  int val[3][2][64]; /* [scope][round parity][cpe] */
  int errors[64];
} syn_args;
