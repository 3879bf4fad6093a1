#include "ir/GpuLaunch.h"

#include "ir/IRRewrite.h"

#include <algorithm>

namespace tk::ir {

namespace {

// Bytes of tensor `t` when its shape is constant; a symbolic extent counts
// as 0 and clears `*constant` (FormKernelLaunches refuses such tensors).
int64_t constantBytes(const TensorDecl &t, bool *constant) {
  int64_t bytes = scalarTypeBytes(t.dtype), n = 0;
  for (const Expr &d : t.shape) {
    bool known = isConstInt(d, &n);
    if (!known && constant) *constant = false;
    bytes *= known ? std::max<int64_t>(n, 0) : 0;
  }
  return bytes;
}

// 32-bit words of the `register` tensors live together somewhere in `s`: an
// allocation is live in its body; statements of a block, and the two
// branches of an `if`, do not overlap.
int64_t peakRegisterWords(const LStmtPtr &s) {
  if (!s) return 0;
  int64_t own = 0;
  if (s->kind == LStmt::Kind::Alloc && s->tensor->scope == Scope::Register)
    own = (constantBytes(*s->tensor, nullptr) + 3) / 4;
  int64_t inner = 0;
  for (const LStmtPtr &c : s->stmts) inner = std::max(inner, peakRegisterWords(c));
  for (const LStmtPtr &c : {s->body, s->thenS, s->elseS}) inner = std::max(inner, peakRegisterWords(c));
  return own + inner;
}

} // namespace

LaunchShape launchShape(const LStmtPtr &body) {
  LaunchShape shape;
  visitLStmt(body, [&](const LStmt &s) {
    if (s.kind == LStmt::Kind::For && s.forKind == ForKind::Parallel &&
        (s.worker == WorkerKind::Threads || s.worker == WorkerKind::Warps)) {
      int64_t n = 0;
      if (!isConstInt(s.extent, &n)) shape.constant = false;
      shape.threads = std::max(shape.threads, s.worker == WorkerKind::Warps ? 32 * n : n);
    }
    if (s.kind == LStmt::Kind::Alloc && s.tensor->scope == Scope::Shared) // each 16-byte aligned
      shape.sharedBytes += (constantBytes(*s.tensor, &shape.constant) + 15) / 16 * 16;
  });
  shape.registerWords = peakRegisterWords(body);
  return shape;
}

} // namespace tk::ir
