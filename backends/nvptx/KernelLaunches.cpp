#include "backends/nvptx/KernelLaunches.h"

#include "ir/Diagnostics.h"
#include "ir/IRRewrite.h"

#include <algorithm>
#include <set>

namespace tk::nvptx {

using ir::LStmt;

namespace {

struct Collector {
  const ir::LoweredFunc &f;
  std::vector<KernelLaunch> out;

  void captures(KernelLaunch &l) {
    std::set<const ir::TensorDecl *> allocated;
    std::set<std::string> names;
    auto expr = [&](const ir::Expr &e) {
      ir::visitExpr(e, [&](const ir::Expr &n) {
        if (n->kind == ir::ExprKind::Var) names.insert(n->name);
        if (n->kind == ir::ExprKind::Load && std::find(l.tensors.begin(), l.tensors.end(), n->tensor.get()) == l.tensors.end())
          l.tensors.push_back(n->tensor.get());
      });
    };
    ir::visitLStmt(l.loop->body, [&](const LStmt &s) {
      for (const ir::Expr *e : {&s.min, &s.extent, &s.value, &s.pred, &s.cond}) expr(*e);
      for (const ir::Expr &e : s.indices) expr(e);
      for (const ir::Expr &e : s.operands) expr(e);
      if (s.kind == LStmt::Kind::Alloc) allocated.insert(s.tensor.get());
      if (s.kind == LStmt::Kind::Store && std::find(l.tensors.begin(), l.tensors.end(), s.tensor.get()) == l.tensors.end())
        l.tensors.push_back(s.tensor.get());
    });
    int64_t blocks = 0;
    l.multiDimGrid = !ir::isConstInt(l.loop->extent, &blocks) || blocks > 0x7fffffff;
    if (l.multiDimGrid) expr(l.loop->extent);
    std::erase_if(l.tensors, [&](const ir::TensorDecl *t) { return allocated.count(t) > 0; });
    for (const ir::TensorDecl *t : l.tensors)
      for (const ir::Expr &d : t->shape) expr(d);
    // Shapes of buffers allocated inside are constants (FormKernelLaunches).
    for (const ir::Param &p : f.op->inputs)
      if (p.isScalar() && names.count(p.name)) l.scalars.push_back(p.name);
    for (const std::string &s : f.op->symbols)
      if (names.count(s)) l.scalars.push_back(s);
  }

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
        l.kernel = f.name + "_k" + std::to_string(out.size());
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
