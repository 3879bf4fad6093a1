/* Strided DMA test: A is ROWS x COLS row-major; CPE p owns the column block
 * [p*W, p*W + W). It gets the block with bsize = W floats and a gap of
 * COLS - W floats, writes the block transposed to AT (rows p*W.. of a
 * COLS x ROWS matrix, contiguous), and puts 2*block + p back into A with the
 * same stride. Columns past 64*W are nobody's and must stay untouched. */
#define ROWS 37
#define W 6
#define COLS (64 * W + 5)
typedef struct { float *a, *at; } strided_args;
