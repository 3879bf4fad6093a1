// The generated loop nests LoopTune trains and is benchmarked on: matmuls
// with sizes 64..256 in steps of 16 (as in the paper), 3x3 convolutions and
// row reductions, as .tk ops with constant shapes.
#pragma once
#include "ir/Module.h"

#include <random>
#include <string>

namespace tk::looptune {

// One random op's source text (named `op_<id>`) drawn with `rng`.
std::string randomNestSource(std::mt19937 &rng, int id);

// Builds the module of `source` (aborts the program on a frontend error).
ir::Module buildNestModule(const std::string &source);

} // namespace tk::looptune
