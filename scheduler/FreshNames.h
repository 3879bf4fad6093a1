// FreshNames: names for the loop variables and buffers a constructor adds
// to a kernel, or a pass to a loop-IR function, none of them already used
// by the op, its statement or the function.
#pragma once
#include "ir/LoopIR.h"
#include "ir/TensorIR.h"

#include <set>
#include <string>

namespace tk {

class FreshNames {
public:
  // Reserves the op's symbols, parameters and outputs, the statement's
  // index variables and every reduction variable in its value.
  FreshNames(const ir::Op &op, const ir::Assign &a);
  // Reserves the op's symbols, parameters, outputs and intermediates and
  // every statement's index and reduction variables.
  explicit FreshNames(const ir::Op &op);
  // Reserves the op's symbols, parameters and outputs and every loop or
  // let variable, buffer and variable reference in the function's body.
  explicit FreshNames(const ir::LoweredFunc &f);
  // `base`, or `base_1`, `base_2`, ... : the first name not used yet, which
  // is then reserved too.
  std::string operator()(const std::string &base);

private:
  std::set<std::string> used_;
};

} // namespace tk
