#include "backends/sunway/FreeValues.h"

#include "ir/IRVisitor.h"

#include <algorithm>

namespace tk::sunway {

namespace {

class Collector : public ir::LoopVisitor {
public:
  FreeValues out;

protected:
  void visitVar(const ir::Expr &e) override {
    if (scope().hasVar(e->name)) return;
    for (const FreeValues::Var &v : out.vars)
      if (v.name == e->name) return;
    out.vars.push_back({e->name, e->type});
  }
  void visitLoad(const ir::Expr &e) override {
    tensor(e->tensor);
    LoopVisitor::visitLoad(e);
  }
  void visitStore(const ir::LStmt &s) override {
    tensor(s.tensor);
    LoopVisitor::visitStore(s);
  }
  void visitDma(const ir::LStmt &s) override {
    tensor(s.tensor);
    LoopVisitor::visitDma(s);
  }
  void visitAlloc(const ir::LStmt &s) override {
    // A local buffer's extents are read where it is allocated.
    walkExprs(s.tensor->shape);
    LoopVisitor::visitAlloc(s);
  }

private:
  void tensor(const ir::TensorPtr &t) {
    if (!t || scope().hasTensor(t.get())) return;
    if (std::find(out.tensors.begin(), out.tensors.end(), t) == out.tensors.end()) {
      out.tensors.push_back(t);
      // Its extents address it.
      walkExprs(t->shape);
    }
  }
};

} // namespace

FreeValues freeValues(const ir::LStmt &loop) {
  // Walking the loop itself binds its variable (the CPE id) for the body.
  Collector c;
  c.walkStmt(std::make_shared<ir::LStmt>(loop));
  return c.out;
}

} // namespace tk::sunway
