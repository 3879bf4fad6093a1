/* Broadcast DMA test (BCAST_MODE gets, as athread programs use them: an
 * array-wide barrier, one CPE issues the get with a row mask and waits for
 * its reply, another barrier, then the receivers read).
 *   1. CPE 0 broadcasts N floats of `src` to every CPE (mask 0xff) into an
 *      ldm_malloc block; each CPE writes the block's sum + its id to sums[id].
 *   2. CPE 9 broadcasts a strided box of `grid` (ROWS rows of W floats, a
 *      row every COLS) to rows 1 and 3 (mask 0x0a) into a __thread_local
 *      array that every CPE filled with -1 first; each CPE copies it to
 *      seen[id], so the host checks who got it and who did not.
 *   3. The first CPE of each row r broadcasts W floats of `src` from r * W
 *      to its own row (mask 1 << r, a row broadcast) into a __thread_local
 *      array; each CPE copies it to line[id].
 *   4. (`bcast stack`) a broadcast into a CPE's stack, which the emulator
 *      cannot place in the other CPEs: it stops with a message. */
#define N 1000
#define ROWS 5
#define W 7
#define COLS 19
typedef struct {
  float *src, *grid;
  float *sums;              /* 64 */
  float *seen;              /* 64 x ROWS*W */
  float *line;              /* 64 x W */
  int stack;                /* 4. with `stack`: CPE 0 broadcasts into a stack array, which must abort */
} bcast_args;
