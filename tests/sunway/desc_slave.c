/* The descriptor interface, as programs written for the athread library use
 * it: set up a descriptor once (op, mode, size, reply; block size and step
 * for a strided transfer), then dma(desc, mem, ldm) and dma_wait. CPE k
 * doubles row k (one descriptor declared `= 0`, one left uninitialised) and
 * sums column k % DESC_COLS through a strided get. */
#include <slave.h>
#include "desc.h"

void desc(void *p) {
  desc_args *arg = p;
  int k = _MYID;
  float row[DESC_COLS], col[DESC_ROWS];
  volatile int get_reply = 0, put_reply = 0, col_reply = 0;
  dma_desc get_row = 0, put_row, get_col;

  dma_set_op(&get_row, DMA_GET);
  dma_set_mode(&get_row, PE_MODE);
  dma_set_size(&get_row, DESC_COLS * sizeof(float));
  dma_set_reply(&get_row, &get_reply);
  dma(get_row, (long)(arg->in + k * DESC_COLS), (long)row);
  dma_wait(&get_reply, 1);

  for (int j = 0; j < DESC_COLS; ++j) row[j] *= 2.0f;
  dma_set_op(&put_row, DMA_PUT);
  dma_set_mode(&put_row, PE_MODE);
  dma_set_size(&put_row, DESC_COLS * sizeof(float));
  dma_set_reply(&put_row, &put_reply);
  dma(put_row, (long)(arg->out + k * DESC_COLS), (long)row);
  dma_wait(&put_reply, 1);

  /* One float per row: blocks of 4 bytes, DESC_COLS - 1 floats skipped. */
  dma_set_op(&get_col, DMA_GET);
  dma_set_mode(&get_col, PE_MODE);
  dma_set_size(&get_col, DESC_ROWS * sizeof(float));
  dma_set_bsize(&get_col, sizeof(float));
  dma_set_stepsize(&get_col, (DESC_COLS - 1) * sizeof(float));
  dma_set_reply(&get_col, &col_reply);
  dma(get_col, (long)(arg->in + k % DESC_COLS), (long)col);
  dma_wait(&col_reply, 1);
  float s = 0;
  for (int i = 0; i < DESC_ROWS; ++i) s += col[i];
  arg->colsum[k] = s;
}
