#include "scheduler/cuda/FormKernelLaunches.h"

#include "scheduler/cuda/GpuLaunch.h"
#include "ir/IRRewrite.h"
#include "ir/IntArith.h"

#include <fmt/format.h>

#include <limits>

namespace tk {
using namespace ir;

namespace {

// Threads per block on every CUDA architecture tkc targets.
constexpr int64_t kMaxBlockThreads = 1024;

bool isBlocksLoop(const LStmt &s) {
  return s.kind == LStmt::Kind::For && s.forKind == ForKind::Parallel && s.worker == WorkerKind::Blocks;
}

// LaunchShape's counts saturate here instead of wrapping (scheduler/cuda/GpuLaunch.h).
constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();
std::string count(int64_t v) { return v == kSaturated ? "at least 2^63 - 1" : fmt::format("{}", v); }

bool constantShape(const TensorDecl &t) {
  for (const Expr &d : t.shape)
    if (!isConstInt(d)) return false;
  return true;
}

struct Former {
  DiagEngine &diags;
  const LaunchLimits &limits;
  size_t errorsBefore = diags.errorCount();

  // Device code of one launch (the body of its blocks loop).
  void checkDevice(const LStmtPtr &body, const LStmt &launch) {
    visitLStmt(body, [&](const LStmt &s) {
      if (isBlocksLoop(s)) diags.error(s.loc, "a blocks mapping on cuda must be at the top level of the kernel, "
                                              "not inside another statement: each one is a kernel launch");
      if (s.kind != LStmt::Kind::Alloc) return;
      const TensorDecl &t = *s.tensor;
      std::string scope(scopeName(t.scope));
      if (t.scope == Scope::Global)
        diags.error(s.loc, "global tensor '" + t.name + "' must be declared outside the blocks mapping on cuda "
                                                        "(device code cannot allocate global memory)");
      else if (!constantShape(t))
        diags.error(s.loc, "{} tensor '{}' needs a constant shape on cuda", scope, t.name);
    });
    LaunchShape shape = launchShape(body);
    if (shape.threads > kMaxBlockThreads)
      diags.error(launch.loc, "this launch needs {} threads per block; cuda allows at most {}", count(shape.threads),
                  kMaxBlockThreads);
    if (shape.sharedBytes > limits.sharedBytes)
      diags.error(launch.loc,
                  "this launch declares {} bytes of shared memory per block; the hardware allows at most {} per block",
                  count(shape.sharedBytes), limits.sharedBytes);
    if (shape.registerWords > limits.registersPerThread)
      diags.error(launch.loc,
                  "the register tensors of this launch need at least {} 32-bit registers per thread; cuda allows {} "
                  "(the rest would spill to local memory): use smaller register tiles",
                  count(shape.registerWords), limits.registersPerThread);
    else if (int64_t block = checkedMul(shape.registerWords, shape.threads).value_or(kSaturated);
             block > limits.registersPerBlock)
      diags.error(launch.loc,
                  "the register tensors of this launch need at least {} 32-bit registers per thread, {} for its {} "
                  "threads; a block's register file holds {} (the launch would fail): use fewer threads or smaller "
                  "register tiles",
                  shape.registerWords, count(block), count(shape.threads), limits.registersPerBlock);
  }

  LStmtPtr launch(const LStmtPtr &s) {
    LStmtPtr loop = s;
    if (!isBlocksLoop(*s)) {
      // "blk.launch": no .tk identifier can spell it, so it shadows nothing.
      loop = lFor("blk.launch", intImm(0), intImm(1), s, s->loc, ForKind::Parallel);
      loop->worker = WorkerKind::Blocks;
    }
    checkDevice(loop->body, *loop);
    return loop;
  }

  LStmtPtr host(const LStmtPtr &s) {
    switch (s->kind) {
    case LStmt::Kind::Block: {
      auto out = std::make_shared<LStmt>(*s);
      for (LStmtPtr &c : out->stmts) c = host(c);
      return out;
    }
    case LStmt::Kind::Check: return s;
    case LStmt::Kind::Alloc:
      if (s->tensor->scope == Scope::Global) {
        auto out = std::make_shared<LStmt>(*s);
        out->body = host(s->body);
        return out;
      }
      diags.error(s->loc, std::string(scopeName(s->tensor->scope)) + " tensor '" + s->tensor->name +
                              "' must be declared inside a blocks mapping on cuda");
      return s;
    default: return launch(s);
    }
  }
};

} // namespace

std::optional<LoweredFunc> formKernelLaunches(const LoweredFunc &f, const LaunchLimits &limits, DiagEngine &diags) {
  if (f.target != TargetFamily::Cuda) throw InternalError("FormKernelLaunches: '" + f.name + "' is not a cuda function");
  Former former{diags, limits};
  LoweredFunc out = f;
  out.body = former.host(f.body);
  if (diags.errorCount() > former.errorsBefore) return std::nullopt;
  return out;
}

} // namespace tk
