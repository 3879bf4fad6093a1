/* output_hash.h: with TK_GPU_OUTPUT_HASHES=FILE, gpu_run and ops_run append
 * one line per checked output to FILE: its name and a 64-bit FNV-1a hash of
 * its bytes. Two runs of the same PTX (a GPU and the PTX executor) are
 * then compared bit for bit (agree_gpu.sh). */
#ifndef TK_GPU_OUTPUT_HASH_H
#define TK_GPU_OUTPUT_HASH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void record_output_hash(const char *what, const void *bytes, size_t n) {
  const char *path = getenv("TK_GPU_OUTPUT_HASHES");
  if (!path || !*path) return;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ ((const unsigned char *)bytes)[i]) * 0x100000001b3ull;
  FILE *f = fopen(path, "a");
  if (!f) return;
  fprintf(f, "%s\t%016llx\n", what, (unsigned long long)h);
  fclose(f);
}

#endif
