#include "backends/x86/LaneMask.h"

#include "backends/common/LowerExprToLLVM.h"
#include "ir/Simplify.h"

#include <llvm/IR/Intrinsics.h>

#include <cstdlib>

namespace tk::x86 {

using ir::BinOp;
using ir::Expr;
using ir::ExprKind;
using ir::mentionsVar;

std::optional<int64_t> laneStride(const Expr &e, const std::string &var) {
  if (!e || !ir::isInteger(e->type)) return std::nullopt;
  std::optional<ir::VarTerm> t = ir::splitOnVar(e, var);
  if (!t) return std::nullopt;
  return t->coef;
}

// Keeps stride * lane (64 lanes at most) and fixed - moving far from
// overflowing 64 bits for any index a tensor can have (emitLaneMask).
constexpr int64_t kMaxLaneStride = int64_t(1) << 24;

static bool comparison(const Expr &t) {
  return t->kind == ExprKind::Binary &&
         (t->binOp == BinOp::LT || t->binOp == BinOp::LE || t->binOp == BinOp::GT || t->binOp == BinOp::GE);
}

bool laneMaskable(const Expr &pred, const std::string &var) {
  if (!pred || !mentionsVar(pred, var)) return true;
  if (pred->kind == ExprKind::Binary && pred->binOp == BinOp::And)
    return laneMaskable(pred->args[0], var) && laneMaskable(pred->args[1], var);
  if (!comparison(pred)) return false;
  for (int side = 0; side < 2; ++side) {
    std::optional<int64_t> c = laneStride(pred->args[side], var);
    if (c && *c != 0 && std::abs(*c) <= kMaxLaneStride && !mentionsVar(pred->args[1 - side], var)) return true;
  }
  return false;
}

bool affineIn(const Expr &pred, const std::string &var) {
  if (!pred || !mentionsVar(pred, var)) return true;
  if (pred->kind == ExprKind::Binary && pred->binOp == BinOp::And)
    return affineIn(pred->args[0], var) && affineIn(pred->args[1], var);
  return comparison(pred) && laneStride(pred->args[0], var) && laneStride(pred->args[1], var);
}

llvm::Value *emitLaneEnd(CodegenContext &cg, const Expr &pred, const std::string &var,
                         const std::vector<std::string> &unbound) {
  if (!pred || !mentionsVar(pred, var)) return nullptr;
  auto &b = cg.b;
  if (pred->kind == ExprKind::Binary && pred->binOp == BinOp::And) {
    llvm::Value *l = emitLaneEnd(cg, pred->args[0], var, unbound), *r = emitLaneEnd(cg, pred->args[1], var, unbound);
    return l && r ? b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, l, r) : l ? l : r;
  }
  if (!comparison(pred)) return nullptr;
  for (const std::string &name : unbound)
    if (mentionsVar(pred, name)) return nullptr;
  // var + rest < fixed (LT, or GT with the sides swapped): var < fixed - rest.
  bool upper = pred->binOp == BinOp::LT || pred->binOp == BinOp::LE;
  const Expr &moving = pred->args[upper ? 0 : 1], &fixed = pred->args[upper ? 1 : 0];
  if (laneStride(moving, var) != std::optional<int64_t>(1) || mentionsVar(fixed, var)) return nullptr;
  Expr rest = ir::simplify(ir::substitute(moving, {{var, ir::intImm(0)}}));
  bool inclusive = pred->binOp == BinOp::LE || pred->binOp == BinOp::GE;
  Expr end = ir::simplify(ir::sub(inclusive ? ir::add(fixed, ir::intImm(1)) : fixed, rest));
  return codegen::lowerExprAs(cg, end, ir::ScalarType::I64);
}

llvm::Value *emitLaneMask(CodegenContext &cg, const Expr &pred, const std::string &var, int lanes) {
  auto &b = cg.b;
  auto *maskTy = llvm::FixedVectorType::get(b.getInt1Ty(), lanes);
  if (!pred) return llvm::Constant::getAllOnesValue(maskTy);
  if (pred->kind == ExprKind::Binary && pred->binOp == BinOp::And)
    return b.CreateAnd(emitLaneMask(cg, pred->args[0], var, lanes), emitLaneMask(cg, pred->args[1], var, lanes));
  if (!mentionsVar(pred, var))
    return b.CreateVectorSplat(lanes, codegen::lowerExprAs(cg, pred, ir::ScalarType::Bool));
  if (!comparison(pred)) throw InternalError("lane mask of a non-comparison (laneMaskable was not checked)");
  bool left = mentionsVar(pred->args[0], var);
  std::optional<int64_t> stride = laneStride(pred->args[left ? 0 : 1], var);
  if (!stride) throw InternalError("lane mask of a non-affine term (laneMaskable was not checked)");
  // moving + stride*l OP fixed  <=>  stride*l OP fixed - moving: one scalar
  // subtraction, one broadcast and a compare against constant lanes (no
  // per-lane add; no clamping to 32 bits either, whose scalar selects cost
  // general-purpose registers that the register tiles' pointers need).
  llvm::Value *moving = codegen::lowerExprAs(cg, pred->args[left ? 0 : 1], ir::ScalarType::I64);
  llvm::Value *fixed = codegen::lowerExprAs(cg, pred->args[left ? 1 : 0], ir::ScalarType::I64);
  llvm::Value *room = b.CreateVectorSplat(lanes, b.CreateSub(fixed, moving));
  std::vector<llvm::Constant *> steps;
  for (int l = 0; l < lanes; ++l) steps.push_back(b.getInt64(*stride * l));
  using P = llvm::CmpInst;
  P::Predicate p = pred->binOp == BinOp::LT   ? (left ? P::ICMP_SLT : P::ICMP_SGT)
                   : pred->binOp == BinOp::LE ? (left ? P::ICMP_SLE : P::ICMP_SGE)
                   : pred->binOp == BinOp::GT ? (left ? P::ICMP_SGT : P::ICMP_SLT)
                                              : (left ? P::ICMP_SGE : P::ICMP_SLE);
  return b.CreateICmp(p, llvm::ConstantVector::get(steps), room);
}

} // namespace tk::x86
