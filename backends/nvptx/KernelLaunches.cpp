#include "backends/nvptx/KernelLaunches.h"

#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace tk::nvptx {

using ir::LStmt;

namespace {

// What a launch's body reads from outside it: the variables it names, and
// the tensors it accesses but does not allocate, in order of first access
// (the kernel's parameter order).
class Captures : public ir::LoopVisitor {
public:
  explicit Captures(std::vector<const ir::TensorDecl *> &tensors) : tensors_(tensors) {}
  std::set<std::string> names;
  using LoopVisitor::walkExprs;

protected:
  void visitVar(const ir::Expr &e) override { names.insert(e->name); }

  void visitLoad(const ir::Expr &e) override {
    capture(e->tensor.get());
    LoopVisitor::visitLoad(e);
  }

  // The value and guard before the indices, then the target: the
  // parameter order kernels have always had.
  void visitStore(const LStmt &s) override {
    walkExpr(s.value);
    walkExpr(s.pred);
    walkExprs(s.indices);
    capture(s.tensor.get());
  }

private:
  void capture(const ir::TensorDecl *t) {
    if (!scope().hasTensor(t) && std::find(tensors_.begin(), tensors_.end(), t) == tensors_.end())
      tensors_.push_back(t);
  }

  std::vector<const ir::TensorDecl *> &tensors_;
};

struct Collector {
  const ir::LoweredFunc &f;
  std::vector<KernelLaunch> out;

  void captures(KernelLaunch &l) {
    Captures c(l.tensors);
    c.walkStmt(l.loop->body);
    int64_t blocks = 0;
    l.multiDimGrid = !ir::isConstInt(l.loop->extent, &blocks) || blocks > 0x7fffffff;
    if (l.multiDimGrid) c.walkExpr(l.loop->extent);
    for (size_t i = 0; i < l.tensors.size(); ++i) c.walkExprs(l.tensors[i]->shape);
    const std::set<std::string> &names = c.names;
    // Shapes of buffers allocated inside are constants (FormKernelLaunches).
    for (const ir::Param &p : f.op->inputs)
      if (p.isScalar() && names.count(p.name)) l.scalars.push_back(p.name);
    for (const std::string &s : f.op->symbols)
      if (names.count(s)) l.scalars.push_back(s);
  }

  // A whitelist of the host statements around launches (every other kind
  // is an error), so no visitor default applies.
  void host(const ir::LStmtPtr &s) {
    switch (s->kind) {
    case LStmt::Kind::Block:
      for (const ir::LStmtPtr &c : s->stmts) host(c);
      return;
    case LStmt::Kind::Check: return;
    case LStmt::Kind::Alloc: return host(s->body);
    case LStmt::Kind::For:
      if (s->forKind == ir::ForKind::Parallel && s->worker == ir::WorkerKind::Blocks) {
        KernelLaunch l;
        l.loop = s.get();
        l.kernel = fmt::format("{}_k{}", f.name, out.size());
        l.shape = ir::launchShape(s->body);
        captures(l);
        out.push_back(std::move(l));
        return;
      }
      break;
    default: break;
    }
    throw InternalError("nvptx backend: '" + f.name + "' has a top-level statement that is neither host code nor a launch");
  }
};

} // namespace

std::vector<KernelLaunch> collectKernelLaunches(const ir::LoweredFunc &f) {
  Collector c{f, {}};
  c.host(f.body);
  return std::move(c.out);
}

ir::ScalarType hostScalarType(const ir::Op &op, const std::string &name) {
  for (const ir::Param &p : op.inputs)
    if (p.isScalar() && p.name == name) return p.type;
  return ir::ScalarType::I64;
}

} // namespace tk::nvptx
