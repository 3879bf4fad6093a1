/* tkrt_check_writes: the report of `tkc --check-mappings`
 * (scheduler/cpu/InstrumentMappingChecks.h). The generated code records who
 * stored each element of an output in a side buffer and calls this at
 * function exit; it lists the elements never written and those two workers
 * of one parallel loop both wrote (a data race) on stderr, and returns the
 * status the function then returns. */
#include "tkrt.h"

#include <inttypes.h>
#include <stdio.h>

/* The library builds with hidden visibility; exported symbols say so. */
#define TKRT_API __attribute__((visibility("default")))

/* At most this many elements are listed per output (then a count). */
enum { kListed = 10 };

static void print_element(const char *tensor, int64_t rank, const int64_t *shape, int64_t flat) {
  int64_t idx[16];
  int64_t r = rank < 16 ? rank : 16;
  for (int64_t d = rank; d-- > 0;) {
    int64_t extent = shape[d] > 0 ? shape[d] : 1;
    if (d < r) idx[d] = flat % extent;
    flat /= extent;
  }
  fprintf(stderr, "tk: --check-mappings: %s[", tensor);
  for (int64_t d = 0; d < r; ++d) fprintf(stderr, d ? ", %" PRId64 : "%" PRId64, idx[d]);
  fprintf(stderr, "%s]", rank > r ? ", ..." : "");
}

TKRT_API int32_t tkrt_check_writes(const char *tensor, int64_t rank, const int64_t *shape, const int64_t *writes) {
  int64_t n = 1;
  for (int64_t d = 0; d < rank; ++d) n *= shape[d] > 0 ? shape[d] : 0;
  const int64_t *races = writes + n;
  int64_t unwritten = 0, raced = 0;
  for (int64_t e = 0; e < n; ++e) {
    if (writes[e] != 0 && races[e] == 0) continue;
    if (writes[e] == 0) ++unwritten;
    else ++raced;
    if (unwritten + raced > kListed) continue;
    print_element(tensor, rank, shape, e);
    if (writes[e] == 0) fprintf(stderr, " is never written\n");
    else
      fprintf(stderr, " is written by workers %" PRId64 " and %" PRId64 " of one parallel loop\n",
              (writes[e] & 0xffffffff) - 2, races[e] - 2);
  }
  if (unwritten + raced == 0) return 0;
  fprintf(stderr,
          "tk: --check-mappings: %" PRId64 " of %" PRId64 " elements of %s are never written (%" PRId64
          ") or written by two workers at once (%" PRId64 ")\n",
          unwritten + raced, n, tensor, unwritten, raced);
  return TKRT_STATUS_MAPPING_CHECK_FAILED;
}
