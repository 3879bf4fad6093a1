// STREAM triad (a[i] = b[i] + s * c[i]) on arrays far larger than the last
// level cache: the memory bandwidth that memory-bound kernels are compared
// with. Counts 3 x 4 bytes per element (STREAM's convention: no
// write-allocate traffic).
#pragma once

namespace tk::bench {

// Best-of-`runs` bandwidth in bytes per second with `threads` OpenMP threads.
double streamTriadBytesPerSecond(int threads, int runs);

} // namespace tk::bench
