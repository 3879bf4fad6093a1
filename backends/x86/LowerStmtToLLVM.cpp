#include "backends/x86/LowerStmtToLLVM.h"

#include "backends/common/LowerCommonStmt.h"
#include "backends/common/LowerExprToLLVM.h"
#include "backends/common/TensorBytes.h"
#include "backends/x86/CacheHints.h"
#include "backends/x86/EmitRegisterTile.h"
#include "backends/x86/EmitWriteCheck.h"
#include "backends/x86/LaneMask.h"
#include "backends/x86/OutlineParallelLoops.h"
#include "backends/x86/ReassociableSum.h"
#include "backends/x86/VectorReduction.h"
#include "ir/FlatIndex.h"
#include "ir/IRRewrite.h"
#include "ir/IRVisitor.h"
#include "ir/TensorSize.h"

namespace tk::x86 {

using ir::ForKind;
using ir::LStmt;
using ir::ScalarType;

static llvm::Metadata *loopProp(CodegenContext &cg, const char *name, llvm::Metadata *value = nullptr) {
  std::vector<llvm::Metadata *> ops{llvm::MDString::get(cg.ctx, name)};
  if (value) ops.push_back(value);
  return llvm::MDNode::get(cg.ctx, ops);
}
static llvm::Metadata *mdInt(CodegenContext &cg, int bits, int64_t v) {
  return llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::IntegerType::get(cg.ctx, bits), v));
}

// Widest element stored in a loop body: the vector width hint is the number
// of such elements in one SIMD register.
static int widestStoreBytes(const ir::LStmtPtr &s) {
  struct Widest : ir::LoopVisitor {
    int bytes = 0;
    void walkExpr(const ir::Expr &) override {}
    void visitStore(const LStmt &st) override { bytes = std::max(bytes, ir::scalarTypeBytes(st.tensor->dtype)); }
  } widest;
  widest.walkStmt(s);
  return widest.bytes;
}

// True when `body` holds stores and no loop, and each store's indices
// mention `var` (it writes a different element every iteration).
static bool storesMoveWith(const ir::LStmtPtr &body, const std::string &var) {
  bool stores = false, moves = true;
  ir::visitLStmt(body, [&](const LStmt &n) {
    if (n.kind == LStmt::Kind::For) moves = false;
    if (n.kind != LStmt::Kind::Store) return;
    stores = true;
    bool any = false;
    for (const ir::Expr &i : n.indices) any |= ir::mentionsVar(i, var);
    moves &= any;
  });
  return stores && moves;
}

// True when `body` holds stores and no loop, and every store moves with
// `var` only through its outer indices (its innermost index, a flat pixel
// pair counting as one, ignores `var`): vectorized, every store would be a
// scatter. LLVM's cost model takes AVX-512 scatters for cheap,
// but they run an element at a time (an im2col panel copy, a channel per
// iteration, ran 2x slower as gathers and scatters than as scalar code).
static bool onlyScatters(const ir::LStmtPtr &body, const std::string &var) {
  if (!storesMoveWith(body, var)) return false;
  bool scatters = true;
  ir::visitLStmt(body, [&](const LStmt &n) {
    if (n.kind != LStmt::Kind::Store || n.indices.empty()) return;
    std::optional<int64_t> step = laneStride(ir::innermostIndex(*n.tensor, n.indices), var);
    scatters &= step && *step == 0;
  });
  return scatters;
}

static std::vector<llvm::Metadata *> vectorHints(CodegenContext &cg, const LStmt &s) {
  if (s.forKind == ForKind::Vectorized ||
      (s.forKind == ForKind::Parallel && s.worker == ir::WorkerKind::Lanes)) {
    int bytes = widestStoreBytes(s.body);
    int width = std::max(1, cg.target.vectorBits / (8 * (bytes ? bytes : 4)));
    return {loopProp(cg, "llvm.loop.vectorize.enable", mdInt(cg, 1, 1)),
            loopProp(cg, "llvm.loop.vectorize.width", mdInt(cg, 32, width))};
  }
  if (s.forKind == ForKind::Unrolled)
    return {loopProp(cg, ir::isConstInt(s.extent) ? "llvm.loop.unroll.full" : "llvm.loop.unroll.enable")};
  // An innermost loop whose every store moves with it carries no chain of
  // dependent operations for interleaved vector copies to hide; LLVM's
  // default 4 copies of 16 lanes would make a 56-element pooling row skip
  // the main loop and run in the narrower epilogue.
  if (s.forKind == ForKind::Serial && onlyScatters(s.body, s.var))
    return {loopProp(cg, "llvm.loop.vectorize.enable", mdInt(cg, 1, 0))};
  if (s.forKind == ForKind::Serial && storesMoveWith(s.body, s.var))
    return {loopProp(cg, "llvm.loop.interleave.count", mdInt(cg, 32, 1))};
  return {};
}

static std::vector<llvm::Metadata *> loopHints(CodegenContext &cg, const LStmt &s) {
  std::vector<llvm::Metadata *> hints = vectorHints(cg, s);
  if (s.forKind != ForKind::Unrolled) hints.push_back(loopProp(cg, "llvm.loop.unroll.runtime.disable"));
  return hints;
}

static void lowerFor(CodegenContext &cg, const LStmt &s) {
  if (s.forKind == ForKind::Parallel && s.worker && *s.worker != ir::WorkerKind::Cores &&
      *s.worker != ir::WorkerKind::Lanes) {
    cg.diags.error(s.loc, "worker kind '" + std::string(ir::workerKindName(*s.worker)) +
                              "' is not available on the x86 backend (cpu has cores and lanes)");
    return;
  }
  if (s.forKind == ForKind::Parallel && s.worker != ir::WorkerKind::Lanes) {
    outlineParallelLoop(cg, s);
    return;
  }
  // Contraction nests and reductions into one element get explicit vector
  // code instead of scalar loops.
  if (auto nest = matchContraction(s)) {
    emitRegisterTile(cg, *nest);
    return;
  }
  if (auto red = matchVectorReduction(s)) {
    emitVectorReduction(cg, *red);
    return;
  }
  if (const LStmt *sum = matchReassociableSum(s)) {
    emitReassociableSum(cg, s, *sum);
    return;
  }
  llvm::Value *begin = lowerExprAs(cg, s.min, ScalarType::I64);
  llvm::Value *end = cg.b.CreateAdd(begin, lowerExprAs(cg, s.extent, ScalarType::I64));
  cg.emitLoop(begin, end, s.var, loopHints(cg, s), [&](llvm::Value *iv) {
    cg.pushScope();
    cg.bind(s.var, {iv, ScalarType::I64});
    lowerStmt(cg, s.body);
    cg.popScope();
  });
}

// `init` then `next` where next is a contraction nest whose tile `init`
// sets to a constant, perhaps under conditions (tileStart): one register
// tile whose accumulators start from it (the tile is not written and read
// back). False, emitting nothing, otherwise.
static bool lowerInitialisedTile(CodegenContext &cg, const LStmt &init, const LStmt &next) {
  if (next.kind != LStmt::Kind::For) return false;
  std::optional<ContractionNest> nest = matchContraction(next);
  std::optional<TileStart> start = nest ? tileStart(init, *nest) : std::nullopt;
  if (start) emitRegisterTile(cg, *nest, start);
  return start.has_value();
}

static void lowerAlloc(CodegenContext &cg, const LStmt &s) {
  const ir::TensorDecl &t = *s.tensor;
  if (t.scope != ir::Scope::Global && t.scope != ir::Scope::Local && t.scope != ir::Scope::Register) {
    cg.diags.error(s.loc, "'" + std::string(ir::scopeName(t.scope)) + "' buffer '" + t.name +
                              "' is not available on the x86 backend (cpu has global, local and register)");
    return;
  }
  // Constant sizes up to kMaxStackTensorBytes go on the stack; anything
  // else (symbolic, or a generated size the frontend's check never saw) on
  // the heap, its byte count computed with overflow checks (status 3).
  ir::ConstantSize size = ir::constantSize(t);
  llvm::Type *elem = cg.memType(t.dtype);
  llvm::Value *ptr;
  bool heap = t.scope == ir::Scope::Global || !size.known || size.tooLarge || size.bytes > ir::kMaxStackTensorBytes;
  if (!heap) {
    int64_t count = size.bytes / ir::scalarTypeBytes(t.dtype);
    llvm::AllocaInst *slot = cg.entryAlloca(llvm::ArrayType::get(elem, std::max<int64_t>(count, 1)), t.name);
    // Whole cache lines, like heap buffers (emitCheckedMalloc): the default
    // (the element's) lets a zmm load of a packed row straddle two lines,
    // which measured 15% slower on a 1024^3 matmul.
    slot->setAlignment(llvm::Align(CodegenContext::kBufferAlign));
    ptr = slot;
  } else {
    ptr = cg.emitCheckedMalloc(codegen::emitTensorBytes(cg, t), t.name);
    cg.frame().liveHeap.push_back(ptr);
  }
  cg.frame().buffers[&t] = ptr;
  lowerStmt(cg, s.body);
  cg.frame().buffers.erase(&t);
  if (heap) {
    cg.frame().liveHeap.pop_back();
    cg.emitFree(ptr);
  }
}

static void lowerCheck(CodegenContext &cg, const LStmt &s) {
  if (s.tensor) return emitWriteCheck(cg, s); // --check-mappings
  llvm::Value *c = lowerExprAs(cg, s.cond, ScalarType::Bool);
  llvm::BasicBlock *fail = cg.newBlock("check.fail");
  llvm::BasicBlock *ok = cg.newBlock("check.ok");
  cg.b.CreateCondBr(c, ok, fail);
  cg.b.SetInsertPoint(fail);
  cg.emitEarlyExit(cg.b.getInt32(s.errorCode));
  cg.b.SetInsertPoint(ok);
}

// Hand-written rather than an ir::LoopVisitor: each kind emits its LLVM
// blocks in a fixed order around its children (loops, branches, lets and
// allocations bind values in cg's own scope), a loop may be emitted whole
// by a matcher instead of walked, and a block looks at adjacent pairs
// (lowerInitialisedTile). The recursion is this dispatcher alone.
void lowerStmt(CodegenContext &cg, const ir::LStmtPtr &s) {
  if (!s) return;
  switch (s->kind) {
  case LStmt::Kind::Block:
    for (size_t i = 0; i < s->stmts.size(); ++i) {
      if (i + 1 < s->stmts.size() && lowerInitialisedTile(cg, *s->stmts[i], *s->stmts[i + 1])) ++i;
      else lowerStmt(cg, s->stmts[i]);
    }
    return;
  case LStmt::Kind::For: lowerFor(cg, *s); return;
  case LStmt::Kind::Store: codegen::lowerStore(cg, *s); return;
  case LStmt::Kind::Alloc: lowerAlloc(cg, *s); return;
  case LStmt::Kind::If: codegen::lowerIf(cg, *s, [&](const ir::LStmtPtr &c) { lowerStmt(cg, c); }); return;
  case LStmt::Kind::Let: codegen::lowerLet(cg, *s, [&](const ir::LStmtPtr &c) { lowerStmt(cg, c); }); return;
  case LStmt::Kind::Check: lowerCheck(cg, *s); return;
  case LStmt::Kind::Barrier:
    // A single worker needs no barrier. Chunks of a parallel loop run to
    // completion independently, so they cannot wait for each other:
    // LowerTaskMappings splits cores mappings at their syncs, and
    // CheckBarriers refuses the placements it cannot split.
    if (cg.frame().statusOut) throw InternalError("x86 backend: a barrier inside a parallel loop");
    return;
  case LStmt::Kind::Prefetch: emitPrefetch(cg, *s); return;
  case LStmt::Kind::Intrinsic: // SemaIntrinsic accepts them only in cuda kernels
    throw InternalError("x86 backend: a tensor-core statement in cpu code");
  case LStmt::Kind::Dma:
  case LStmt::Kind::DmaWait: throw InternalError("x86 backend: a Sunway dma in cpu code");
  }
  throw InternalError("x86 backend: unknown statement kind");
}

} // namespace tk::x86
