// Module: everything one compilation sees — ops and kernels from the main
// file and its imports — plus what the main file exports.
#pragma once
#include "ir/MappingIR.h"

namespace tk::ir {

struct Export {
  std::string symbol; // C symbol name
  OpPtr op;
  KernelPtr kernel;   // null: use the default schedule of `op`
  SourceLoc loc;
};

struct Module {
  std::vector<OpPtr> ops;
  std::vector<KernelPtr> kernels;
  std::vector<Export> exports;
  OpPtr findOp(std::string_view name) const;
};

} // namespace tk::ir
