#include "ir/ByteDot.h"

#include "ir/Expr.h"

namespace tk::ir {

Expr unsignedByte(const Expr &byte) {
  Expr c256 = intImm(256, ScalarType::I32);
  return binary(BinOp::Mod, binary(BinOp::Add, cast(ScalarType::I32, byte), c256), c256);
}

namespace {

// A load of an i8 tensor whose last dimension is a quad, else null.
Expr quadLoad(const Expr &e) {
  int64_t last = 0;
  if (!e || e->kind != ExprKind::Load || e->type != ScalarType::I8 || e->tensor->shape.empty() ||
      !isConstInt(e->tensor->shape.back(), &last) || last != 4)
    return nullptr;
  return e;
}

// i32(L) for a quad load L, else null.
Expr widened(const Expr &e) {
  if (e->kind != ExprKind::Cast || e->type != ScalarType::I32) return nullptr;
  return quadLoad(e->args[0]);
}

// L in (i32(L) + 256) % 256 for a quad load L, else null.
Expr unsignedOf(const Expr &e) {
  int64_t m = 0, a = 0;
  if (e->kind != ExprKind::Binary || e->binOp != BinOp::Mod || !isConstInt(e->args[1], &m) || m != 256)
    return nullptr;
  const Expr &sum = e->args[0];
  if (sum->kind != ExprKind::Binary || sum->binOp != BinOp::Add || !isConstInt(sum->args[1], &a) || a != 256)
    return nullptr;
  return widened(sum->args[0]);
}

} // namespace

std::optional<ByteDotLoads> matchByteDot(const Expr &prod) {
  if (!prod || prod->kind != ExprKind::Binary || prod->binOp != BinOp::Mul) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    Expr v = unsignedOf(prod->args[side]), x = widened(prod->args[1 - side]);
    if (v && x && !v->args.empty() && !x->args.empty() && sameExpr(v->args.back(), x->args.back()))
      return ByteDotLoads{v, x};
  }
  return std::nullopt;
}

} // namespace tk::ir
