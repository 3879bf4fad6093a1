// DatasetTasks: the tasks tk_dataset measures — contraction ops (matmul,
// bmm, and transposed, f64 and shared-operand forms) at
// model-layer shapes (BERT-base, ResNet-50's classifier, square) and random
// shapes with primes, each small enough that its slowest candidates still
// time in tens of milliseconds.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tk::bench {

struct DatasetTask {
  std::string op;                       // matmul, matmul_nt, matmul_tn, matmul_f64, bmm, bmm_shared
  std::map<std::string, int64_t> shape; // every shape symbol of the op
  std::string origin;                   // "bert-qkv", "square", "random", ..
  double flops() const;
};

// The .tk text of the task's op with its sizes written as constants. The
// constructed kernel then keeps only the version the shape takes (a
// symbolic matmul compiles to six versions, 133 KB of text in 1.25 s; at
// constant sizes to one, 19 KB in 0.23 s), which is what makes tens of
// thousands of candidates measurable; the version timed is the one the
// symbolic kernel runs at that shape.
std::string datasetOpSource(const DatasetTask &t);

// `count` tasks: the named shapes first, then random ones drawn from
// `seed` (log-uniform sizes in 2 .. 1536, a third of them primes), at most
// 2.2 GFLOP each. The same arguments give the same list.
std::vector<DatasetTask> datasetTasks(size_t count, uint64_t seed);

} // namespace tk::bench
