// What a parallel loop over the CPEs uses from outside it: the variables
// (symbols, scalar parameters, lets and loops of the MPE code) and the
// main-memory tensors. They become the fields of the argument struct the
// MPE passes to athread_spawn.
#pragma once
#include "ir/LoopIR.h"

#include <string>
#include <vector>

namespace tk::sunway {

struct FreeValues {
  struct Var {
    std::string name;
    ir::ScalarType type;
  };
  std::vector<Var> vars;                 // in order of first use
  std::vector<ir::TensorPtr> tensors;    // in order of first use
};

// The free values of `loop`'s body (its own variable is the CPE id, bound).
FreeValues freeValues(const ir::LStmt &loop);

} // namespace tk::sunway
