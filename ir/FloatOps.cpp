#include "ir/FloatOps.h"

namespace tk::ir {

int64_t floatOps(const Expr &e) {
  int64_t n = 0;
  visitExpr(e, [&](const Expr &x) {
    bool arith = (x->kind == ExprKind::Binary && x->binOp <= BinOp::Pow) ||
                 (x->kind == ExprKind::Unary && x->unOp == UnOp::Neg) || x->kind == ExprKind::Call;
    n += arith && isFloat(x->type);
  });
  return n;
}

} // namespace tk::ir
