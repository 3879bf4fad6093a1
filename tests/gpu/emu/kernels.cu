// Hand-written CUDA C kernels for the PTX executor's tests (driver_api_run.c).
// Compiled at build time with `nvcc -ptx -arch=sm_80 -O3`: the executor must
// run PTX as nvcc writes it, not only as tkc does. Every kernel is
// extern "C" so that cuModuleGetFunction finds it by its plain name.

// y[i] = a * x[i] + y[i] with a grid-stride loop (any grid covers any n).
extern "C" __global__ void saxpy_grid_stride(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// *out += sum(x[0..n)). blockDim.x must be a power of two >= 64 and <= 1024.
// Each thread accumulates a grid-stride slice, the block reduces in shared
// memory down to one warp, the warp finishes with shuffles, lane 0 adds the
// block's sum atomically.
extern "C" __global__ void reduce_sum(const float* x, float* out, int n) {
  __shared__ float s[1024];
  const unsigned tid = threadIdx.x;
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    v += x[i];
  s[tid] = v;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half >= 32; half >>= 1) {
    if (tid < half)
      s[tid] += s[tid + half];
    __syncthreads();
  }
  if (tid < 32) {
    v = s[tid];
    for (int offset = 16; offset > 0; offset >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, offset);
    if (tid == 0)
      atomicAdd(out, v);
  }
}

// out (cols x rows) = transpose of in (rows x cols), row-major. Block 32x8,
// grid (ceil(cols/32), ceil(rows/32)); each block moves one 32x32 tile
// through shared memory, 4 rows per thread; partial edge tiles are guarded.
#define TILE 32
#define BLOCK_ROWS 8
template <int PITCH>
__device__ __forceinline__ void transpose_tile(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TILE][PITCH];
  int x = blockIdx.x * TILE + threadIdx.x; // column of in
  int y = blockIdx.y * TILE + threadIdx.y; // row of in
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x; // column of out (= row of in)
  y = blockIdx.x * TILE + threadIdx.y; // row of out (= column of in)
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (x < rows && y + j < cols)
      out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Padded tile (pitch 33): the column reads hit 32 different banks.
extern "C" __global__ void transpose_padded(const float* in, float* out, int rows, int cols) {
  transpose_tile<TILE + 1>(in, out, rows, cols);
}

// Unpadded tile (pitch 32): the column reads are 32-way bank conflicts.
extern "C" __global__ void transpose_unpadded(const float* in, float* out, int rows, int cols) {
  transpose_tile<TILE>(in, out, rows, cols);
}

// Broken on purpose: out[blockIdx.x] = sum of the block's slice of x, by a
// shared-memory tree, but the __syncthreads() between filling s[] and the
// first step of the tree is missing, so thread t reads s[t + blockDim.x/2],
// written by a thread of another warp, with no barrier in between. The
// executor must report a shared-memory race. blockDim.x: a power of two >= 64.
extern "C" __global__ void reduce_missing_sync(const float* x, float* out, int n) {
  __shared__ float s[1024];
  const unsigned tid = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < n ? x[i] : 0.0f;
  // __syncthreads();  <- missing
  for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
    if (tid < half)
      s[tid] += s[tid + half];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = s[0];
}

// Broken on purpose: the guard is i <= n, so the thread with i == n reads
// in[n] and writes out[n], one element past both allocations.
extern "C" __global__ void copy_off_by_one(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n)
    out[i] = in[i];
}

// out[i] = in[i]: the 32 lanes of a warp read 128 contiguous bytes (4
// sectors), a global load efficiency of 1.0.
extern "C" __global__ void copy_coalesced(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

// out[i] = in[i * 32] (in holds 32 * n floats): each lane reads 4 bytes of
// its own 32-byte sector, a load efficiency of 4/32 = 1/8; the stores are
// coalesced.
extern "C" __global__ void copy_stride32(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[(size_t)i * 32];
}

// Block 32x32, one 32x32 tile of in per block (in and out hold
// gridDim.x * 1024 floats). The tile is written by rows (lane = column,
// conflict-free) and read by columns: lane l reads tile[l][ty], word
// l * PITCH + ty. PITCH 32 puts all 32 lanes in one bank (32-way conflict);
// PITCH 33 spreads them over the 32 banks (no conflict). out = transpose of
// each tile, so the reads are live.
template <int PITCH>
__device__ __forceinline__ void tile_column_read(const float* in, float* out) {
  __shared__ float tile[32][PITCH];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const size_t base = (size_t)blockIdx.x * 1024;
  tile[ty][tx] = in[base + ty * 32 + tx];
  __syncthreads();
  out[base + ty * 32 + tx] = tile[tx][ty];
}

extern "C" __global__ void tile_column_read32(const float* in, float* out) {
  tile_column_read<32>(in, out);
}

extern "C" __global__ void tile_column_read33(const float* in, float* out) {
  tile_column_read<33>(in, out);
}
