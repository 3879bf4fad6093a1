/* races.h (internal to the emulator): two CPEs writing the same main-memory
 * bytes by athread_put in one spawn, between the same two array-wide
 * barriers, is a race: on the chip which write lands last is not defined. */
#ifndef TK_ATHREAD_RACES_H
#define TK_ATHREAD_RACES_H
#include <stddef.h>

/* Records that CPE `cpe` wrote [mem, mem + len) in barrier phase `phase`,
 * in blocks of `bsize` bytes with `gap` bytes skipped between blocks
 * (gap 0: one contiguous range). Called by the CPE's own thread. */
void tk_races_record(int cpe, unsigned phase, const unsigned char *mem, size_t len, size_t gap, size_t bsize);
/* After a spawn: reports the first overlap between ranges of different
 * CPEs in the same phase (returns 1 after printing it to stderr, else 0)
 * and forgets every range. */
int tk_races_check(void);

#endif
