// SweepFamilies: the op families tk_construct_sweep times against oneDNN —
// what tkc compiles for each (a stdlib op, or bench/ops' depthwise
// convolution), the model layer shapes (ResNet-50, MobileNet-V2, BERT-base)
// and random shapes it draws, and how it calls both sides on the same
// inputs.
#pragma once
#include "bench/Baselines.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tk::bench {

// Values of an op's symbols and integer scalars, in the order printed.
using Shape = std::vector<std::pair<std::string, int64_t>>;

int64_t shapeValue(const Shape &s, const std::string &name);
std::string shapeText(const Shape &s);

// One shape, ready to run: inputs filled, both sides callable, `got` and
// `want` the outputs they write. Not movable once prepared (the callables
// hold pointers into it).
struct PreparedCase {
  double work = 0;     // floating-point operations, or bytes when memoryBound
  bool memoryBound = false;
  std::function<int()> tkc; // the tkc kernel; its status
  Run dnnl;
  std::vector<std::vector<float>> inputs;
  std::vector<float> got, want;
  // Integer cases (int8 products) use these instead, compared exactly.
  std::vector<std::vector<int8_t>> bytes;
  std::vector<int32_t> gotInt, wantInt;
};

struct SweepFamily {
  std::string name;
  std::string source; // .tk text: imports and the export
  std::string symbol; // the exported function
  std::vector<std::pair<std::string, Shape>> named; // model layers, with their names
  // A random shape; `small` keeps every size tiny (the correctness check).
  std::function<Shape(std::mt19937_64 &, bool small)> random;
  // Fills `c` for `s`, `fn` being the loaded symbol.
  std::function<void(const Shape &s, void *fn, PreparedCase &c)> prepare;
};

// Every family, matmul and conv2d first (the original 50-shape sweep's).
// `benchOps` is bench/ops (for its depthwise convolution).
std::vector<SweepFamily> sweepFamilies(const std::string &benchOps);

} // namespace tk::bench
