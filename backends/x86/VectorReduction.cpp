#include "backends/x86/VectorReduction.h"

#include "backends/common/LowerExprToLLVM.h"
#include "backends/x86/LaneMask.h"
#include "backends/x86/MatchContraction.h"

#include <llvm/IR/Intrinsics.h>

#include <functional>
#include <limits>

namespace tk::x86 {

using codegen::lowerExprAs;
using ir::BinOp;
using ir::Expr;
using ir::ExprKind;
using ir::mentionsVar;
using ir::LStmt;
using ir::ScalarType;

int reductionAccumulators(const CpuTarget &) {
  // 2 FMA pipes x 4 cycles latency (AVX-512 and AVX2 alike here).
  return 8;
}

static bool unitStrideLoad(const Expr &e, const std::string &j) {
  if (e->kind != ExprKind::Load || e->args.empty() || !unitStrideIn(e->args.back(), j)) return false;
  for (size_t d = 0; d + 1 < e->args.size(); ++d)
    if (mentionsVar(e->args[d], j)) return false;
  return laneMaskable(e->pred, j) && !(e->pad && (!e->pred || mentionsVar(e->pad, j)));
}

std::optional<ReductionLoop> matchVectorReduction(const LStmt &loop, std::string *reason) {
  auto fail = [&](const char *why) -> std::optional<ReductionLoop> {
    if (reason) *reason = why;
    return std::nullopt;
  };
  auto serial = [](const LStmt *l) {
    return l && l->kind == LStmt::Kind::For && (l->forKind == ir::ForKind::Serial || l->forKind == ir::ForKind::Vectorized);
  };
  if (!serial(&loop)) return fail("not a serial loop");
  ReductionLoop r;
  const LStmt *inner = &loop, *s = ir::soleStmt(loop.body.get());
  while (serial(s)) {
    r.outer.push_back(inner);
    inner = s;
    s = ir::soleStmt(s->body.get());
  }
  if (!s || s->kind != LStmt::Kind::Store) return fail("the loop body is not a single store");
  const ir::TensorDecl &acc = *s->tensor;
  const std::string &j = inner->var;
  // The element is stored once, after the outer loops too.
  for (const LStmt *o : r.outer) {
    for (const Expr &i : s->indices)
      if (mentionsVar(i, o->var)) return fail("the stored element moves with an outer loop");
    if (mentionsVar(s->pred, o->var)) return fail("the store's guard depends on an outer loop");
  }
  if (acc.dtype != ScalarType::F32 && acc.dtype != ScalarType::F64) return fail("the accumulator is not f32 or f64");
  for (const Expr &i : s->indices)
    if (mentionsVar(i, j)) return fail("the stored element moves with the loop");
  if (mentionsVar(s->pred, j)) return fail("the store's guard depends on the loop");
  const Expr &v = s->value;
  if (v->kind != ExprKind::Binary || (v->binOp != BinOp::Add && v->binOp != BinOp::Max && v->binOp != BinOp::Min))
    return fail("the stored value is not T + E, max(T, E) or min(T, E)");
  r.loop = inner;
  r.store = s;
  r.op = v->binOp;
  for (int side = 0; side < 2 && !r.accLoad; ++side) {
    const Expr &a = v->args[side];
    bool same = a->kind == ExprKind::Load && a->tensor.get() == &acc && a->args.size() == s->indices.size();
    for (size_t d = 0; same && d < a->args.size(); ++d) same = ir::sameExpr(a->args[d], s->indices[d]);
    if (same) {
      r.accLoad = a;
      r.lhs = v->args[1 - side];
    }
  }
  if (!r.accLoad) return fail("the stored value does not read the stored element");
  if (r.lhs->kind == ExprKind::Binary && r.lhs->binOp == BinOp::Mul) {
    r.rhs = r.lhs->args[1];
    r.lhs = r.lhs->args[0];
  }
  bool anyVector = false;
  for (const Expr &e : {r.lhs, r.rhs}) {
    if (!e) continue;
    if (e->kind != ExprKind::Load || e->type != acc.dtype) return fail("an operand is not a tensor element of the accumulator's type");
    if (e->tensor.get() == &acc) return fail("an operand reads the accumulated tensor");
    bool vec = unitStrideLoad(e, j);
    if (!vec && mentionsVar(e, j)) return fail("an operand is not contiguous along the loop");
    anyVector = anyVector || vec;
  }
  if (!anyVector) return fail("no operand varies along the loop");
  return r;
}

namespace {

struct ReductionEmitter {
  CodegenContext &cg;
  const ReductionLoop &r;
  int lanes;
  llvm::Type *elem;
  llvm::FixedVectorType *vecTy;
  llvm::Align align;

  llvm::IRBuilder<> &b() { return cg.b; }
  llvm::Value *splat(llvm::Value *v) { return b().CreateVectorSplat(lanes, v); }

  llvm::Value *identity() {
    double inf = std::numeric_limits<double>::infinity();
    double v = r.op == BinOp::Add ? -0.0 : r.op == BinOp::Max ? -inf : inf;
    return splat(llvm::ConstantFP::get(elem, v));
  }

  llvm::Value *combine(llvm::Value *a, llvm::Value *e) { return codegen::lowerArith(cg, r.op, a, e, r.store->tensor->dtype); }

  // One operand as a vector at the lanes from the loop variable's bound
  // value on (`tail`: lanes in range, null = all).
  llvm::Value *operand(const Expr &e, llvm::Value *tail) {
    if (!mentionsVar(e, r.loop->var)) return splat(lowerExprAs(cg, e, e->tensor->dtype));
    const ir::TensorDecl &t = *e->tensor;
    llvm::Value *ptr = b().CreateGEP(cg.memType(t.dtype), cg.buffer(t), codegen::linearIndex(cg, t, e->args), t.name + ".vaddr");
    if (!tail && !e->pred) return b().CreateAlignedLoad(vecTy, ptr, align);
    llvm::Value *mask = emitLaneMask(cg, e->pred, r.loop->var, lanes);
    if (tail) mask = b().CreateAnd(mask, tail);
    llvm::Value *pad = e->pad ? lowerExprAs(cg, e->pad, t.dtype) : llvm::Constant::getNullValue(elem);
    return b().CreateMaskedLoad(vecTy, ptr, align, mask, splat(pad));
  }

  // acc op E at lanes j0.., lanes outside `tail` (null = none) unchanged.
  llvm::Value *step(llvm::Value *acc, llvm::Value *j0, llvm::Value *tail) {
    cg.pushScope();
    cg.bind(r.loop->var, {j0, ScalarType::I64});
    llvm::Value *x = operand(r.lhs, tail);
    llvm::Value *next;
    if (r.rhs && r.op == BinOp::Add)
      next = b().CreateIntrinsic(llvm::Intrinsic::fmuladd, {vecTy}, {x, operand(r.rhs, tail), acc});
    else
      next = combine(acc, r.rhs ? b().CreateFMul(x, operand(r.rhs, tail)) : x);
    cg.popScope();
    return tail ? b().CreateSelect(tail, next, acc) : next;
  }
};

} // namespace

void emitVectorReduction(CodegenContext &cg, const ReductionLoop &r) {
  auto &b = cg.b;
  ScalarType dtype = r.store->tensor->dtype;
  llvm::Type *elem = cg.memType(dtype);
  int lanes = std::max(1, cg.target.vectorBits / (8 * ir::scalarTypeBytes(dtype)));
  ReductionEmitter e{cg, r, lanes, elem, llvm::FixedVectorType::get(elem, lanes), llvm::Align(ir::scalarTypeBytes(dtype))};
  int U = reductionAccumulators(cg.target);

  std::vector<llvm::AllocaInst *> acc;
  for (int u = 0; u < U; ++u) {
    acc.push_back(cg.entryAlloca(e.vecTy, "red.acc"));
    b.CreateStore(e.identity(), acc.back());
  }
  // The vector loop's blocks, singles and tail, inside the outer loops.
  std::function<void(size_t)> within = [&](size_t level) {
    if (level < r.outer.size()) {
      const LStmt &o = *r.outer[level];
      llvm::Value *begin = lowerExprAs(cg, o.min, ScalarType::I64);
      llvm::Value *end = b.CreateAdd(begin, lowerExprAs(cg, o.extent, ScalarType::I64));
      cg.emitLoop(begin, end, o.var, {}, [&](llvm::Value *iv) {
        cg.pushScope();
        cg.bind(o.var, {iv, ScalarType::I64});
        within(level + 1);
        cg.popScope();
      });
      return;
    }
    llvm::Value *jBegin = lowerExprAs(cg, r.loop->min, ScalarType::I64);
    llvm::Value *jExtent = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, lowerExprAs(cg, r.loop->extent, ScalarType::I64),
                                                   b.getInt64(0));
    llvm::Value *jEnd = b.CreateAdd(jBegin, jExtent);
    // U vectors per iteration, then single vectors, then one masked vector.
    llvm::Value *wide = b.getInt64(int64_t(U) * lanes);
    llvm::Value *blocks = b.CreateSDiv(jExtent, wide);
    cg.emitLoop(b.getInt64(0), blocks, r.loop->var + ".blk", {}, [&](llvm::Value *blk) {
      llvm::Value *j0 = b.CreateAdd(jBegin, b.CreateMul(blk, wide));
      for (int u = 0; u < U; ++u)
        b.CreateStore(e.step(b.CreateLoad(e.vecTy, acc[u]), b.CreateAdd(j0, b.getInt64(int64_t(u) * lanes)), nullptr), acc[u]);
    });
    llvm::Value *rest = b.CreateAdd(jBegin, b.CreateMul(blocks, wide));
    llvm::Value *singles = b.CreateSDiv(b.CreateSub(jEnd, rest), b.getInt64(lanes));
    cg.emitLoop(b.getInt64(0), singles, r.loop->var + ".vec", {}, [&](llvm::Value *v) {
      llvm::Value *j0 = b.CreateAdd(rest, b.CreateMul(v, b.getInt64(lanes)));
      b.CreateStore(e.step(b.CreateLoad(e.vecTy, acc[0]), j0, nullptr), acc[0]);
    });
    llvm::Value *last = b.CreateAdd(rest, b.CreateMul(singles, b.getInt64(lanes)));
    std::vector<llvm::Constant *> iota;
    for (int l = 0; l < lanes; ++l) iota.push_back(b.getInt64(l));
    llvm::Value *tail = b.CreateICmpSLT(b.CreateAdd(e.splat(last), llvm::ConstantVector::get(iota)), e.splat(jEnd));
    codegen::emitGuarded(cg, b.CreateICmpSLT(last, jEnd), "red.tail", [&] {
      b.CreateStore(e.step(b.CreateLoad(e.vecTy, acc[1 % U]), last, tail), acc[1 % U]);
    });
  };
  within(0);

  // Tree-combine the accumulators, then across lanes, then with T.
  std::vector<llvm::Value *> parts;
  for (llvm::AllocaInst *a : acc) parts.push_back(b.CreateLoad(e.vecTy, a));
  while (parts.size() > 1) {
    std::vector<llvm::Value *> next;
    for (size_t i = 0; i + 1 < parts.size(); i += 2) next.push_back(e.combine(parts[i], parts[i + 1]));
    if (parts.size() % 2) next.push_back(parts.back());
    parts = next;
  }
  llvm::Value *total;
  if (r.op == BinOp::Add) {
    auto *red = b.CreateFAddReduce(llvm::ConstantFP::get(elem, -0.0), parts[0]);
    llvm::cast<llvm::Instruction>(red)->setHasAllowReassoc(true);
    total = red;
  } else {
    total = r.op == BinOp::Max ? b.CreateFPMaxReduce(parts[0]) : b.CreateFPMinReduce(parts[0]);
  }
  const LStmt &st = *r.store;
  auto store = [&] {
    llvm::Value *v = e.combine(lowerExprAs(cg, r.accLoad, dtype), total);
    codegen::storeElement(cg, v, codegen::elementAddress(cg, *st.tensor, st.indices), dtype);
  };
  if (st.pred)
    codegen::emitGuarded(cg, lowerExprAs(cg, st.pred, ScalarType::Bool), st.tensor->name + ".store", store);
  else
    store();
}

} // namespace tk::x86
