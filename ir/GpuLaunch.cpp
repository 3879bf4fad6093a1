#include "ir/GpuLaunch.h"

#include "ir/IRRewrite.h"

#include <algorithm>

namespace tk::ir {

LaunchShape launchShape(const LStmtPtr &body) {
  LaunchShape shape;
  visitLStmt(body, [&](const LStmt &s) {
    if (s.kind == LStmt::Kind::For && s.forKind == ForKind::Parallel &&
        (s.worker == WorkerKind::Threads || s.worker == WorkerKind::Warps)) {
      int64_t n = 0;
      if (!isConstInt(s.extent, &n)) shape.constant = false;
      shape.threads = std::max(shape.threads, s.worker == WorkerKind::Warps ? 32 * n : n);
    }
    if (s.kind == LStmt::Kind::Alloc && s.tensor->scope == Scope::Shared) {
      int64_t bytes = scalarTypeBytes(s.tensor->dtype), n = 0;
      for (const Expr &d : s.tensor->shape) {
        if (!isConstInt(d, &n)) shape.constant = false;
        bytes *= std::max<int64_t>(n, 0);
      }
      shape.sharedBytes += (bytes + 15) / 16 * 16; // each shared array is 16-byte aligned
    }
  });
  return shape;
}

} // namespace tk::ir
