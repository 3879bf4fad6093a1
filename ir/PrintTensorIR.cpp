// Text form of the tensor IR (`--emit=tensor`): the op signature, its
// symbols, constraints and intermediates, then one line per statement with
// the range of every index variable spelled out.
#include "ir/PrintTypes.h"
#include "ir/TensorIR.h"

#include <sstream>

namespace tk::ir {

std::string printOp(const Op &op) {
  std::ostringstream os;
  os << "op " << op.name << '(';
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const Param &p = op.inputs[i];
    os << (i ? ", " : "") << p.name << ": "
       << (p.isScalar() ? std::string(scalarTypeName(p.type)) : printTensorType(*p.tensor));
  }
  os << ") -> (";
  for (size_t i = 0; i < op.outputs.size(); ++i)
    os << (i ? ", " : "") << op.outputs[i]->name << ": " << printTensorType(*op.outputs[i]);
  os << ")\n";
  if (!op.symbols.empty()) {
    os << "  symbols ";
    for (size_t i = 0; i < op.symbols.size(); ++i) os << (i ? ", " : "") << op.symbols[i];
    os << '\n';
  }
  for (const Constraint &c : op.where) os << "  where " << printExpr(c.cond) << '\n';
  for (const TensorPtr &t : op.intermediates) os << "  intermediate " << t->name << ": " << printTensorType(*t) << '\n';
  os << "{\n";
  for (const Assign &a : op.body) {
    os << "  " << a.target->name << '[';
    for (size_t i = 0; i < a.vars.size(); ++i)
      os << (i ? ", " : "") << a.vars[i].name << " < " << printExpr(a.vars[i].extent);
    os << "] = " << printExpr(a.value) << ";\n";
  }
  os << "}\n";
  return os.str();
}

} // namespace tk::ir
