#include "ir/Module.h"

namespace tk::ir {

OpPtr Module::findOp(std::string_view name) const {
  for (const OpPtr &op : ops)
    if (op->name == name) return op;
  return nullptr;
}

} // namespace tk::ir
