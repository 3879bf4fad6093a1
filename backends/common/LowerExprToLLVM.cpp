#include "backends/common/LowerExprToLLVM.h"

#include "ir/FlatIndex.h"

#include <fmt/format.h>

#include <llvm/ADT/APFloat.h>
#include <llvm/IR/Intrinsics.h>

namespace tk::codegen {

using ir::BinOp;
using ir::ExprKind;
using ir::ScalarType;

// ---- f16 / bf16 storage -------------------------------------------------

static llvm::Value *halfBitsToFloat(CodegenContext &cg, llvm::Value *bits) {
  return cg.b.CreateFPExt(cg.b.CreateBitCast(bits, cg.b.getHalfTy()), cg.b.getFloatTy());
}
static llvm::Value *floatToHalfBits(CodegenContext &cg, llvm::Value *v) {
  return cg.b.CreateBitCast(cg.b.CreateFPTrunc(v, cg.b.getHalfTy()), cg.b.getInt16Ty());
}
// bf16 is the top half of an f32, so widening is a shift.
static llvm::Value *bf16BitsToFloat(CodegenContext &cg, llvm::Value *bits) {
  llvm::Value *wide = cg.b.CreateShl(cg.b.CreateZExt(bits, cg.b.getInt32Ty()), 16);
  return cg.b.CreateBitCast(wide, cg.b.getFloatTy());
}
// Round to nearest even, done on the bits so no runtime-library call is
// needed; NaNs stay NaN (quiet bit forced).
static llvm::Value *floatToBF16Bits(CodegenContext &cg, llvm::Value *v) {
  auto &b = cg.b;
  llvm::Value *bits = b.CreateBitCast(v, b.getInt32Ty());
  llvm::Value *lsb = b.CreateAnd(b.CreateLShr(bits, 16), 1);
  llvm::Value *rounded = b.CreateLShr(b.CreateAdd(bits, b.CreateAdd(lsb, b.getInt32(0x7fff))), 16);
  llvm::Value *nan = b.CreateOr(b.CreateLShr(bits, 16), b.getInt32(0x40));
  llvm::Value *isNan = b.CreateFCmpUNO(v, v);
  return b.CreateTrunc(b.CreateSelect(isNan, nan, rounded), b.getInt16Ty());
}

static llvm::Value *roundTo(CodegenContext &cg, llvm::Value *v, ScalarType t) {
  if (t == ScalarType::F16) return halfBitsToFloat(cg, floatToHalfBits(cg, v));
  if (t == ScalarType::BF16) return bf16BitsToFloat(cg, floatToBF16Bits(cg, v));
  return v;
}

llvm::Value *convertValue(CodegenContext &cg, llvm::Value *v, ScalarType from, ScalarType to) {
  auto &b = cg.b;
  if (from == to) return v;
  llvm::Type *dst = cg.regType(to);
  if (to == ScalarType::Bool)
    return ir::isFloat(from) ? b.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0))
                             : b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  if (from == ScalarType::Bool)
    return ir::isFloat(to) ? b.CreateUIToFP(v, dst) : b.CreateZExt(v, dst);
  if (!ir::isFloat(from) && !ir::isFloat(to)) return b.CreateSExtOrTrunc(v, dst);
  if (!ir::isFloat(from)) return roundTo(cg, b.CreateSIToFP(v, dst), to);
  if (!ir::isFloat(to))
    return b.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {dst, v->getType()}, {v});
  if (dst != v->getType()) v = b.CreateFPCast(v, dst);
  return roundTo(cg, v, to);
}

// ---- memory -------------------------------------------------------------

llvm::Value *elementAddress(CodegenContext &cg, const ir::TensorDecl &t,
                            const std::vector<ir::Expr> &indices) {
  if (indices.size() != t.rank())
    throw InternalError(
        fmt::format("codegen: {} indices for tensor '{}' of rank {}", indices.size(), t.name, t.rank()));
  return cg.b.CreateInBoundsGEP(cg.memType(t.dtype), cg.buffer(t), linearIndex(cg, t, indices), t.name + ".addr");
}

// Extent k of `t`, at the end of the entry block of a function that
// computes extents there (FunctionFrame::extentsAtEntry) when it is integer
// arithmetic on values the entry block has (arguments, captured values
// loaded there): straight-line code whose divisors the kernel's entry
// checks made non-zero before the function could be called.
static llvm::Value *extentOf(CodegenContext &cg, const ir::TensorDecl &t, size_t k) {
  FunctionFrame &f = cg.frame();
  const ir::Expr &e = t.shape[k];
  llvm::BasicBlock &entry = f.fn->getEntryBlock();
  bool atEntry = f.extentsAtEntry;
  ir::visitExpr(e, [&](const ir::Expr &n) {
    if (n->kind == ir::ExprKind::Var) {
      const VarBinding *v = cg.lookup(n->name);
      auto *inst = v ? llvm::dyn_cast<llvm::Instruction>(v->value) : nullptr;
      atEntry &= v && (llvm::isa<llvm::Argument>(v->value) || (inst && inst->getParent() == &entry));
    } else {
      atEntry &= n->kind == ir::ExprKind::IntImm || n->kind == ir::ExprKind::Binary;
    }
  });
  if (!atEntry) return lowerExprAs(cg, e, ScalarType::I64);
  auto [it, added] = f.extents.try_emplace({&t, k}, nullptr);
  if (added) {
    llvm::IRBuilderBase::InsertPointGuard guard(cg.b);
    if (llvm::Instruction *end = entry.getTerminator()) cg.b.SetInsertPoint(end);
    else cg.b.SetInsertPoint(&entry);
    it->second = lowerExprAs(cg, e, ScalarType::I64);
  }
  return it->second;
}

llvm::Value *linearIndex(CodegenContext &cg, const ir::TensorDecl &t, const std::vector<ir::Expr> &indices) {
  auto extent = [&](size_t k) { return extentOf(cg, t, k); };
  // A pair [e / S, e % S] over dimensions (d, d + 1) is element e of the two
  // flattened (ir/FlatIndex.h): linear in e, with no division for LLVM to
  // fold (it does not, for a run-time S), so vector loops see unit stride.
  std::optional<ir::FlatPair> flat = ir::flatPairIndex(t, indices);
  llvm::Value *linear = nullptr;
  for (size_t k = 0; k < indices.size(); ++k) {
    bool merged = flat && k == flat->dim;
    llvm::Value *idx = lowerExprAs(cg, merged ? flat->index : indices[k], ScalarType::I64);
    llvm::Value *ext = k == 0 ? nullptr : merged ? cg.b.CreateMul(extent(k), extent(k + 1)) : extent(k);
    linear = k == 0 ? idx : cg.b.CreateAdd(cg.b.CreateMul(linear, ext), idx);
    if (merged) ++k;
  }
  return linear ? linear : cg.b.getInt64(0);
}

llvm::Value *fromStorage(CodegenContext &cg, llvm::Value *raw, ScalarType dtype) {
  switch (dtype) {
  case ScalarType::F16: return halfBitsToFloat(cg, raw);
  case ScalarType::BF16: return bf16BitsToFloat(cg, raw);
  case ScalarType::Bool: return cg.b.CreateICmpNE(raw, cg.b.getInt8(0));
  default: return raw;
  }
}

static llvm::Value *loadElement(CodegenContext &cg, llvm::Value *addr, ScalarType dtype) {
  return fromStorage(cg, cg.b.CreateLoad(cg.memType(dtype), addr), dtype);
}

void storeElement(CodegenContext &cg, llvm::Value *v, llvm::Value *addr, ScalarType dtype) {
  switch (dtype) {
  case ScalarType::F16: v = floatToHalfBits(cg, v); break;
  case ScalarType::BF16: v = floatToBF16Bits(cg, v); break;
  case ScalarType::Bool: v = cg.b.CreateZExt(v, cg.b.getInt8Ty()); break;
  default: break;
  }
  cg.b.CreateStore(v, addr);
}

void emitGuarded(CodegenContext &cg, llvm::Value *cond, const std::string &name,
                 const std::function<void()> &emit) {
  llvm::BasicBlock *then = cg.newBlock(name + ".then");
  llvm::BasicBlock *done = cg.newBlock(name + ".done");
  cg.b.CreateCondBr(cond, then, done);
  cg.b.SetInsertPoint(then);
  emit();
  cg.b.CreateBr(done);
  cg.b.SetInsertPoint(done);
}

// 0 <= idx_k < shape_k for every k: the guard of a padded read that the
// scheduler left without an explicit predicate.
static llvm::Value *inBounds(CodegenContext &cg, const ir::TensorDecl &t, const std::vector<ir::Expr> &indices) {
  llvm::Value *ok = cg.b.getTrue();
  for (size_t k = 0; k < indices.size() && k < t.rank(); ++k) {
    llvm::Value *idx = lowerExprAs(cg, indices[k], ScalarType::I64);
    llvm::Value *ext = lowerExprAs(cg, t.shape[k], ScalarType::I64);
    // One unsigned compare covers both bounds (negative indices wrap high).
    ok = cg.b.CreateAnd(ok, cg.b.CreateICmpULT(idx, ext));
  }
  return ok;
}

static llvm::Value *lowerLoad(CodegenContext &cg, const ir::ExprNode &e) {
  const ir::TensorDecl &t = *e.tensor;
  if (!e.pred && !e.pad) return loadElement(cg, elementAddress(cg, t, e.args), t.dtype);
  llvm::Value *cond = e.pred ? lowerExprAs(cg, e.pred, ScalarType::Bool) : inBounds(cg, t, e.args);
  llvm::Value *pad = e.pad ? lowerExprAs(cg, e.pad, t.dtype) : llvm::Constant::getNullValue(cg.regType(t.dtype));
  llvm::BasicBlock *before = cg.b.GetInsertBlock();
  llvm::BasicBlock *read = cg.newBlock(t.name + ".read");
  llvm::BasicBlock *done = cg.newBlock(t.name + ".loaded");
  cg.b.CreateCondBr(cond, read, done);
  cg.b.SetInsertPoint(read);
  llvm::Value *v = loadElement(cg, elementAddress(cg, t, e.args), t.dtype);
  llvm::BasicBlock *readEnd = cg.b.GetInsertBlock();
  cg.b.CreateBr(done);
  cg.b.SetInsertPoint(done);
  llvm::PHINode *phi = cg.b.CreatePHI(v->getType(), 2, t.name + ".val");
  phi->addIncoming(v, readEnd);
  phi->addIncoming(pad, before);
  return phi;
}

// ---- arithmetic -----------------------------------------------------------

// Integer division rounding toward negative infinity (ceil for CDiv) and the
// matching modulo, from C's truncating sdiv/srem.
static llvm::Value *intDivMod(CodegenContext &cg, BinOp op, llvm::Value *a, llvm::Value *b) {
  auto &B = cg.b;
  llvm::Value *q = B.CreateSDiv(a, b);
  llvm::Value *r = B.CreateSRem(a, b);
  llvm::Value *zero = llvm::ConstantInt::get(a->getType(), 0);
  llvm::Value *inexact = B.CreateICmpNE(r, zero);
  llvm::Value *signsDiffer = B.CreateICmpSLT(B.CreateXor(r, b), zero);
  switch (op) {
  case BinOp::Div: return B.CreateSub(q, B.CreateZExt(B.CreateAnd(inexact, signsDiffer), a->getType()));
  case BinOp::Mod: return B.CreateSelect(B.CreateAnd(inexact, signsDiffer), B.CreateAdd(r, b), r);
  default: return B.CreateAdd(q, B.CreateZExt(B.CreateAnd(inexact, B.CreateNot(signsDiffer)), a->getType()));
  }
}

static llvm::Value *unaryIntrinsic(CodegenContext &cg, llvm::Intrinsic::ID id, llvm::Value *x) {
  return cg.b.CreateUnaryIntrinsic(id, x);
}

llvm::Value *lowerArith(CodegenContext &cg, BinOp op, llvm::Value *a, llvm::Value *b, ScalarType t) {
  auto &B = cg.b;
  if (!ir::isFloat(t)) {
    switch (op) {
    case BinOp::Add: return B.CreateAdd(a, b);
    case BinOp::Sub: return B.CreateSub(a, b);
    case BinOp::Mul: return B.CreateMul(a, b);
    case BinOp::Div: case BinOp::Mod: case BinOp::CDiv: return intDivMod(cg, op, a, b);
    case BinOp::Min: return B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a, b);
    case BinOp::Max: return B.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a, b);
    default: break;
    }
  } else {
    switch (op) {
    case BinOp::Add: return B.CreateFAdd(a, b);
    case BinOp::Sub: return B.CreateFSub(a, b);
    case BinOp::Mul: return B.CreateFMul(a, b);
    case BinOp::Div: return B.CreateFDiv(a, b);
    case BinOp::Mod: // a - floor(a / b) * b, the float analogue of floor modulo
      return B.CreateFSub(a, B.CreateFMul(unaryIntrinsic(cg, llvm::Intrinsic::floor, B.CreateFDiv(a, b)), b));
    case BinOp::CDiv: return unaryIntrinsic(cg, llvm::Intrinsic::ceil, B.CreateFDiv(a, b));
    case BinOp::Min: return B.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, a, b);
    case BinOp::Max: return B.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, a, b);
    case BinOp::Pow: return cg.emitPow(a, b);
    default: break;
    }
  }
  throw InternalError("codegen: operator '" + std::string(ir::binOpSymbol(op)) + "' on type " +
                      std::string(ir::scalarTypeName(t)));
}

static llvm::Value *lowerCompare(CodegenContext &cg, BinOp op, llvm::Value *a, llvm::Value *b, bool isFp) {
  using P = llvm::CmpInst::Predicate;
  P p;
  switch (op) {
  case BinOp::EQ: p = isFp ? P::FCMP_OEQ : P::ICMP_EQ; break;
  case BinOp::NE: p = isFp ? P::FCMP_UNE : P::ICMP_NE; break;
  case BinOp::LT: p = isFp ? P::FCMP_OLT : P::ICMP_SLT; break;
  case BinOp::LE: p = isFp ? P::FCMP_OLE : P::ICMP_SLE; break;
  case BinOp::GT: p = isFp ? P::FCMP_OGT : P::ICMP_SGT; break;
  default: p = isFp ? P::FCMP_OGE : P::ICMP_SGE; break;
  }
  return cg.b.CreateCmp(p, a, b);
}

static llvm::Value *lowerBinary(CodegenContext &cg, const ir::ExprNode &e) {
  const ir::Expr &x = e.args.at(0), &y = e.args.at(1);
  if (ir::isLogical(e.binOp)) {
    llvm::Value *a = lowerExprAs(cg, x, ScalarType::Bool), *b = lowerExprAs(cg, y, ScalarType::Bool);
    return e.binOp == BinOp::And ? cg.b.CreateAnd(a, b) : cg.b.CreateOr(a, b);
  }
  if (ir::isComparison(e.binOp)) {
    ScalarType t = ir::promote(x->type, y->type);
    return lowerCompare(cg, e.binOp, lowerExprAs(cg, x, t), lowerExprAs(cg, y, t), ir::isFloat(t));
  }
  if (e.binOp == BinOp::Add && ir::isFloat(e.type) && cg.fuseMulAdd()) {
    auto product = [&](const ir::Expr &m) {
      return m->kind == ExprKind::Binary && m->binOp == BinOp::Mul && m->type == e.type;
    };
    if (product(y) || product(x)) {
      const ir::Expr &m = product(y) ? y : x, &addend = product(y) ? x : y;
      llvm::Value *a = lowerExprAs(cg, m->args.at(0), e.type), *b = lowerExprAs(cg, m->args.at(1), e.type);
      return cg.b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {a->getType()}, {a, b, lowerExprAs(cg, addend, e.type)});
    }
  }
  return lowerArith(cg, e.binOp, lowerExprAs(cg, x, e.type), lowerExprAs(cg, y, e.type), e.type);
}

static llvm::Value *lowerCall(CodegenContext &cg, const ir::ExprNode &e) {
  llvm::Value *x = lowerExprAs(cg, e.args.at(0), e.type);
  if (e.fn == ir::MathFn::Abs && !ir::isFloat(e.type))
    return cg.b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, cg.b.getFalse());
  return cg.emitMath(e.fn, x);
}

static llvm::Constant *reduceInit(CodegenContext &cg, ir::ReduceOp op, ScalarType t) {
  llvm::Type *type = cg.regType(t);
  bool fp = ir::isFloat(t);
  unsigned bits = type->getPrimitiveSizeInBits();
  switch (op) {
  case ir::ReduceOp::Sum: return llvm::Constant::getNullValue(type);
  case ir::ReduceOp::Prod: return fp ? llvm::ConstantFP::get(type, 1.0) : llvm::ConstantInt::get(type, 1);
  case ir::ReduceOp::Max:
    return fp ? llvm::ConstantFP::getInfinity(type, true)
              : llvm::ConstantInt::get(type, llvm::APInt::getSignedMinValue(bits));
  case ir::ReduceOp::Min:
    return fp ? llvm::ConstantFP::getInfinity(type, false)
              : llvm::ConstantInt::get(type, llvm::APInt::getSignedMaxValue(bits));
  }
  throw InternalError("codegen: unknown reduction");
}

// A reduction left in the loop IR becomes a loop nest over its variables
// accumulating into a stack slot.
static llvm::Value *lowerReduce(CodegenContext &cg, const ir::ExprNode &e) {
  static const BinOp combine[] = {BinOp::Add, BinOp::Max, BinOp::Min, BinOp::Mul};
  BinOp op = combine[static_cast<int>(e.reduceOp)];
  llvm::AllocaInst *acc = cg.entryAlloca(cg.regType(e.type), "acc");
  cg.b.CreateStore(reduceInit(cg, e.reduceOp, e.type), acc);
  std::function<void(size_t)> nest = [&](size_t k) {
    if (k == e.rvars.size()) {
      llvm::Value *v = lowerExprAs(cg, e.args.at(0), e.type);
      cg.b.CreateStore(lowerArith(cg, op, cg.b.CreateLoad(acc->getAllocatedType(), acc), v, e.type), acc);
      return;
    }
    const ir::IndexVar &rv = e.rvars[k];
    llvm::Value *extent = lowerExprAs(cg, rv.extent, ScalarType::I64);
    cg.emitLoop(cg.b.getInt64(0), extent, rv.name, {}, [&](llvm::Value *iv) {
      cg.pushScope();
      cg.bind(rv.name, {iv, ScalarType::I64});
      nest(k + 1);
      cg.popScope();
    });
  };
  nest(0);
  return cg.b.CreateLoad(acc->getAllocatedType(), acc);
}

static llvm::Value *lowerConstant(CodegenContext &cg, const ir::ExprNode &e) {
  llvm::Type *type = cg.regType(e.type);
  if (e.kind == ExprKind::BoolImm || e.type == ScalarType::Bool) return cg.b.getInt1(e.intValue != 0);
  double fv = e.kind == ExprKind::FloatImm ? e.floatValue : static_cast<double>(e.intValue);
  if (!ir::isFloat(e.type))
    return llvm::ConstantInt::get(type, e.kind == ExprKind::FloatImm ? static_cast<int64_t>(fv) : e.intValue, true);
  llvm::APFloat value(fv);
  bool lost = false;
  if (e.type != ScalarType::F64) {
    // Round a literal once, at compile time, to the precision of its type.
    const llvm::fltSemantics &sem = e.type == ScalarType::F16    ? llvm::APFloat::IEEEhalf()
                                    : e.type == ScalarType::BF16 ? llvm::APFloat::BFloat()
                                                                 : llvm::APFloat::IEEEsingle();
    value.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
    value.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &lost);
  }
  return llvm::ConstantFP::get(cg.ctx, value);
}

llvm::Value *lowerExpr(CodegenContext &cg, const ir::Expr &e) {
  if (!e) throw InternalError("codegen: null expression");
  switch (e->kind) {
  case ExprKind::IntImm:
  case ExprKind::FloatImm:
  case ExprKind::BoolImm: return lowerConstant(cg, *e);
  case ExprKind::Var: {
    const VarBinding *v = cg.lookup(e->name);
    if (!v) throw InternalError("codegen: unbound variable '" + e->name + "'");
    return convertValue(cg, v->value, v->type, e->type);
  }
  case ExprKind::Hole:
    throw InternalError(fmt::format("codegen: unfilled hole ?{}", e->holeId));
  case ExprKind::Unary:
    if (e->unOp == ir::UnOp::Not) return cg.b.CreateNot(lowerExprAs(cg, e->args.at(0), ScalarType::Bool));
    return ir::isFloat(e->type) ? cg.b.CreateFNeg(lowerExprAs(cg, e->args.at(0), e->type))
                                : cg.b.CreateNeg(lowerExprAs(cg, e->args.at(0), e->type));
  case ExprKind::Binary: return lowerBinary(cg, *e);
  case ExprKind::Select: {
    llvm::Value *c = lowerExprAs(cg, e->args.at(0), ScalarType::Bool);
    llvm::Value *a = lowerExprAs(cg, e->args.at(1), e->type);
    return cg.b.CreateSelect(c, a, lowerExprAs(cg, e->args.at(2), e->type));
  }
  case ExprKind::Call: return lowerCall(cg, *e);
  case ExprKind::Cast: return lowerExprAs(cg, e->args.at(0), e->type);
  case ExprKind::Load: return lowerLoad(cg, *e);
  case ExprKind::Reduce: return lowerReduce(cg, *e);
  case ExprKind::Shuffle:
    return cg.emitShuffle(e->shuffleOp, lowerExprAs(cg, e->args.at(0), e->type),
                          lowerExprAs(cg, e->args.at(1), ScalarType::I32));
  }
  throw InternalError("codegen: unknown expression kind");
}

llvm::Value *lowerExprAs(CodegenContext &cg, const ir::Expr &e, ScalarType to) {
  return convertValue(cg, lowerExpr(cg, e), e->type, to);
}

} // namespace tk::codegen
